import { createHmac, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BuiltinError } from '../../errors.js';
import { RObject, fromJS, toJS, type Value } from '../../value.js';
import { LEAF_CERT, LEAF_KEY_PKCS1 } from '../../lib/x509/test/fixtures.js';
import { register } from './jwt.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';

const registry = new BuiltinRegistry();
register(registry);

const NOW = 1_893_456_000_000_000_000n; // 2030-01-01
const ctx: BuiltinContext = {
  strict: true,
  nowNs: () => NOW,
  cache: new Map(),
  checkDeadline: () => {},
  charge: () => {},
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function call(name: string, ...args: Value[]): any {
  return toJS(registry.get(name)!.impl(args, ctx)!);
}

function fails(name: string, ...args: Value[]): Error {
  try {
    registry.get(name)!.impl(args, ctx);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${name} did not fail`);
}

const obj = (x: Record<string, unknown>): Value => fromJS(x);
const octKey = (secret: string): Value => obj({ kty: 'oct', k: Buffer.from(secret).toString('base64url') });

// RFC 7515 appendix A.1.
const RFC_HS256 =
  'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_KEY =
  '{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}';

function keyPair(alg: string): {
  privateJwk: Record<string, unknown>;
  publicPem: string;
  publicJwk: Record<string, unknown>;
} {
  const spec = alg.startsWith('ES')
    ? generateKeyPairSync('ec', { namedCurve: { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg]! })
    : alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateJwk: spec.privateKey.export({ format: 'jwk' }) as Record<string, unknown>,
    publicPem: spec.publicKey.export({ format: 'pem', type: 'spki' }) as string,
    publicJwk: spec.publicKey.export({ format: 'jwk' }) as Record<string, unknown>,
  };
}

describe('io.jwt.decode', () => {
  it('splits a token into header, payload and hex signature', () => {
    const [header, payload, sig] = call('io.jwt.decode', RFC_HS256);
    expect(header).toEqual({ typ: 'JWT', alg: 'HS256' });
    expect(payload).toEqual({ iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true });
    expect(sig).toBe(Buffer.from('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'base64url').toString('hex'));
  });

  it.each([
    { name: 'tokens without periods', token: 'abc', msg: 'encoded JWT had no period separators' },
    { name: 'tokens with two parts', token: 'a.b', msg: 'encoded JWT must have 3 sections, found 2' },
    {
      name: 'bad header encoding',
      token: 'eyJhbGciOiJIU^%zI1NiJ9.e30.',
      msg: 'JWT header had invalid encoding: illegal base64 data at input byte 13',
    },
    {
      name: 'JWE tokens',
      token: `${Buffer.from('{"alg":"x","enc":"y"}').toString('base64url')}.e30.`,
      msg: 'JWT is a JWE object, which is not supported',
    },
    {
      name: 'payloads that are not objects',
      token: `${Buffer.from('{"alg":"x"}').toString('base64url')}.WzFd.`,
      msg: 'decoded JSON type was not an Object',
    },
  ])('rejects $name', ({ token, msg }) => {
    const e = fails('io.jwt.decode', token);
    expect(e).toBeInstanceOf(BuiltinError);
    expect(e.message).toBe(msg);
  });

  it('unwraps nested tokens (cty JWT)', () => {
    const inner = call('io.jwt.encode_sign', obj({ alg: 'HS256' }), obj({ sub: 'x' }), octKey('k'));
    const outer = call(
      'io.jwt.encode_sign_raw',
      '{"alg":"HS256","cty":"JWT"}',
      JSON.stringify(inner),
      '{"kty":"oct","k":"aw"}',
    );
    expect(call('io.jwt.decode', outer)[1]).toEqual({ sub: 'x' });
  });
});

describe('io.jwt.encode_sign_raw', () => {
  it('reproduces RFC 7515 A.1', () => {
    expect(
      call(
        'io.jwt.encode_sign_raw',
        '{"typ":"JWT",\r\n "alg":"HS256"}',
        '{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}',
        RFC_KEY,
      ),
    ).toBe(RFC_HS256);
  });

  it.each([
    {
      name: 'headers that do not parse',
      header: '{"typ:"JWT","alg":"HS256"}',
      payload: '{}',
      msg: "missing or invalid 'alg' header: cannot parse JSON",
    },
    {
      name: 'empty headers',
      header: '',
      payload: '{}',
      msg: "missing or invalid 'alg' header: cannot parse JSON: cannot parse empty string",
    },
    {
      name: 'headers without alg',
      header: '{}',
      payload: '{}',
      msg: `missing or invalid 'alg' header: jwsbb: header "alg" not found`,
    },
    {
      name: 'non-object headers',
      header: 'e',
      payload: '{}',
      msg: `missing or invalid 'alg' header: jwsbb: header "alg" not found`,
    },
    { name: 'unknown algorithms', header: '{"alg":"dummy"}', payload: '{}', msg: 'unknown JWS algorithm: dummy' },
    {
      name: 'JWT payloads that are not JSON',
      header: '{"alg":"HS256","typ":"JWT"}',
      payload: 'e',
      msg: 'type is JWT but payload is not JSON',
    },
  ])('rejects $name', ({ header, payload, msg }) => {
    expect(fails('io.jwt.encode_sign_raw', header, payload, RFC_KEY).message).toContain(msg);
  });

  it('signs non-JSON payloads for other media types', () => {
    const token: string = call('io.jwt.encode_sign_raw', '{"typ":"text/plain","alg":"HS256"}', 'e', RFC_KEY);
    const [h, p, sig] = token.split('.');
    expect(p).toBe('ZQ');
    const mac = createHmac('sha256', Buffer.from(JSON.parse(RFC_KEY).k, 'base64url'))
      .update(`${h}.${p}`)
      .digest('base64url');
    expect(sig).toBe(mac);
  });
});

describe('signing and verifying with every algorithm', () => {
  it.each(['HS256', 'HS384', 'HS512'])('%s round-trips with the plain-text secret', (alg) => {
    const token = call('io.jwt.encode_sign', obj({ alg }), obj({ sub: 'alice' }), octKey('s3cret'));
    expect(call(`io.jwt.verify_${alg.toLowerCase()}`, token, 's3cret')).toBe(true);
    expect(call(`io.jwt.verify_${alg.toLowerCase()}`, token, 'other')).toBe(false);
  });

  it.each(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'])(
    '%s round-trips with PEM keys and JWK sets',
    (alg) => {
      const k = keyPair(alg);
      const token = call('io.jwt.encode_sign', obj({ alg, typ: 'JWT' }), obj({ sub: 'alice' }), obj(k.privateJwk));
      const verify = `io.jwt.verify_${alg.toLowerCase()}`;
      expect(call(verify, token, k.publicPem)).toBe(true);
      expect(call(verify, token, JSON.stringify({ keys: [{ ...k.publicJwk, kid: 'a', alg }] }))).toBe(true);
      expect(
        call(verify, token, JSON.stringify({ keys: [{ ...k.publicJwk, alg: alg === 'EdDSA' ? 'ES256' : 'EdDSA' }] })),
      ).toBe(false);
      expect(call(verify, token, keyPair(alg).publicPem)).toBe(false);
      const tampered = token.replace(/\.[^.]+\./, `.${Buffer.from('{"sub":"mallory"}').toString('base64url')}.`);
      expect(call(verify, tampered, k.publicPem)).toBe(false);
    },
  );

  it('verifies RS256 with a certificate', () => {
    const jwk = createPrivateKey(LEAF_KEY_PKCS1).export({ format: 'jwk' });
    const token = call(
      'io.jwt.encode_sign',
      obj({ alg: 'RS256' }),
      obj({ iss: 'x' }),
      obj(jwk as Record<string, unknown>),
    );
    expect(call('io.jwt.verify_rs256', token, LEAF_CERT)).toBe(true);
    expect(fails('io.jwt.verify_rs256', token, `${LEAF_CERT}\n`).message).toBe(
      'extra data after a PEM certificate block',
    );
  });

  it('reports keys that are neither PEM nor JWK', () => {
    expect(fails('io.jwt.verify_rs256', RFC_HS256, 'nonsense').message).toMatch(/^failed to parse a JWK key \(set\)/);
  });
});

describe('io.jwt.decode_verify', () => {
  const secret = 's3cret';
  const sign = (
    payload: Record<string, unknown>,
    header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' },
  ): string => call('io.jwt.encode_sign', obj(header), obj(payload), octKey(secret));
  const verify = (token: string, constraints: Record<string, unknown>): unknown =>
    call('io.jwt.decode_verify', token, obj(constraints));
  const unverified = [false, {}, {}];

  it.each([
    { name: 'a valid token', payload: { iss: 'xxx' }, c: { secret }, ok: true },
    { name: 'the wrong secret', payload: { iss: 'xxx' }, c: { secret: 'nope' }, ok: false },
    { name: 'a matching issuer', payload: { iss: 'xxx' }, c: { secret, iss: 'xxx' }, ok: true },
    { name: 'a missing issuer', payload: {}, c: { secret, iss: 'xxx' }, ok: false },
    {
      name: 'an audience list containing the audience',
      payload: { aud: ['a', 'b'] },
      c: { secret, aud: 'b' },
      ok: true,
    },
    { name: 'an audience without an aud constraint', payload: { aud: 'a' }, c: { secret }, ok: false },
    { name: 'an aud constraint without audience', payload: {}, c: { secret, aud: 'a' }, ok: false },
    { name: 'an unexpired token', payload: { exp: 1_893_456_001 }, c: { secret }, ok: true },
    { name: 'a token expiring now', payload: { exp: 1_893_456_000 }, c: { secret }, ok: false },
    { name: 'a token used before nbf', payload: { nbf: 1_893_456_001 }, c: { secret }, ok: false },
    {
      name: 'a float nbf equal to the time',
      payload: { nbf: 1589385770.1234 },
      c: { secret, time: 1589385770123400000n },
      ok: true,
    },
    {
      name: 'a float exp one tenth second later',
      payload: { exp: 1589385771.1234 },
      c: { secret, time: 1589385771023400000n },
      ok: true,
    },
    { name: 'the wrong algorithm constraint', payload: {}, c: { secret, alg: 'HS512' }, ok: false },
  ])('judges $name', ({ payload, c, ok }) => {
    const token = sign(payload);
    const got = verify(token, c);
    expect(got).toEqual(ok ? [true, { alg: 'HS256', typ: 'JWT' }, payload] : unverified);
  });

  it('rejects tokens without alg and with unknown critical parameters', () => {
    const input = `${Buffer.from('{"typ":"JWT"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}`;
    const noAlg = `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    expect(call('io.jwt.verify_hs256', noAlg, secret)).toBe(true);
    expect(verify(noAlg, { secret })).toEqual(unverified);
    expect(verify(sign({}, { alg: 'HS256', crit: ['x'], x: 1 }), { secret })).toEqual(unverified);
    expect((verify(sign({}, { alg: 'HS256', crit: ['typ'], typ: 'JWT' }), { secret }) as unknown[])[0]).toBe(true);
  });

  it('verifies against a JWK set, preferring the key with the token kid', () => {
    const a = keyPair('ES256');
    const b = keyPair('ES256');
    const token = call('io.jwt.encode_sign', obj({ alg: 'ES256', kid: 'b' }), obj({ sub: 'x' }), obj(b.privateJwk));
    const jwks = JSON.stringify({
      keys: [
        { ...a.publicJwk, kid: 'a' },
        { ...b.publicJwk, kid: 'b' },
      ],
    });
    expect((verify(token, { cert: jwks }) as unknown[])[0]).toBe(true);
    const wrongKid = JSON.stringify({
      keys: [
        { ...a.publicJwk, kid: 'b' },
        { ...b.publicJwk, kid: 'a' },
      ],
    });
    expect(verify(token, { cert: wrongKid })).toEqual(unverified);
  });

  it.each([
    { name: 'unknown constraints', c: { secret, foo: 1 }, msg: 'unknown token validation constraint: foo' },
    { name: 'two keys', c: { secret, cert: '{"kty":"oct","k":"aw"}' }, msg: 'duplicate key constraints' },
    { name: 'no key', c: { iss: 'x' }, msg: 'no key constraint' },
    { name: 'negative times', c: { secret, time: -1 }, msg: 'token time constraint: must not be negative' },
  ])('rejects $name', ({ c, msg }) => {
    expect(fails('io.jwt.decode_verify', sign({}), obj(c)).message).toBe(msg);
  });

  it.each([
    { claim: 'exp', value: null, msg: 'exp value must be a number' },
    { claim: 'nbf', value: 'soon', msg: 'nbf value must be a number' },
  ])('fails on a non-numeric $claim', ({ claim, value, msg }) => {
    expect(fails('io.jwt.decode_verify', sign({ [claim]: value }), obj({ secret })).message).toBe(msg);
  });

  it('encodes sets as arrays and escapes HTML like Go', () => {
    const token = call(
      'io.jwt.encode_sign',
      obj({ alg: 'HS256' }),
      RObject.from([
        ['aud', fromJS(new Set(['b', 'a']))],
        ['h', '<&>'],
      ]),
      octKey(secret),
    );
    expect(Buffer.from(token.split('.')[1], 'base64url').toString()).toBe(
      '{"aud":["a","b"],"h":"\\u003c\\u0026\\u003e"}',
    );
  });
});
