import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CANONICAL_MAX_DEPTH, CanonicalJsonError, canonicalDigest, canonicalJson } from './canonical.js';

/** `depth` arrays, one inside the other, around `inner`. */
function nested(depth: number, inner: unknown = 0): unknown {
  let v = inner;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

function errorOf(fn: () => unknown): CanonicalJsonError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CanonicalJsonError);
    expect(err).toBeInstanceOf(TypeError);
    return err as CanonicalJsonError;
  }
  throw new Error('expected a CanonicalJsonError');
}

describe('canonicalJson: RFC 8785 examples', () => {
  it('serialises the §3.2.2 example (numbers, escapes, literals) to its §3.2.4 canonical text', () => {
    // The RFC's input text, parsed as any JSON consumer would.
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalJson(JSON.parse(input))).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts the §3.2.3 property names by UTF-16 code units', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    expect(canonicalJson(JSON.parse(input))).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('writes the UTF-8 bytes of §3.2.4 for the euro sign, an emoji and DEL', () => {
    const bytes = Buffer.from(canonicalJson(['\u20ac', '\ud83d\ude00', '\u007f']), 'utf8');
    expect(bytes.toString('hex')).toBe('5b22e282ac222c22f09f9880222c227f225d');
  });

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('writes the Appendix B number 0x%s as %s', (hex, expected) => {
    expect(canonicalJson(Buffer.from(hex, 'hex').readDoubleBE(0))).toBe(expected);
  });

  it.each([
    ['7fffffffffffffff', 'NaN'],
    ['7ff0000000000000', 'Infinity'],
  ])('refuses the Appendix B number 0x%s (%s)', (hex) => {
    expect(errorOf(() => canonicalJson({ n: Buffer.from(hex, 'hex').readDoubleBE(0) }))).toMatchObject({
      reason: 'non-finite-number',
      path: '$.n',
    });
  });
});

