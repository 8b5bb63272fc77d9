import { describe, expect, it } from 'vitest';
import { obj, run, set, v } from '../test/testkit-data.js';

type Case = { name: string; fn: string; args: unknown[]; want: string };

const base64: Case[] = [
  { name: 'base64.encode encodes UTF-8 bytes', fn: 'base64.encode', args: ['é!'], want: '"w6kh"' },
  { name: 'base64.decode decodes padded text', fn: 'base64.decode', args: ['YWJjZA=='], want: '"abcd"' },
  { name: 'base64.decode skips newlines like Go', fn: 'base64.decode', args: ['YW\nJj'], want: '"abc"' },
  {
    name: 'base64.decode requires padding',
    fn: 'base64.decode',
    args: ['YWJjZA'],
    want: 'builtin: illegal base64 data at input byte 4',
  },
  {
    name: 'base64.decode reports the offending byte',
    fn: 'base64.decode',
    args: ['YW*j'],
    want: 'builtin: illegal base64 data at input byte 2',
  },
  {
    name: 'base64.decode rejects data after padding',
    fn: 'base64.decode',
    args: ['YQ==YQ=='],
    want: 'builtin: illegal base64 data at input byte 4',
  },
  {
    name: 'base64.decode turns invalid UTF-8 into U+FFFD per byte',
    fn: 'base64.decode',
    args: ['/w=='],
    want: '"\ufffd"',
  },
  { name: 'base64.is_valid accepts valid input', fn: 'base64.is_valid', args: ['YQ=='], want: 'true' },
  { name: 'base64.is_valid rejects url alphabet', fn: 'base64.is_valid', args: ['-_8='], want: 'false' },
  { name: 'base64.is_valid is false for non-strings', fn: 'base64.is_valid', args: [1], want: 'false' },
  { name: 'base64url.encode pads', fn: 'base64url.encode', args: ['\u00ff\u00fe'], want: '"w7_Dvg=="' },
  {
    name: 'base64url.encode_no_pad leaves padding out',
    fn: 'base64url.encode_no_pad',
    args: ['hello'],
    want: '"aGVsbG8"',
  },
  { name: 'base64url.decode restores missing padding', fn: 'base64url.decode', args: ['aGVsbG8'], want: '"hello"' },
  {
    name: 'base64url.decode rejects an impossible length',
    fn: 'base64url.decode',
    args: ['aGVsb'],
    want: 'builtin: illegal base64url string: aGVsb',
  },
];

const hexAndUrl: Case[] = [
  { name: 'hex.encode encodes bytes', fn: 'hex.encode', args: ['lorem'], want: '"6c6f72656d"' },
  { name: 'hex.decode decodes either case', fn: 'hex.decode', args: ['4A4b'], want: '"JK"' },
  {
    name: 'hex.decode names the invalid byte',
    fn: 'hex.decode',
    args: ['fghijkl'],
    want: "builtin: encoding/hex: invalid byte: U+0067 'g'",
  },
  {
    name: 'hex.decode rejects an odd length',
    fn: 'hex.decode',
    args: ['abc'],
    want: 'builtin: encoding/hex: odd length hex string',
  },
  {
    name: 'urlquery.encode escapes like QueryEscape',
    fn: 'urlquery.encode',
    args: ['a b&c=d/é~'],
    want: '"a+b%26c%3Dd%2F%C3%A9~"',
  },
  { name: 'urlquery.decode turns + into a space', fn: 'urlquery.decode', args: ['a+b%20c'], want: '"a b c"' },
  {
    name: 'urlquery.decode rejects a bad escape',
    fn: 'urlquery.decode',
    args: ['%zzz'],
    want: 'builtin: invalid URL escape "%zz"',
  },
  {
    name: 'urlquery.decode_object collects repeated keys',
    fn: 'urlquery.decode_object',
    args: ['a=1&b=2&a=3&c'],
    want: '{"a":["1","3"],"b":["2"],"c":[""]}',
  },
  {
    name: 'urlquery.decode_object rejects semicolons',
    fn: 'urlquery.decode_object',
    args: ['a=1;b=2'],
    want: 'builtin: invalid semicolon separator in query',
  },
  {
    name: 'urlquery.encode_object sorts keys and keeps value order',
    fn: 'urlquery.encode_object',
    args: [{ b: ['2', '1'], a: 'x y' }],
    want: '"a=x+y&b=2&b=1"',
  },
  {
    name: 'urlquery.encode_object accepts sets of strings',
    fn: 'urlquery.encode_object',
    args: [{ a: set('y', 'x') }],
    want: '"a=x&a=y"',
  },
  {
    name: 'urlquery.encode_object rejects numbers',
    fn: 'urlquery.encode_object',
    args: [{ a: 1 }],
    want: 'type: operand 1 values must be string, array[string], or set[string]',
  },
];

