/**
 * Pinned tool definitions of `mcp` connectors (issue 37, docs/connectors.md "Pinned tool definitions").
 *
 * Each time an upstream's tool list is read (at session open, on `notifications/tools/list_changed`, at each health
 * check) its definitions are held against the pin in the store:
 * - no pin yet: the list is pinned as it is (first use), except the tools whose description the prompt-injection
 *   detector flags, which are held;
 * - a tool whose digest differs from its pinned one is `changed`: hidden from listings, and its calls fail with
 *   TOOL_DEFINITION_CHANGED;
 * - a tool the pin does not have is `new`: held (STEWARD_MCP_NEW_TOOLS=hold, the default) or pinned on sight after
 *   the detector passes it (`pin`);
 * - the annotation `steward.dev/approve-tools: <digest>` naming the digest of the list served now approves that
 *   whole list: it becomes the pin.
 *
 * The pin is shared by every gateway replica (one row per connector); every replica decides the same from the same
 * row, and a write is conditional on the digest it replaces, so two replicas cannot pin two different lists.
 */
import { APPROVE_TOOLS_ANNOTATION } from '../../../api/constants.js';
import type { Logger } from '../../../platform/log.js';
import { Serial } from '../../../platform/serial.js';
import { ConnectorError } from '../errors.js';
import { withTimeout } from '../limits.js';
import type { ToolPinStatus } from '../status.js';
import { definitionDiff, listDigest, toolDigest, type ToolDefinition } from './digest.js';

export { APPROVE_TOOLS_ANNOTATION };

/** What happens to a tool the pin does not have (STEWARD_MCP_NEW_TOOLS). */
export type NewToolsMode = 'hold' | 'pin';

export interface PinnedTool extends ToolDefinition {
  digest: string;
}

/** How a pin came to be. */
export type PinSource = 'first-use' | 'annotation' | 'new-tool';

export interface ToolPin {
  digest: string;
  tools: PinnedTool[];
  pinnedAt: Date;
  pinnedBy: PinSource;
}

/** Where pins live (runtime/store/tool-pins.ts). */
export interface ToolPinStore {
  get(key: string): Promise<ToolPin | undefined>;
  /** Inserts the pin when there is none; answers the row that is there (this one, or one written first elsewhere). */
  create(key: string, pin: ToolPin): Promise<ToolPin>;
  /** Replaces the pin when its digest is still `expected`; answers the row that is there afterwards. */
  replace(key: string, expected: string, pin: ToolPin): Promise<ToolPin | undefined>;
}

/** The policy that flags a tool's description as a prompt injection; undefined when none does. */
export type DescriptionScreen = (tool: ToolDefinition) => Promise<string | undefined>;

/** Where a listed tool stands: `approved` tools are listed and called, the others are held. */
export type ToolState = 'approved' | 'changed' | 'new' | 'suspect';

export interface ToolVerdict {
  name: string;
  digest: string;
  state: ToolState;
  /** The approved digest of a changed tool. */
  approvedDigest?: string;
  /** A changed tool's differences, a line each. */
  diff?: string[];
  /** The policy that flagged its description. */
  flaggedBy?: string;
}

/** A listing held against the pin. */
export interface ToolsView {
  current: string;
  tools: ToolVerdict[];
  removed: { name: string; digest: string }[];
  pin?: { digest: string; at: Date; by: PinSource };
  /** The annotation's digest when it names neither the list served now nor the approved one. */
  staleApproval?: string;
  /** Why the listing could not be held against the pin (the store failed): every tool is held. */
  unverified?: string;
}

export interface ToolPinsOptions {
  store: ToolPinStore;
  screen?: DescriptionScreen;
  newTools: NewToolsMode;
  log?: Logger;
  now?: () => Date;
  /** How long reading and writing the pin may take before the listing counts as unverified. @default 10 s */
  timeoutMs?: number;
}

/** The registry's pins: one gate per `mcp` connector. */
export class ToolPins {
  /** Screening results by tool digest: a definition is screened once per process. */
  private readonly screened = new Map<string, Promise<string | undefined>>();

  constructor(readonly options: ToolPinsOptions) {}

  /**
   * The gate of one connector. `key` names its pin (namespace/name); `approval` reads the annotation of the
   * Connector as it is now; `changed` hears each new view.
   */
  gate(key: string, connector: string, approval: () => string | undefined, changed: (v: ToolsView) => void): ToolGate {
    return new ToolGate(this, key, connector, approval, changed);
  }

