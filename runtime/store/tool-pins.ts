/**
 * Pinned tool definitions of `mcp` connectors (migration 11, runtime/connectors/pins): one row per Connector
 * (`namespace/name`), holding the approved definitions so that a later change can be shown as a diff. Writes are
 * conditional (insert if absent, replace if the digest is still the one read), so replicas agree on one pin.
 */
import type { ToolPin, ToolPinStore, PinnedTool, PinSource } from '../connectors/pins/pins.js';
import type { Queryable } from './db.js';

interface Row {
  digest: string;
  tools: PinnedTool[];
  pinned_at: Date | string;
  pinned_by: PinSource;
}

const toPin = (r: Row): ToolPin => ({
  digest: r.digest,
  tools: r.tools,
  pinnedAt: new Date(r.pinned_at),
  pinnedBy: r.pinned_by,
});

export class ToolPinRepository implements ToolPinStore {
  constructor(private readonly db: Queryable) {}

  async get(key: string): Promise<ToolPin | undefined> {
    const { rows } = await this.db.query<Row>(
      'SELECT digest, tools, pinned_at, pinned_by FROM tool_pins WHERE connector = $1',
      [key],
    );
    return rows[0] ? toPin(rows[0]) : undefined;
  }

  async create(key: string, pin: ToolPin): Promise<ToolPin> {
    await this.db.query(
      `INSERT INTO tool_pins (connector, digest, tools, pinned_at, pinned_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (connector) DO NOTHING`,
      [key, pin.digest, JSON.stringify(pin.tools), pin.pinnedAt, pin.pinnedBy],
    );
    const row = await this.get(key);
    if (!row) throw new Error(`tool pin ${key} vanished after it was written`);
    return row;
  }

  async replace(key: string, expected: string, pin: ToolPin): Promise<ToolPin | undefined> {
    await this.db.query(
      `UPDATE tool_pins SET digest = $3, tools = $4, pinned_at = $5, pinned_by = $6
       WHERE connector = $1 AND digest = $2`,
      [key, expected, pin.digest, JSON.stringify(pin.tools), pin.pinnedAt, pin.pinnedBy],
    );
    return this.get(key);
  }
}