const json: Case[] = [
  {
    name: 'json.marshal sorts keys and turns sets into arrays',
    fn: 'json.marshal',
    args: [[{ foo: set(3, 1) }, { b: 1, a: 2 }]],
    want: JSON.stringify('[{"foo":[1,3]},{"a":2,"b":1}]'),
  },
  {
    name: 'json.marshal escapes HTML like Go',
    fn: 'json.marshal',
    args: ['<a&b>'],
    want: JSON.stringify('"\\u003ca\\u0026b\\u003e"'),
  },
  {
    name: 'json.marshal keeps big integers exact',
    fn: 'json.marshal',
    args: [[2n ** 64n]],
    want: JSON.stringify('[18446744073709551616]'),
  },
  {
    name: 'json.marshal_with_options indents with a prefix',
    fn: 'json.marshal_with_options',
    args: [{ a: [1] }, { prefix: '> ', indent: ' ' }],
    want: JSON.stringify('> {\n>  "a": [\n>   1\n>  ]\n> }'),
  },
  {
    name: 'json.marshal_with_options pretty defaults to tabs',
    fn: 'json.marshal_with_options',
    args: [[1], { pretty: true }],
    want: JSON.stringify('[\n\t1\n]'),
  },
  {
    name: 'json.marshal_with_options honours pretty: false',
    fn: 'json.marshal_with_options',
    args: [[1], { pretty: false, indent: 'x' }],
    want: JSON.stringify('[1]'),
  },
  {
    name: 'json.marshal_with_options rejects unknown keys',
    fn: 'json.marshal_with_options',
    args: [[], { foo: 1 }],
    want: 'type: operand 2 object contained unknown key "foo"',
  },
  {
    name: 'json.marshal_with_options rejects a non-string indent',
    fn: 'json.marshal_with_options',
    args: [[], { indent: 1 }],
    want: 'type: operand 2 key "indent" failed cast to string: operand 0 must be string but got number',
  },
  {
    name: "json.unmarshal keeps each number's text, as json.Number does",
    fn: 'json.unmarshal',
    args: ['{"a": [1e30, 0.5, 1.0]}'],
    want: '{"a":[1e30,0.5,1.0]}',
  },
  {
    name: 'json.unmarshal reports truncated input',
    fn: 'json.unmarshal',
    args: ['[1, 2'],
    want: 'builtin: unexpected EOF',
  },
  {
    name: 'json.unmarshal reports a bad character',
    fn: 'json.unmarshal',
    args: ['[1, x]'],
    want: "builtin: invalid character 'x' looking for beginning of value",
  },
  {
    name: 'json.unmarshal rejects a second value',
    fn: 'json.unmarshal',
    args: ['1 2'],
    want: "builtin: error: invalid character '2' after top-level value",
  },
  {
    name: 'json.unmarshal rejects a non-string',
    fn: 'json.unmarshal',
    args: [1],
    want: 'type: operand 1 must be string but got number',
  },
  { name: 'json.is_valid rejects trailing data', fn: 'json.is_valid', args: ['{} {}'], want: 'false' },
  { name: 'json.is_valid accepts a scalar', fn: 'json.is_valid', args: [' "x" '], want: 'true' },
];