  /** The policy that flags the definition's description (once per digest; a failed screen flags it). */
  screen(tool: PinnedTool): Promise<string | undefined> {
    const screen = this.options.screen;
    if (!screen) return Promise.resolve(undefined);
    let verdict = this.screened.get(tool.digest);
    if (!verdict) {
      if (this.screened.size >= 4096) this.screened.clear();
      verdict = screen(tool).catch((err: unknown) => {
        this.options.log?.warn({ tool: tool.name, err: String(err) }, 'tool description could not be screened');
        return 'the prompt-injection screen failed';
      });
      this.screened.set(tool.digest, verdict);
    }
    return verdict;
  }
}

/** One connector's listing held against its pin; what callers may list and call. */
export class ToolGate {
  private view: ToolsView | undefined;
  private last: ToolDefinition[] | undefined;
  private readonly queue = new Serial();

  constructor(
    private readonly pins: ToolPins,
    readonly key: string,
    private readonly connector: string,
    private readonly approval: () => string | undefined,
    private readonly changed: (v: ToolsView) => void,
  ) {}

  /** A listing was read: resolves once it is held against the pin (never rejects: a failure holds every tool). */
  listed(tools: readonly ToolDefinition[]): Promise<void> {
    this.last = [...tools];
    return this.queue.run(() => this.hold(tools));
  }

  /** The annotation changed: the last listing is held again. */
  reconsider(): Promise<void> {
    const tools = this.last;
    return tools ? this.queue.run(() => this.hold(tools)) : Promise.resolve();
  }

  current(): ToolsView | undefined {
    return this.view;
  }

  /** Whether the tool may be listed and called. */
  approved(tool: string): boolean {
    const v = this.view;
    return (
      v !== undefined && v.unverified === undefined && v.tools.some((t) => t.name === tool && t.state === 'approved')
    );
  }

  /** Throws when the tool may not be called; a tool no listing has named yet is left to the connector. */
  admit(tool: string): void {
    const v = this.view;
    if (!v) return;
    if (v.unverified !== undefined)
      throw new ConnectorError(
        'CONNECTOR_UNAVAILABLE',
        `the tool definitions of connector ${this.connector} could not be checked against their pins`,
        { connector: this.connector, reason: 'PINS_UNAVAILABLE' },
      );
    const t = v.tools.find((x) => x.name === tool);
    if (!t || t.state === 'approved') return;
    const approve = `approve the list ${v.current} with the annotation ${APPROVE_TOOLS_ANNOTATION}`;
    if (t.state === 'changed')
      throw new ConnectorError(
        'TOOL_DEFINITION_CHANGED',
        `tool ${tool} of connector ${this.connector} changed since it was approved; ${approve}`,
        { connector: this.connector, reason: 'CHANGED' },
      );
    throw new ConnectorError(
      'TOOL_NOT_APPROVED',
      t.state === 'suspect'
        ? `tool ${tool} of connector ${this.connector} is held: policy ${t.flaggedBy} flags its description; ${approve}`
        : `tool ${tool} of connector ${this.connector} is new and held until approved; ${approve}`,
      { connector: this.connector, reason: t.state === 'suspect' ? 'SUSPECT_DESCRIPTION' : 'NEW_TOOL' },
    );
  }

