/**
 * `steward audit export` (docs/audit-evidence.md): one organization's chain, or a date range of it, as JSON lines
 * that `steward audit verify --file` checks offline. Written as it is read: an export of any size runs in constant
 * memory.
 */
import { createWriteStream } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AuditExportError, exportAudit } from '../../runtime/audit/export.js';
import { AuditCliError, auditCliConfig, openAuditDb } from './source.js';
import type { CommandOutput } from './verify-command.js';

export interface AuditExportOptions {
  organization: string;
  /** RFC 3339 time or a date (midnight UTC); rows dated at or after it. */
  from?: string;
  /** RFC 3339 time or a date (midnight UTC); rows dated before it. */
  to?: string;
  /** absent: standard output. */
  out?: string;
  databaseUrl?: string;
  dataDir?: string;
}

/** Writes the export to `--out` or `stdout`; the summary goes to standard error, so stdout stays the export alone. */
export async function auditExport(
  opts: AuditExportOptions,
  env: Record<string, string | undefined>,
  stdout: Writable = process.stdout,
): Promise<CommandOutput> {
  const config = auditCliConfig(env);
  const counts = { row: 0, checkpoint: 0 };
  try {
    const from = instant('--from', opts.from);
    const to = instant('--to', opts.to);
    if (opts.databaseUrl !== undefined && opts.dataDir !== undefined)
      throw new AuditCliError('--database-url and --data-dir name two databases: give one');
    const db = await openAuditDb(config, opts);
    try {
      const lines = exportAudit(db, { organization: opts.organization, ...(from && { from }), ...(to && { to }) });
      const sink = opts.out ? createWriteStream(opts.out, { mode: 0o600 }) : stdout;
      await pipeline(Readable.from(counted(lines, counts)), sink, { end: sink !== process.stdout });
    } finally {
      await db.close();
    }
  } catch (err) {
    if (err instanceof AuditCliError) return fail(2, err.message);
    // NB: exit 1: the chain the export needs is broken (a missing row), which `verify` names.
    if (err instanceof AuditExportError) return fail(1, err.message);
    throw err;
  }
  return {
    stdout: '',
    stderr: `exported ${counts.row} rows and ${counts.checkpoint} checkpoints of ${opts.organization} to ${opts.out ?? 'standard output'}\n`,
    exitCode: 0,
  };
}

/** The lines with their newlines, counted by type (each line starts with it: JSON.stringify keeps key order). */
async function* counted(lines: AsyncIterable<string>, counts: { row: number; checkpoint: number }) {
  for await (const line of lines) {
    if (line.startsWith('{"type":"row"')) counts.row++;
    else if (line.startsWith('{"type":"checkpoint"')) counts.checkpoint++;
    yield `${line}\n`;
  }
}

const fail = (exitCode: number, message: string): CommandOutput => ({
  stdout: '',
  stderr: `steward audit: ${message}\n`,
  exitCode,
});

/** A bare date is midnight UTC; anything else must parse as a time. */
function instant(flag: string, text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(t)) throw new AuditCliError(`${flag} ${text}: not a date or an RFC 3339 time`);
  return new Date(t);
}
