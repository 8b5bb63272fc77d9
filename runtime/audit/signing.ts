/**
 * Ed25519 signatures over audit checkpoints (issue 36): a checkpoint states that an organization's chain had a given
 * hash at a given sequence number, and the signature lets `steward audit verify` check that offline with the public
 * key only. The signed bytes are the RFC 8785 canonical JSON of the body's five fields, so any implementation can
 * recompute them.
 *
 * The key is a file of its own (PKCS#8 PEM), apart from any other signing key of the installation; standalone
 * generates one on first start, with the SPKI PEM public key next to it as `<key>.pub`.
 */
import {
  type KeyObject,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as signBytes,
  verify as verifyBytes,
} from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CanonicalJsonError, canonicalJson } from './canonical.js';

/** What a checkpoint signs: the chain (an organization id), the sequence number, the chain hash (hex) and when. */
export interface CheckpointBody {
  chain: string;
  seq: number;
  /** The chain hash at `seq`: SHA-256, 64 lower-case hex digits. */
  hash: string;
  /** `Date.prototype.toISOString()` form, the only one that survives a timestamptz round trip unchanged. */
  at: string;
  /** `pruned`: a retention prune deleted the rows up to `seq`; verification starts after it. */
  kind: 'checkpoint' | 'pruned';
}

export interface SignedCheckpoint extends CheckpointBody {
  /** The signer's key id (`AuditSigner.keyId`). */
  keyId: string;
  /** base64url (no padding) of the Ed25519 signature over `canonicalJson(body)`. */
  signature: string;
}

/** Why a key file cannot be used. */
export type AuditKeyReason = 'missing' | 'unreadable' | 'unwritable' | 'not-ed25519' | 'public-key' | 'exists';