  private async hold(listing: readonly ToolDefinition[]): Promise<void> {
    const { log, timeoutMs = 10_000 } = this.pins.options;
    let view: ToolsView;
    try {
      view = await withTimeout(this.verdict(listing), timeoutMs);
    } catch (err) {
      log?.error({ connector: this.connector, err: String(err) }, 'tool definitions could not be checked');
      const tools = unique(listing).map((t) => ({ name: t.name, digest: t.digest, state: 'new' as const }));
      view = {
        current: listDigest(tools.map((t) => t.digest)),
        tools,
        removed: [],
        unverified: `the pins could not be read or written: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    const before = this.view;
    this.view = view;
    if (before && sameView(before, view)) return;
    const held = view.tools.filter((t) => t.state !== 'approved');
    if (held.length > 0 || view.removed.length > 0)
      log?.warn(
        { connector: this.connector, approved: view.pin?.digest, current: view.current, changes: changesOf(view) },
        'tool definitions differ from the approved ones',
      );
    this.changed(view);
  }

  private async verdict(listing: readonly ToolDefinition[]): Promise<ToolsView> {
    const { store, newTools, now = () => new Date() } = this.pins.options;
    const tools = unique(listing);
    const current = listDigest(tools.map((t) => t.digest));
    const approval = this.approval();
    let pin = await store.get(this.key);
    if (approval === current && pin?.digest !== current) {
      const next = pinOf(tools, 'annotation', now());
      pin = pin ? await store.replace(this.key, pin.digest, next) : await store.create(this.key, next);
    } else if (!pin) {
      const clean = await this.unflagged(tools);
      pin = await store.create(this.key, pinOf(clean, 'first-use', now()));
    } else if (newTools === 'pin') {
      const known = new Set(pin.tools.map((t) => t.name));
      const clean = await this.unflagged(tools.filter((t) => !known.has(t.name)));
      if (clean.length > 0)
        pin = await store.replace(this.key, pin.digest, pinOf([...pin.tools, ...clean], 'new-tool', now()));
    }
    if (!pin) throw new Error('the pin vanished while it was written');
    const pinned = new Map(pin.tools.map((t) => [t.name, t]));
    const verdicts: ToolVerdict[] = [];
    for (const t of tools) {
      const p = pinned.get(t.name);
      if (p?.digest === t.digest) {
        verdicts.push({ name: t.name, digest: t.digest, state: 'approved' });
        continue;
      }
      const flaggedBy = await this.pins.screen(t);
      verdicts.push({
        name: t.name,
        digest: t.digest,
        state: p ? 'changed' : flaggedBy ? 'suspect' : 'new',
        ...(p ? { approvedDigest: p.digest, diff: definitionDiff(p, t) } : {}),
        ...(flaggedBy ? { flaggedBy } : {}),
      });
    }
    const listed = new Set(tools.map((t) => t.name));
    return {
      current,
      tools: verdicts,
      removed: pin.tools.filter((t) => !listed.has(t.name)).map((t) => ({ name: t.name, digest: t.digest })),
      pin: { digest: pin.digest, at: pin.pinnedAt, by: pin.pinnedBy },
      ...(approval !== undefined && approval !== current && approval !== pin.digest ? { staleApproval: approval } : {}),
    };
  }

  private async unflagged(tools: readonly PinnedTool[]): Promise<PinnedTool[]> {
    const flags = await Promise.all(tools.map((t) => this.pins.screen(t)));
    return tools.filter((_, i) => flags[i] === undefined);
  }
}

/** The listing with digests, a name once (the first definition of a name is the one the connector calls). */
function unique(listing: readonly ToolDefinition[]): PinnedTool[] {
  const seen = new Set<string>();
  const out: PinnedTool[] = [];
  for (const t of listing) {
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    const def = { name: t.name, description: t.description, inputSchema: t.inputSchema };
    out.push({ ...def, digest: toolDigest(def) });
  }
  return out;
}

function pinOf(tools: readonly PinnedTool[], by: PinSource, at: Date): ToolPin {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { digest: listDigest(sorted.map((t) => t.digest)), tools: sorted, pinnedAt: at, pinnedBy: by };
}

function sameView(a: ToolsView, b: ToolsView): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** How many characters of changes a status (and a condition message) carries. */
const CHANGES_MAX_CHARS = 4096;
/** How many tools a status lists. */
const STATUS_MAX_TOOLS = 500;

/** The view's differences, a line each: what a person reads before approving. */
export function changesOf(v: ToolsView): string | undefined {
  const lines: string[] = [];
  if (v.unverified) lines.push(v.unverified);
  for (const t of v.tools) {
    if (t.state === 'changed') {
      lines.push(`changed ${t.name}: ${(t.diff ?? []).join('; ') || 'its definition'}`);
      if (t.flaggedBy) lines.push(`  policy ${t.flaggedBy} flags its new description`);
    } else if (t.state === 'new') lines.push(`new ${t.name}: held until approved`);
    else if (t.state === 'suspect') lines.push(`new ${t.name}: held, policy ${t.flaggedBy} flags its description`);
  }
  for (const r of v.removed) lines.push(`removed ${r.name}`);
  if (v.staleApproval)
    lines.push(`${APPROVE_TOOLS_ANNOTATION} names ${v.staleApproval}, which is not the list served now (${v.current})`);
  if (lines.length === 0) return undefined;
  const text = lines.join('\n');
  return text.length > CHANGES_MAX_CHARS ? `${text.slice(0, CHANGES_MAX_CHARS - 1)}…` : text;
}

/** `Connector.status.tools` of a view. */
export function pinStatus(v: ToolsView): ToolPinStatus {
  const tools: ToolPinStatus['tools'] = [
    ...v.tools.map((t) => ({ name: t.name, digest: t.digest, state: t.state })),
    ...v.removed.map((t) => ({ name: t.name, digest: t.digest, state: 'removed' as const })),
  ].slice(0, STATUS_MAX_TOOLS);
  const changes = changesOf(v);
  return {
    ...(v.pin ? { approved: v.pin.digest, approvedAt: v.pin.at.toISOString(), approvedBy: v.pin.by } : {}),
    current: v.current,
    tools,
    ...(changes ? { changes } : {}),
    ...(v.unverified ? { unverified: v.unverified } : {}),
  };
}
