import { describe, expect, it } from 'vitest';
import { JWKError, JWSError, headerString, parseHeader, parseJWKSet, signJWS, verifyJWS } from './index.js';

const data = Buffer.from('data');
const mode = { publicOnly: false, strictECDSALength: true };

describe('JWK and JWS', () => {
  const [secret] = parseJWKSet('{"kty":"oct","k":"c2VjcmV0"}');

  it('signs and verifies with an oct key (HMAC)', () => {
    const sig = signJWS(secret!.key, 'HS256', data);
    expect(Buffer.from(sig).toString('hex')).toBe('1b2c16b75bd2a870c114153ccda5bcfca63314bc722fa160d690de133ccbb9db');
    expect(verifyJWS(secret!.key, 'HS256', data, sig, mode)).toBe(true);
    expect(verifyJWS(secret!.key, 'HS256', Buffer.from('other'), sig, mode)).toBe(false);
  });

  it('reports keys that cannot sign and JWKs that do not parse with jwx’s text', () => {
    expect(() => signJWS(secret!.key, 'RS256', data)).toThrow(
      new JWSError('failed to sign payload using RS256: invalid key type for algorithm'),
    );
    expect(() => parseJWKSet('{"k":1}')).toThrow(JWKError);
  });
});

describe('header JSON (fastjson)', () => {
  it.each([
    { text: '{"alg":"HS256"}', want: { ok: true, value: 'HS256' } },
    { text: 'e', want: { ok: false, error: 'jwsbb: header "alg" not found' } },
    { text: '', want: { ok: false, error: 'cannot parse JSON: cannot parse empty string; unparsed tail: ""' } },
  ])('reads alg from $text', ({ text, want }) => {
    expect(headerString(parseHeader(text), 'alg')).toEqual(want);
  });
});