/** A key file (or PEM text) that cannot serve as the audit key; `path` is the file, when there is one. */
export class AuditKeyError extends Error {
  constructor(
    readonly reason: AuditKeyReason,
    readonly path: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AuditKeyError';
  }
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;
/** 64 bytes in base64url without padding; a strict pattern, as Buffer.from(…, 'base64url') accepts anything. */
const ED25519_SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

/** The five signed fields, and nothing else a caller's object may carry. */
function bodyOf(c: CheckpointBody): CheckpointBody {
  return { chain: c.chain, seq: c.seq, hash: c.hash, at: c.at, kind: c.kind };
}

/** Why `c` is not a checkpoint body, or null. */
function malformed(c: CheckpointBody): string | null {
  if (typeof c !== 'object' || c === null) return 'not an object';
  if (typeof c.chain !== 'string' || c.chain === '') return 'chain is not a non-empty string';
  if (typeof c.seq !== 'number' || !Number.isSafeInteger(c.seq) || c.seq < 0)
    return 'seq is not a non-negative integer';
  if (typeof c.hash !== 'string' || !HEX_SHA256.test(c.hash)) return 'hash is not 64 lower-case hex digits';
  if (c.kind !== 'checkpoint' && c.kind !== 'pruned') return 'kind is neither checkpoint nor pruned';
  if (!isIsoInstant(c.at)) return 'at is not an ISO timestamp as toISOString writes it';
  return null;
}

function isIsoInstant(at: unknown): boolean {
  if (typeof at !== 'string') return false;
  const t = Date.parse(at);
  return Number.isFinite(t) && new Date(t).toISOString() === at;
}

/** The bytes a signature covers. */
function signedBytes(body: CheckpointBody): Buffer {
  return Buffer.from(canonicalJson(bodyOf(body)), 'utf8');
}

/** First 16 hex digits of SHA-256 of the SPKI DER public key: short enough to log, enough to tell keys apart. */
function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

function spkiPem(publicKey: KeyObject): string {
  return publicKey.export({ type: 'spki', format: 'pem' }).toString();
}

function requireEd25519(key: KeyObject, path: string | undefined): void {
  if (key.asymmetricKeyType === 'ed25519') return;
  throw new AuditKeyError(
    'not-ed25519',
    path,
    `${where(path)} holds a key of type ${key.asymmetricKeyType ?? 'unknown'}; the audit key must be Ed25519`,
  );
}

function where(path: string | undefined): string {
  return path === undefined ? 'the PEM text' : `the audit key file ${path}`;
}

async function readKeyFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new AuditKeyError('missing', path, `the audit key file ${path} does not exist`, { cause: err });
    throw new AuditKeyError('unreadable', path, `the audit key file ${path} cannot be read: ${messageOf(err)}`, {
      cause: err,
    });
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** NB: `mode` applies only when the file is created, and the umask may only narrow it. */
async function writeKeyFile(path: string, text: string, flag: 'w' | 'wx', mode: number): Promise<void> {
  try {
    await writeFile(path, text, { flag, mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new AuditKeyError('exists', path, `the audit key file ${path} already exists; it is not replaced`, {
        cause: err,
      });
    throw unwritable(path, err);
  }
}

function unwritable(path: string, err: unknown): AuditKeyError {
  return new AuditKeyError('unwritable', path, `${path} cannot be written: ${messageOf(err)}`, { cause: err });
}

/** Signs checkpoints with the installation's audit key. */
export class AuditSigner {
  readonly keyId: string;
  private readonly publicKey: KeyObject;

  private constructor(private readonly privateKey: KeyObject) {
    this.publicKey = createPublicKey(privateKey);
    this.keyId = keyIdOf(this.publicKey);
  }

  /** The PKCS#8 PEM Ed25519 private key at `path`. */
  static async fromFile(path: string): Promise<AuditSigner> {
    const pem = await readKeyFile(path);
    let key: KeyObject;
    try {
      key = createPrivateKey(pem);
    } catch (err) {
      // NB: a public key is the likeliest mistake (the .pub beside the key); say so rather than "unsupported".
      if (isPublicKeyPem(pem))
        throw new AuditKeyError(
          'public-key',
          path,
          `the audit key file ${path} holds a public key; signing needs the private key (PKCS#8 PEM)`,
          { cause: err },
        );
      throw new AuditKeyError(
        'unreadable',
        path,
        `the audit key file ${path} is not a PEM private key: ${messageOf(err)}`,
        { cause: err },
      );
    }
    requireEd25519(key, path);
    return new AuditSigner(key);
  }

  /**
   * A new key at `path` (mode 0600; missing parent folders are made 0700) and its public key at `<path>.pub`
   * (mode 0644). Refuses to replace an existing key: losing it would leave the signed checkpoints unverifiable
   * by anyone who has not kept the public key.
   */
  static async generateFile(path: string): Promise<{ signer: AuditSigner; publicKeyPath: string }> {
    const { privateKey } = generateKeyPairSync('ed25519');
    const signer = new AuditSigner(privateKey);
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    } catch (err) {
      throw unwritable(dirname(path), err);
    }
    // `wx`: created here or not at all, so two processes starting together cannot both write a key.
    await writeKeyFile(path, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'wx', 0o600);
    const publicKeyPath = `${path}.pub`;
    await writeKeyFile(publicKeyPath, signer.publicKeyPem(), 'w', 0o644);
    return { signer, publicKeyPath };
  }

  /**
   * The key at `path`, generated there when there is none (standalone's first start). `<path>.pub` is derived from
   * the private key: it is rewritten when missing or not matching (a crash between the two writes, a key restored
   * from a backup without its .pub).
   */
  static async openOrGenerate(
    path: string,
  ): Promise<{ signer: AuditSigner; generated: boolean; publicKeyPath: string }> {
    let signer: AuditSigner;
    try {
      signer = await AuditSigner.fromFile(path);
    } catch (err) {
      if (!(err instanceof AuditKeyError) || err.reason !== 'missing') throw err;
      try {
        return { ...(await AuditSigner.generateFile(path)), generated: true };
      } catch (genErr) {
        // Another process generated it between our read and our write: use theirs.
        if (!(genErr instanceof AuditKeyError) || genErr.reason !== 'exists') throw genErr;
        signer = await AuditSigner.fromFile(path);
      }
    }
    const publicKeyPath = `${path}.pub`;
    await signer.ensurePublicKeyFile(publicKeyPath);
    return { signer, generated: false, publicKeyPath };
  }

  /** The SPKI PEM public key, for `steward audit verify` and external witnesses. */
  publicKeyPem(): string {
    return spkiPem(this.publicKey);
  }

  /** Throws a TypeError for a malformed body: a checkpoint no verifier would accept must not be written. */
  sign(body: CheckpointBody): SignedCheckpoint {
    const why = malformed(body);
    if (why !== null) throw new TypeError(`cannot sign the audit checkpoint: ${why}`);
    const signature = signBytes(null, signedBytes(body), this.privateKey).toString('base64url');
    return { ...bodyOf(body), keyId: this.keyId, signature };
  }

  private async ensurePublicKeyFile(publicKeyPath: string): Promise<void> {
    let have: string | undefined;
    try {
      have = await readFile(publicKeyPath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw unwritable(publicKeyPath, err);
    }
    if (have !== undefined && publicKeyMatches(have, this.keyId)) return;
    await writeKeyFile(publicKeyPath, this.publicKeyPem(), 'w', 0o644);
  }
}

function isPublicKeyPem(pem: string): boolean {
  try {
    return createPublicKey(pem).type === 'public' && !/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem);
  } catch {
    return false;
  }
}

function publicKeyMatches(pem: string, keyId: string): boolean {
  try {
    return keyIdOf(createPublicKey(pem)) === keyId;
  } catch {
    return false;
  }
}

/** Checks signed checkpoints with a public key only. */
export class AuditVerifier {
  readonly keyId: string;

  private constructor(private readonly publicKey: KeyObject) {
    this.keyId = keyIdOf(publicKey);
  }

  /** An SPKI PEM public key; a PKCS#8 private key file is accepted too, and only its public half is kept. */
  static async fromFile(path: string): Promise<AuditVerifier> {
    return AuditVerifier.fromKeyPem(await readKeyFile(path), path);
  }

  static fromPem(pem: string): AuditVerifier {
    return AuditVerifier.fromKeyPem(pem, undefined);
  }

  private static fromKeyPem(pem: string, path: string | undefined): AuditVerifier {
    let key: KeyObject;
    try {
      // createPublicKey derives the public key from a private key's PEM as well.
      key = createPublicKey(pem);
    } catch (err) {
      throw new AuditKeyError('unreadable', path, `${where(path)} is not a PEM public key: ${messageOf(err)}`, {
        cause: err,
      });
    }
    requireEd25519(key, path);
    return new AuditVerifier(key);
  }

  /** null when valid, else why not (wrong key id, bad signature, malformed). Fields beyond the signed ones are ignored. */
  check(c: SignedCheckpoint): string | null {
    const why = malformed(c);
    if (why !== null) return `malformed checkpoint: ${why}`;
    if (typeof c.keyId !== 'string' || typeof c.signature !== 'string')
      return 'malformed checkpoint: keyId or signature is not a string';
    if (c.keyId !== this.keyId) return `signed by key ${c.keyId}, not by this key (${this.keyId})`;
    if (!ED25519_SIGNATURE.test(c.signature))
      return 'malformed checkpoint: signature is not 64 bytes of unpadded base64url';
    let data: Buffer;
    try {
      data = signedBytes(c);
    } catch (err) {
      if (err instanceof CanonicalJsonError) return `malformed checkpoint: ${err.message}`;
      throw err;
    }
    if (!verifyBytes(null, data, this.publicKey, Buffer.from(c.signature, 'base64url')))
      return 'bad signature: the checkpoint differs from what was signed';
    return null;
  }
}
