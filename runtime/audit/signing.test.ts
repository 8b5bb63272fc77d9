import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditKeyError, AuditSigner, AuditVerifier, type CheckpointBody, type SignedCheckpoint } from './signing.js';

const body = (over: Partial<CheckpointBody> = {}): CheckpointBody => ({
  chain: 'org-acme',
  seq: 1000,
  hash: 'ab'.repeat(32),
  at: '2026-03-01T12:00:00.000Z',
  kind: 'checkpoint',
  ...over,
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-audit-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

async function keyError(p: Promise<unknown>): Promise<AuditKeyError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AuditKeyError);
  return err as AuditKeyError;
}

/** A signer and a verifier of the same key, from files in the temp folder. */
async function pair(): Promise<{ signer: AuditSigner; verifier: AuditVerifier }> {
  const { signer, publicKeyPath } = await AuditSigner.generateFile(join(dir, 'audit.key'));
  return { signer, verifier: await AuditVerifier.fromFile(publicKeyPath) };
}

describe('AuditSigner and AuditVerifier', () => {
  it('verifies what was signed', async () => {
    const { signer, verifier } = await pair();
    const signed = signer.sign(body());
    expect(signed).toMatchObject({ ...body(), keyId: signer.keyId });
    expect(signed.signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(verifier.keyId).toBe(signer.keyId);
    expect(verifier.check(signed)).toBeNull();
  });

  it('verifies a pruned checkpoint at sequence 0', async () => {
    const { signer, verifier } = await pair();
    expect(verifier.check(signer.sign(body({ kind: 'pruned', seq: 0 })))).toBeNull();
  });

  it('keeps only the signed fields and ignores extra ones when checking', async () => {
    const { signer, verifier } = await pair();
    const signed = signer.sign({ ...body(), note: 'not signed' } as CheckpointBody);
    expect(Object.keys(signed).sort()).toEqual(['at', 'chain', 'hash', 'keyId', 'kind', 'seq', 'signature']);
    expect(verifier.check({ ...signed, id: 7 } as SignedCheckpoint)).toBeNull();
  });

  it('derives a 16-hex-digit key id that differs between keys', async () => {
    const a = (await AuditSigner.generateFile(join(dir, 'a.key'))).signer;
    const b = (await AuditSigner.generateFile(join(dir, 'b.key'))).signer;
    expect(a.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(a.keyId).not.toBe(b.keyId);
  });

  it.each<[string, Partial<SignedCheckpoint>]>([
    ['the chain', { chain: 'org-other' }],
    ['the sequence number', { seq: 1001 }],
    ['the hash', { hash: 'cd'.repeat(32) }],
    ['the time', { at: '2026-03-01T12:00:00.001Z' }],
    ['the kind', { kind: 'pruned' }],
  ])('fails with a bad signature when %s was changed', async (_field, change) => {
    const { signer, verifier } = await pair();
    expect(verifier.check({ ...signer.sign(body()), ...change })).toMatch(/^bad signature/);
  });

  it('fails with a bad signature when the signature was changed', async () => {
    const { signer, verifier } = await pair();
    const signed = signer.sign(body());
    const bytes = Buffer.from(signed.signature, 'base64url');
    bytes[10]! ^= 1;
    expect(verifier.check({ ...signed, signature: bytes.toString('base64url') })).toMatch(/^bad signature/);
  });

  it("fails naming both key ids for another key's checkpoint", async () => {
    const { verifier } = await pair();
    const other = (await AuditSigner.generateFile(join(dir, 'other.key'))).signer;
    const why = verifier.check(other.sign(body()));
    expect(why).toContain(other.keyId);
    expect(why).toContain(verifier.keyId);
  });

  it("fails with a bad signature for another key's signature under this key id", async () => {
    const { signer, verifier } = await pair();
    const other = (await AuditSigner.generateFile(join(dir, 'other.key'))).signer;
    const forged = { ...other.sign(body()), keyId: signer.keyId };
    expect(verifier.check(forged)).toMatch(/^bad signature/);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an empty chain', { chain: '' }, /chain/],
    ['a fractional sequence number', { seq: 1.5 }, /seq/],
    ['a negative sequence number', { seq: -1 }, /seq/],
    ['a sequence number given as a string', { seq: '1000' }, /seq/],
    ['an upper-case hash', { hash: 'AB'.repeat(32) }, /hash/],
    ['a short hash', { hash: 'ab' }, /hash/],
    ['an unknown kind', { kind: 'other' }, /kind/],
    ['a time without milliseconds', { at: '2026-03-01T12:00:00Z' }, /at is not/],
    ['a time that is not one', { at: 'yesterday' }, /at is not/],
    ['a signature with padding', { signature: 'A'.repeat(86) + '==' }, /signature/],
    ['a signature that is too short', { signature: 'AAAA' }, /signature/],
    ['a key id that is not a string', { keyId: 5 }, /keyId/],
    ['a chain with a lone surrogate', { chain: 'org\ud800' }, /lone surrogate/],
  ])('calls a checkpoint with %s malformed', async (_name, change, why) => {
    const { signer, verifier } = await pair();
    const result = verifier.check({ ...signer.sign(body()), ...change } as unknown as SignedCheckpoint);
    expect(result).toMatch(/^malformed checkpoint: /);
    expect(result).toMatch(why);
  });

  it('calls a checkpoint that is not an object malformed', async () => {
    const { verifier } = await pair();
    expect(verifier.check(null as unknown as SignedCheckpoint)).toBe('malformed checkpoint: not an object');
  });

  it('refuses to sign a malformed body', async () => {
    const { signer } = await pair();
    expect(() => signer.sign(body({ at: '2026-03-01' }))).toThrow(TypeError);
    expect(() => signer.sign(body({ seq: NaN }))).toThrow(/seq/);
  });
});

describe('AuditSigner.generateFile', () => {
  it('writes the private key 0600, the public key 0644 beside it, and parent folders 0700', async () => {
    const path = join(dir, 'state', 'keys', 'audit.key');
    const { signer, publicKeyPath } = await AuditSigner.generateFile(path);
    expect(publicKeyPath).toBe(`${path}.pub`);
    expect(await modeOf(path)).toBe(0o600);
    expect(await modeOf(publicKeyPath)).toBe(0o644);
    expect(await modeOf(join(dir, 'state'))).toBe(0o700);
    expect(await modeOf(join(dir, 'state', 'keys'))).toBe(0o700);
    expect(await readFile(path, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(await readFile(publicKeyPath, 'utf8')).toBe(signer.publicKeyPem());
    expect(signer.publicKeyPem()).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect((await AuditSigner.fromFile(path)).keyId).toBe(signer.keyId);
  });

  it('refuses to replace an existing key and leaves it as it was', async () => {
    const path = join(dir, 'audit.key');
    await AuditSigner.generateFile(path);
    const before = await readFile(path, 'utf8');
    const err = await keyError(AuditSigner.generateFile(path));
    expect(err).toMatchObject({ reason: 'exists', path });
    expect(err.message).toContain(path);
    expect(await readFile(path, 'utf8')).toBe(before);
  });
});

describe('AuditSigner.fromFile', () => {
  it('names the path of a missing file', async () => {
    const path = join(dir, 'nope.key');
    const err = await keyError(AuditSigner.fromFile(path));
    expect(err).toMatchObject({ reason: 'missing', path });
    expect(err.message).toContain(path);
  });

  it('says a public key cannot sign', async () => {
    const { publicKeyPath } = await AuditSigner.generateFile(join(dir, 'audit.key'));
    const err = await keyError(AuditSigner.fromFile(publicKeyPath));
    expect(err).toMatchObject({ reason: 'public-key', path: publicKeyPath });
    expect(err.message).toMatch(/holds a public key; signing needs the private key/);
  });

  it.each([
    ['an RSA key', 'rsa', () => generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey],
    ['a P-256 key', 'ec', () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey],
    ['an Ed448 key', 'ed448', () => generateKeyPairSync('ed448').privateKey],
  ])('refuses %s, naming its type', async (_name, type, make) => {
    const path = join(dir, 'other.key');
    await writeFile(path, make().export({ type: 'pkcs8', format: 'pem' }));
    const err = await keyError(AuditSigner.fromFile(path));
    expect(err).toMatchObject({ reason: 'not-ed25519', path });
    expect(err.message).toContain(`holds a key of type ${type}; the audit key must be Ed25519`);
  });

  it.each([
    ['text that is not PEM', 'hello'],
    ['a PEM block with a broken body', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'],
  ])('refuses %s as unreadable', async (_name, text) => {
    const path = join(dir, 'bad.key');
    await writeFile(path, text);
    const err = await keyError(AuditSigner.fromFile(path));
    expect(err).toMatchObject({ reason: 'unreadable', path });
    expect(err.message).toContain(path);
  });
});

describe('AuditSigner.openOrGenerate', () => {
  it('generates the key on the first call and reuses it afterwards', async () => {
    const path = join(dir, 'data', 'audit.key');
    const first = await AuditSigner.openOrGenerate(path);
    expect(first).toMatchObject({ generated: true, publicKeyPath: `${path}.pub` });
    const second = await AuditSigner.openOrGenerate(path);
    expect(second).toMatchObject({ generated: false, publicKeyPath: `${path}.pub` });
    expect(second.signer.keyId).toBe(first.signer.keyId);
  });

  it('rewrites a missing or mismatched public key file from the private key', async () => {
    const path = join(dir, 'audit.key');
    const { signer, publicKeyPath } = await AuditSigner.openOrGenerate(path);
    await unlink(publicKeyPath);
    await AuditSigner.openOrGenerate(path);
    expect(await readFile(publicKeyPath, 'utf8')).toBe(signer.publicKeyPem());
    await writeFile(publicKeyPath, (await AuditSigner.generateFile(join(dir, 'x.key'))).signer.publicKeyPem());
    await AuditSigner.openOrGenerate(path);
    expect((await AuditVerifier.fromFile(publicKeyPath)).keyId).toBe(signer.keyId);
  });

  it('does not replace a key it cannot use', async () => {
    const path = join(dir, 'audit.key');
    await writeFile(path, 'garbage');
    expect(await keyError(AuditSigner.openOrGenerate(path))).toMatchObject({ reason: 'unreadable' });
    expect(await readFile(path, 'utf8')).toBe('garbage');
  });
});

describe('AuditVerifier', () => {
  it('accepts the private key file and keeps its public half', async () => {
    const path = join(dir, 'audit.key');
    const { signer } = await AuditSigner.generateFile(path);
    const verifier = await AuditVerifier.fromFile(path);
    expect(verifier.keyId).toBe(signer.keyId);
    expect(verifier.check(signer.sign(body()))).toBeNull();
  });

  it('is built from PEM text', async () => {
    const { signer } = await pair();
    expect(AuditVerifier.fromPem(signer.publicKeyPem()).check(signer.sign(body()))).toBeNull();
  });

  it('refuses a P-256 public key', () => {
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' });
    expect(() => AuditVerifier.fromPem(pem.toString())).toThrow(expect.objectContaining({ reason: 'not-ed25519' }));
  });

  it('refuses text that is not a key, and names a missing file', async () => {
    expect(() => AuditVerifier.fromPem('nope')).toThrow(expect.objectContaining({ reason: 'unreadable' }));
    const path = join(dir, 'missing.pub');
    expect(await keyError(AuditVerifier.fromFile(path))).toMatchObject({ reason: 'missing', path });
  });
});
