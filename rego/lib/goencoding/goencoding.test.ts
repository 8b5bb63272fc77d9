import { describe, expect, it } from 'vitest';
import {
  Base64Error,
  HexError,
  decodeHex,
  decodeBase64URLLenient,
  decodeStdBase64,
  encodeBase64URLNoPad,
  pemDecode,
  pemEncode,
} from './index.js';

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

describe('base64', () => {
  it('decodes padded standard base64 and rejects what Go rejects, at Go’s offset', () => {
    expect(text(decodeStdBase64('aGk='))).toBe('hi');
    expect(() => decodeStdBase64('aGk')).toThrow(new Base64Error(0));
    expect(() => decodeStdBase64('a$Gk')).toThrow('illegal base64 data at input byte 1');
  });

  it('reads unpadded base64url as OPA does and writes it without padding', () => {
    expect(text(decodeBase64URLLenient('aGk'))).toBe('hi');
    expect(encodeBase64URLNoPad('hi?')).toBe('aGk_');
  });
});

describe('hex', () => {
  it('decodes either case and reports the first bad byte or an odd length', () => {
    expect(text(decodeHex(Buffer.from('4a4B')))).toBe('JK');
    expect(() => decodeHex(Buffer.from('zz'))).toThrow(new HexError("encoding/hex: invalid byte: U+007A 'z'"));
    expect(() => decodeHex(Buffer.from('abc'))).toThrow('encoding/hex: odd length hex string');
  });
});

describe('pem', () => {
  it('finds the first block after junk, with its headers and the rest', () => {
    const { block, rest } = pemDecode('junk\n-----BEGIN X-----\nA: b\n\naGk=\n-----END X-----\ntail');
    expect(block?.type).toBe('X');
    expect([...block!.headers]).toEqual([['A', 'b']]);
    expect(text(block!.bytes)).toBe('hi');
    expect(text(rest)).toBe('tail');
  });

  it('encodes one block without headers', () => {
    expect(pemEncode('X', Buffer.from('hi'))).toBe('-----BEGIN X-----\naGk=\n-----END X-----\n');
  });
});