describe('canonicalJson', () => {
  it('escapes control characters as JSON.stringify does and writes non-BMP characters as themselves', () => {
    const s = '\u0000\u0001\b\t\n\u000b\f\r\u001f "\\/\u007f\u2028 \ud834\udd1e';
    expect(canonicalJson(s)).toBe(String.raw`"\u0000\u0001\b\t\n\u000b\f\r\u001f \"\\/` + '\u007f\u2028 \ud834\udd1e"');
    expect(JSON.parse(canonicalJson(s))).toBe(s);
  });

  it('nests objects and arrays as the JCS reference implementation does (structures.json)', () => {
    const input = `{"1": {"f": {"f": "hi","F": 5} ,"\\n": 56.0}, "10": { }, "": "empty", "a": { }, "111": [ { } ], "A": { }}`;
    expect(canonicalJson(JSON.parse(input))).toBe(
      '{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{}],"A":{},"a":{}}',
    );
  });

  it('gives the same text whatever order the members were added in', () => {
    const a = { model: 'gpt', usage: { out: 2, in: 1 }, steps: [{ b: 1, a: 2 }], id: 'x' };
    const b = { id: 'x', steps: [{ a: 2, b: 1 }], usage: { in: 1, out: 2 }, model: 'gpt' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"id":"x","model":"gpt","steps":[{"a":2,"b":1}],"usage":{"in":1,"out":2}}');
  });

  it('keeps the order of arrays', () => {
    expect(canonicalJson([3, 1, 2, 'b', 'a'])).toBe('[3,1,2,"b","a"]');
  });

  it.each([
    ['null', null, 'null'],
    ['true', true, 'true'],
    ['false', false, 'false'],
    ['an empty string', '', '""'],
    ['minus zero', -0, '0'],
    ['an integer', 42, '42'],
    ['an empty object', {}, '{}'],
    ['an empty array', [], '[]'],
  ])('writes %s at the top level', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('omits undefined members of objects', () => {
    expect(canonicalJson({ a: undefined, b: 1, c: undefined })).toBe('{"b":1}');
    expect(canonicalJson({ a: undefined })).toBe('{}');
  });

  it('keeps a __proto__ key as data, from JSON.parse or from a null-prototype object', () => {
    const parsed = JSON.parse('{"z":1,"__proto__":{"admin":true}}') as unknown;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"admin":true},"z":1}');
    const bare = Object.create(null) as Record<string, unknown>;
    bare['__proto__'] = [1];
    expect(canonicalJson(bare)).toBe('{"__proto__":[1]}');
  });

  it('ignores symbol keys and inherited members', () => {
    const o = Object.assign(Object.create(null) as object, { [Symbol('s')]: 1, a: 1 });
    expect(canonicalJson(o)).toBe('{"a":1}');
  });

  it(`accepts ${CANONICAL_MAX_DEPTH} levels of nesting`, () => {
    expect(canonicalJson(nested(CANONICAL_MAX_DEPTH))).toBe('['.repeat(200) + '0' + ']'.repeat(200));
  });

  it('refuses one level more, naming the limit', () => {
    const err = errorOf(() => canonicalJson(nested(CANONICAL_MAX_DEPTH + 1)));
    expect(err.reason).toBe('too-deep');
    expect(err.message).toContain(`${CANONICAL_MAX_DEPTH} levels`);
  });

  it('refuses a cycle', () => {
    const o: Record<string, unknown> = { a: 1 };
    o['self'] = o;
    expect(errorOf(() => canonicalJson(o)).reason).toBe('too-deep');
  });

  it.each([
    { name: 'undefined at the top level', value: undefined, reason: 'unsupported-type', path: '$' },
    { name: 'undefined in an array', value: { a: [1, undefined] }, reason: 'unsupported-type', path: '$.a[1]' },
    { name: 'a hole in a sparse array', value: [1, , 3], reason: 'unsupported-type', path: '$[1]' },
    { name: 'a function member', value: { f: () => 1 }, reason: 'unsupported-type', path: '$.f' },
    { name: 'a symbol in an array', value: [Symbol('s')], reason: 'unsupported-type', path: '$[0]' },
    { name: 'a bigint', value: { 'n n': 1n }, reason: 'unsupported-type', path: '$["n n"]' },
    { name: 'a Date', value: { at: new Date(0) }, reason: 'unsupported-type', path: '$.at' },
    { name: 'a Map', value: [new Map()], reason: 'unsupported-type', path: '$[0]' },
    { name: 'a Buffer', value: { b: Buffer.from('x') }, reason: 'unsupported-type', path: '$.b' },
    { name: 'NaN', value: { x: { y: [NaN] } }, reason: 'non-finite-number', path: '$.x.y[0]' },
    { name: '-Infinity', value: -Infinity, reason: 'non-finite-number', path: '$' },
    { name: 'a lone high surrogate', value: { s: 'a\ud800' }, reason: 'lone-surrogate', path: '$.s' },
    { name: 'a lone low surrogate in a key', value: { '\udc00': 1 }, reason: 'lone-surrogate', path: '$["\\udc00"]' },
  ])('refuses $name, naming the path', ({ value, reason, path }) => {
    const err = errorOf(() => canonicalJson(value));
    expect(err).toMatchObject({ reason, path });
    expect(err.message).toContain(` at ${path}`);
  });

  it('names the type it refuses', () => {
    expect(errorOf(() => canonicalJson({ at: new Date(0) })).message).toContain('a Date is not a plain object');
    expect(errorOf(() => canonicalJson([() => 1])).message).toContain('function is not a JSON value');
  });

  it('does not call toJSON', () => {
    expect(errorOf(() => canonicalJson({ v: new (class V {})() })).message).toContain('a V is not a plain object');
    expect(canonicalJson({ toJSON: 'data' })).toBe('{"toJSON":"data"}');
  });
});

describe('canonicalDigest', () => {
  it('is the SHA-256 of the UTF-8 canonical text', () => {
    const value = { b: '€', a: [1, 2.5] };
    const expected = createHash('sha256').update(Buffer.from('{"a":[1,2.5],"b":"€"}', 'utf8')).digest();
    expect(canonicalDigest(value).equals(expected)).toBe(true);
  });

  it('does not depend on member order', () => {
    expect(canonicalDigest({ x: 1, y: 2 }).equals(canonicalDigest({ y: 2, x: 1 }))).toBe(true);
  });
});
