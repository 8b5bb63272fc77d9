/**
 * `steward audit verify` (docs/audit-evidence.md): exit 0 with a summary when every chain checks out, 1 naming the
 * first broken row of each broken chain, 2 on a usage, key or connection error.
 */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { verifyExport } from '../../runtime/audit/export.js';
import { AuditKeyError } from '../../runtime/audit/signing.js';
import { verifyAudit } from '../../runtime/audit/verify.js';
import type { AuditProblem, ChainSummary, VerifyResult } from '../../runtime/audit/walk.js';
import { AuditCliError, auditCliConfig, openAuditDb, publicKey, type PublicKey } from './source.js';

export interface AuditVerifyOptions {
  databaseUrl?: string;
  dataDir?: string;
  /** An export (JSON lines) to check instead of a database. */
  file?: string;
  publicKey?: string;
  organization?: string;
  /** false (`--no-signatures`): pass without a public key, comparing checkpoint hashes only. @default true */
  signatures?: boolean;
  format?: 'pretty' | 'json';
}

/** What to print where, and the exit code. */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const usage = (message: string): CommandOutput => ({ stdout: '', stderr: `steward audit: ${message}\n`, exitCode: 2 });

export async function auditVerify(
  opts: AuditVerifyOptions,
  env: Record<string, string | undefined>,
): Promise<CommandOutput> {
  const config = auditCliConfig(env);
  let key: PublicKey;
  let result: VerifyResult;
  try {
    key = await publicKey(config, opts);
    result = opts.file ? await verifyFile(opts.file, key) : await verifyDatabase(opts, config, key);
  } catch (err) {
    if (err instanceof AuditCliError || err instanceof AuditKeyError) return usage(err.message);
    throw err;
  }
  const checkpoints = result.chains.reduce((n, c) => n + c.checkpoints, 0);
  // NB: exit 2, not 1: nothing was found broken, but the checkpoints' signatures, what protects a rewritten chain,
  // were not checked. A monitor that pages on 1 (tampering) should not page on a missing key file.
  const unchecked =
    result.ok && !key.verifier && checkpoints > 0 && opts.signatures !== false
      ? usage(
          `${count(checkpoints, 'signed checkpoint')} could not be checked: no public key ` +
            `(looked for ${key.looked.join(', ')}). Pass --public-key FILE or set STEWARD_AUDIT_PUBLIC_KEY_FILE; ` +
            '--no-signatures checks the chains without them',
        )
      : undefined;
  if (opts.format === 'json')
    return {
      stdout: `${JSON.stringify(result, null, 2)}\n`,
      stderr: unchecked?.stderr ?? '',
      exitCode: unchecked?.exitCode ?? (result.ok ? 0 : 1),
    };
  if (!result.ok) return { stdout: failure(result), stderr: '', exitCode: 1 };
  return unchecked ?? { stdout: summary(result, key, opts.file ? 'export' : 'database'), stderr: '', exitCode: 0 };
}

async function verifyDatabase(
  opts: AuditVerifyOptions,
  config: ReturnType<typeof auditCliConfig>,
  key: PublicKey,
): Promise<VerifyResult> {
  if (opts.databaseUrl !== undefined && opts.dataDir !== undefined)
    throw new AuditCliError('--database-url and --data-dir name two databases: give one');
  const db = await openAuditDb(config, opts);
  try {
    return await verifyAudit(db, key.verifier, opts.organization ? { organization: opts.organization } : {});
  } finally {
    await db.close();
  }
}

async function verifyFile(file: string, key: PublicKey): Promise<VerifyResult> {
  try {
    await access(file);
  } catch {
    throw new AuditCliError(`--file ${file}: no such file`);
  }
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  return verifyExport(lines, key.verifier);
}

function failure(result: Extract<VerifyResult, { ok: false }>): string {
  const broken = new Set(result.problems.map((p) => p.chain));
  const good = result.chains.filter((c) => !broken.has(c.chain)).length;
  return (
    result.problems.map((p) => `FAILED ${place(p)}: ${p.what}\n`).join('') +
    `${broken.size} of ${result.chains.length} chain${result.chains.length === 1 ? '' : 's'} broken; ` +
    `${good} verified.\n`
  );
}

/** `chain org-a, sequence 500, row aud_…` */
function place(p: AuditProblem): string {
  return [
    `chain ${p.chain || '?'}`,
    p.seq === null ? undefined : `sequence ${p.seq}`,
    p.id === undefined ? undefined : `row ${p.id}`,
  ]
    .filter(Boolean)
    .join(', ');
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** What was verified: a database (a chain starting after 0 was pruned) or an export (it starts at its anchor). */
type Source = 'database' | 'export';

function summary(result: Extract<VerifyResult, { ok: true }>, key: PublicKey, source: Source): string {
  const sum = (f: (c: ChainSummary) => number) => result.chains.reduce((n, c) => n + f(c), 0);
  const checkpoints = sum((c) => c.checkpoints);
  const pruned = result.chains.filter((c) => c.startSeq > 0).length;
  const legacy = sum((c) => c.legacyRows);
  const signed =
    result.signatures === 'verified'
      ? `${count(checkpoints, 'signed checkpoint')} verified with key ${key.verifier!.keyId} (${key.file})`
      : `${count(checkpoints, 'checkpoint')} matched by hash only: their signatures were NOT checked (no public key)`;
  const paragraph =
    `Audit log verified: ${count(result.chains.length, 'chain')}, ${count(
      sum((c) => c.rows),
      'row',
    )} ` +
    `unchanged and linked${pruned ? ` (${count(pruned, 'chain')} pruned by retention, checked from the cut)` : ''}; ` +
    `${signed}; ${count(
      sum((c) => c.rowsAfterLastCheckpoint),
      'row',
    )} after the last checkpoints ` +
    `protected by the chain alone` +
    (legacy ? `; ${count(legacy, 'row')} written before the chains began, not chained` : '') +
    '.';
  return `${paragraph}\n${result.chains.map((c) => chainLine(c, source)).join('')}`;
}

function chainLine(c: ChainSummary, source: Source): string {
  const span = c.rows === 0 ? 'no rows' : `sequence ${c.firstSeq}–${c.lastSeq} (${count(c.rows, 'row')})`;
  return (
    `  ${c.chain}: ${span}` +
    (c.startSeq > 0
      ? source === 'export'
        ? `, from the anchor at ${c.startSeq}`
        : `, pruned through ${c.startSeq}`
      : '') +
    `, ${count(c.checkpoints, 'checkpoint')}` +
    (c.lastCheckpointSeq === null
      ? ''
      : ` (last at ${c.lastCheckpointSeq}, ${c.rowsAfterLastCheckpoint} rows after it)`) +
    (c.legacyRows ? `, ${count(c.legacyRows, 'legacy row')}` : '') +
    '\n'
  );
}