const yaml: Case[] = [
  {
    name: 'yaml.unmarshal reads YAML 1.1 booleans',
    fn: 'yaml.unmarshal',
    args: ['a: yes\nb: off'],
    want: '{"a":true,"b":false}',
  },
  {
    name: 'yaml.unmarshal reads octal and underscores',
    fn: 'yaml.unmarshal',
    args: ['a: 0777\nb: 1_000'],
    want: '{"a":511,"b":1000}',
  },
  {
    name: 'yaml.unmarshal keeps timestamps as strings',
    fn: 'yaml.unmarshal',
    args: ['a: 2001-12-14'],
    want: '{"a":"2001-12-14"}',
  },
  {
    name: 'yaml.unmarshal stringifies non-string keys',
    fn: 'yaml.unmarshal',
    args: ['1: a\n1.5: b\ntrue: c'],
    want: '{"1":"a","1.5":"b","true":"c"}',
  },
  {
    name: 'yaml.unmarshal reads only the first document',
    fn: 'yaml.unmarshal',
    args: ['a: 1\n---\nb: 2'],
    want: '{"a":1}',
  },
  { name: 'yaml.unmarshal of nothing is null', fn: 'yaml.unmarshal', args: [''], want: 'null' },
  {
    name: 'yaml.unmarshal expands aliases and merges',
    fn: 'yaml.unmarshal',
    args: ['x: &a {k: 1}\nz:\n  <<: *a\n  j: 2'],
    want: '{"x":{"k":1},"z":{"j":2,"k":1}}',
  },
  {
    name: 'yaml.unmarshal reads a y key as the boolean true, as go-yaml v2 does',
    fn: 'yaml.unmarshal',
    args: ['y: 1'],
    want: '{"true":1}',
  },
  {
    name: 'yaml.unmarshal reports go-yaml style errors',
    fn: 'yaml.unmarshal',
    args: ['[1,2,3'],
    want: "builtin: yaml: line 1: did not find expected ',' or ']'",
  },
  {
    name: 'yaml.unmarshal cannot represent infinity',
    fn: 'yaml.unmarshal',
    args: ['a: .inf'],
    want: 'builtin: json: unsupported value: +Inf',
  },
  { name: 'yaml.is_valid accepts JSON', fn: 'yaml.is_valid', args: ['{"json": "ok"}'], want: 'true' },
  { name: 'yaml.is_valid rejects an unclosed mapping', fn: 'yaml.is_valid', args: ['a: {'], want: 'false' },
  {
    name: 'yaml.marshal writes block style with unindented sequences',
    fn: 'yaml.marshal',
    args: [{ foo: set(1, 2), bar: { baz: 'x' } }],
    want: JSON.stringify('bar:\n  baz: x\nfoo:\n- 1\n- 2\n'),
  },
  {
    name: 'yaml.marshal quotes strings that would read as other types',
    fn: 'yaml.marshal',
    args: [['true', '1', '', 'yes', '2001-12-14', 'a: b', ' x']],
    want: JSON.stringify('- "true"\n- "1"\n- ""\n- "yes"\n- "2001-12-14"\n- \'a: b\'\n- \' x\'\n'),
  },
  {
    name: 'yaml.marshal writes multi-line strings as literal blocks',
    fn: 'yaml.marshal',
    args: [{ a: 'x\ny', b: 'z\n' }],
    want: JSON.stringify('a: |-\n  x\n  y\nb: |\n  z\n'),
  },
  {
    name: 'yaml.marshal orders keys naturally',
    fn: 'yaml.marshal',
    args: [{ a10: 1, a9: 2, B: 3 }],
    want: JSON.stringify('B: 3\na9: 2\na10: 1\n'),
  },
  {
    name: 'yaml.marshal writes empty collections in flow style',
    fn: 'yaml.marshal',
    args: [{ a: [], b: {} }],
    want: JSON.stringify('a: []\nb: {}\n'),
  },
  {
    name: 'yaml.marshal writes nested sequences',
    fn: 'yaml.marshal',
    args: [[[1, 2], { k: [3] }]],
    want: JSON.stringify('- - 1\n  - 2\n- k:\n  - 3\n'),
  },
  {
    name: 'yaml.marshal formats floats like Go',
    fn: 'yaml.marshal',
    args: [[1.5, 1234567.5, 0.00001]],
    want: JSON.stringify('- 1.5\n- 1.2345675e+06\n- 1e-05\n'),
  },
  { name: 'yaml.marshal of a scalar document', fn: 'yaml.marshal', args: [null], want: JSON.stringify('null\n') },
];

describe('encoding', () => {
  it.each([...base64, ...hexAndUrl, ...json, ...yaml])('$name', ({ fn, args, want }) => {
    expect(run(fn, args.map(v))).toBe(want);
  });

  it('json.marshal encodes non-string keys as JSON text', () => {
    expect(
      run('json.marshal', [
        obj([
          [[1, 'a'], true],
          [2, false],
        ]),
      ]),
    ).toBe(JSON.stringify('{"2":false,"[1,\\"a\\"]":true}'));
  });

  it('yaml.marshal round-trips through yaml.unmarshal', () => {
    const doc = v({ list: [1, 'two', { three: [3.5, null, true] }], 'key: colon': 'v #x', empty: '' });
    const text = JSON.parse(run('yaml.marshal', [doc])) as string;
    expect(run('yaml.unmarshal', [text])).toBe(
      run('json.unmarshal', [JSON.parse(run('json.marshal', [doc])) as string]),
    );
  });

  it('yaml.marshal folds long plain strings at 80 columns like go-yaml', () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const text = JSON.parse(run('yaml.marshal', [v({ k: long })])) as string;
    expect(text.split('\n').length).toBeGreaterThan(2);
    expect(text.split('\n')[1]!.startsWith('  ')).toBe(true);
    expect(run('yaml.unmarshal', [text])).toBe(JSON.stringify({ k: long }));
  });
});
