/**
 * The audit log's evidence in a running gateway (issue 36, docs/audit-evidence.md): signed checkpoints of every
 * organization's chain every `checkpointRows` rows or `checkpointMs`, each also handed to an external witness (a
 * file, a webhook) when one is configured, and the retention prune. Every replica runs it: checkpoints of the same
 * head are written once (the table's key), and a prune is idempotent.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../../platform/log.js';
import { StartupError } from '../../platform/startup-error.js';
import type { EvidenceSettings } from '../settings.js';
import type { Db } from '../store/index.js';
import { writeCheckpoints } from './checkpoints.js';
import { pruneAudit } from './retention.js';
import { AuditSigner, type SignedCheckpoint } from './signing.js';

/** How often a replica looks for chains due a checkpoint (the settings' bounds are checked at each look). */
const LOOK_MS = 5000;
/** How often a replica prunes, when a retention is set. */
const PRUNE_MS = 3_600_000;
/** Deadline of one witness webhook call. */
const WITNESS_TIMEOUT_MS = 5000;

export interface Evidence {
  /** The key's id, and where its public key is. */
  readonly keyId: string;
  /** Signs what is due now (the timer's work; tests call it). */
  checkpoint(): Promise<SignedCheckpoint[]>;
  close(): Promise<void>;
}

/**
 * Opens the signing key (generating it first where `settings.generateKey` says so: standalone) and starts the
 * timers; undefined when no key is configured (the chain still links every row; there are no checkpoints).
 */
export async function startEvidence(o: {
  db: Db;
  settings: EvidenceSettings;
  log: Logger;
  now?: () => Date;
}): Promise<Evidence | undefined> {
  const { settings } = o;
  const log = o.log.child({ module: 'audit-evidence' });
  const now = o.now ?? (() => new Date());
  if (!settings.signingKeyFile) {
    log.warn(
      { setting: 'STEWARD_AUDIT_SIGNING_KEY_FILE' },
      'no audit signing key: rows are hash-chained, but no checkpoint is signed, so a rewrite of the whole chain would not show',
    );
    return undefined;
  }
  let signer: AuditSigner;
  try {
    signer = await openSigner(settings, settings.signingKeyFile, log);
  } catch (err) {
    throw new StartupError('STEWARD_AUDIT_SIGNING_KEY_FILE', `the audit signing key: ${(err as Error).message}`, {
      cause: err,
    });
  }
  log.info(
    { keyId: signer.keyId, everyRows: settings.checkpointRows, everyMs: settings.checkpointMs },
    'signing audit checkpoints',
  );
  const witness = witnessOf(settings, log);
  let busy: Promise<unknown> = Promise.resolve();
  const checkpoint = () => {
    const run = busy.then(() =>
      writeCheckpoints(o.db, signer, {
        now: now(),
        everyRows: settings.checkpointRows,
        everyMs: settings.checkpointMs,
        ...(witness ? { witness } : {}),
      }),
    );
    busy = run.catch(() => undefined);
    return run;
  };
  const look = setInterval(
    () => {
      checkpoint().catch((err: unknown) => log.warn({ err }, 'audit checkpoint failed; the next look tries again'));
    },
    Math.min(LOOK_MS, settings.checkpointMs),
  );
  look.unref();
  const prune = settings.retentionDays
    ? setInterval(() => {
        const at = now();
        const before = new Date(at.getTime() - settings.retentionDays! * 86_400_000);
        pruneAudit(o.db, signer, { before, now: at })
          .then((r) => log.info({ pruned: r }, 'audit retention prune'))
          .catch((err: unknown) => log.warn({ err }, 'audit retention prune failed; the next one tries again'));
      }, PRUNE_MS)
    : undefined;
  prune?.unref();
  return {
    keyId: signer.keyId,
    checkpoint,
    async close() {
      clearInterval(look);
      if (prune) clearInterval(prune);
      await busy;
    },
  };
}

/** The signer of the settings' key; standalone's own is generated on first start. */
async function openSigner(settings: EvidenceSettings, file: string, log: Logger): Promise<AuditSigner> {
  if (!settings.generateKey) return AuditSigner.fromFile(file);
  const opened = await AuditSigner.openOrGenerate(file);
  if (opened.generated)
    log.warn(
      { key: file, publicKey: opened.publicKeyPath, keyId: opened.signer.keyId },
      'generated the audit signing key; keep a copy of its public key apart from the database: `steward audit verify` checks the checkpoints with it',
    );
  return opened.signer;
}

/** The external witness: every checkpoint appended to a file and/or posted to a URL, outside the database. */
function witnessOf(settings: EvidenceSettings, log: Logger): ((c: SignedCheckpoint) => Promise<void>) | undefined {
  const { witnessFile, witnessUrl } = settings;
  if (!witnessFile && !witnessUrl) return undefined;
  return async (c) => {
    const line = `${JSON.stringify(c)}\n`;
    await Promise.all([
      witnessFile
        ? mkdir(dirname(witnessFile), { recursive: true }).then(() => appendFile(witnessFile, line, { mode: 0o600 }))
        : undefined,
      witnessUrl
        ? fetch(witnessUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: line,
            signal: AbortSignal.timeout(WITNESS_TIMEOUT_MS),
          }).then((res) => {
            if (!res.ok) throw new Error(`the witness answered ${res.status}`);
          })
        : undefined,
    ]).catch((err: unknown) => log.warn({ err, seq: c.seq, chain: c.chain }, 'audit checkpoint witness failed'));
  };
}
