import { describe, expect, it } from 'vitest';
import { BuiltinError, OperandError } from '../../errors.js';
import { RObject, type Value } from '../../value.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';
import { register } from './uri.js';

const registry = new BuiltinRegistry();
register(registry);
const ctx: BuiltinContext = { strict: false, nowNs: () => 0n, cache: new Map(), checkDeadline() {}, charge() {} };

function call(name: string, ...args: Value[]): Value | undefined {
  return registry.get(name)!.impl(args, ctx);
}

const obj = (o: Record<string, string>): RObject => RObject.from(Object.entries(o));

const parsed: [string, string, Record<string, string>][] = [
  [
    'splits every part and decodes path and fragment',
    'https://user:pw@example.com:8443/a%20b/c?x=1&y=2#frag%21',
    {
      scheme: 'https',
      hostname: 'example.com',
      port: '8443',
      path: '/a b/c',
      raw_path: '/a b/c',
      raw_query: 'x=1&y=2',
      fragment: 'frag!',
    },
  ],
  ['lower-cases the scheme but not the host', 'HTTP://Example.COM', { scheme: 'http', hostname: 'Example.COM' }],
  ['keeps the escaped path in raw_path when it differs', '/foo%2Fbar', { path: '/foo/bar', raw_path: '/foo%2Fbar' }],
  [
    'reports no path for an opaque URL',
    'mailto:joe@example.com?subject=hi',
    { scheme: 'mailto', raw_query: 'subject=hi' },
  ],
  [
    'unescapes an IPv6 zone and strips the brackets from hostname',
    'http://[fe80::1%25en0]:8080/',
    { scheme: 'http', hostname: 'fe80::1%en0', port: '8080', path: '/', raw_path: '/' },
  ],
  [
    'accepts an IPv4-mapped IPv6 literal',
    'http://[::ffff:1.2.3.4]/',
    { scheme: 'http', hostname: '::ffff:1.2.3.4', path: '/', raw_path: '/' },
  ],
  ['reads a scheme-relative authority', '//example.com/x', { hostname: 'example.com', path: '/x', raw_path: '/x' }],
  ['reads a bare relative path', 'foo', { path: 'foo', raw_path: 'foo' }],
  ['reads * as a path', '*', { path: '*', raw_path: '*' }],
  ['drops an empty port', 'http://example.com:', { scheme: 'http', hostname: 'example.com' }],
  [
    'lets non-http hosts hold several colons',
    'foo://a:b:80/',
    { scheme: 'foo', hostname: 'a:b', port: '80', path: '/', raw_path: '/' },
  ],
  [
    'decodes non-ASCII %-escapes in the host',
    'http://%C3%A9.com/',
    { scheme: 'http', hostname: 'é.com', path: '/', raw_path: '/' },
  ],
  [
    'keeps raw non-ASCII paths as raw_path',
    'https://例え.jp/パス',
    { scheme: 'https', hostname: '例え.jp', path: '/パス', raw_path: '/パス' },
  ],
  [
    'cuts the fragment at the first #',
    'http://x/a#b#c',
    { scheme: 'http', hostname: 'x', path: '/a', raw_path: '/a', fragment: 'b#c' },
  ],
  ['turns decoded bytes that are not UTF-8 into U+FFFD', '/%FF', { path: '/\ufffd', raw_path: '/\ufffd' }],
];

const errors: [string, string, string][] = [
  ['rejects a bad path escape', 'http://x/%zz', 'parse "http://x/%zz": invalid URL escape "%zz"'],
  [
    'quotes stray bytes of a bad escape as Go does',
    'http://x/%aé',
    'parse "http://x/%aé": invalid URL escape "%a\\xc3"',
  ],
  ['rejects a short escape', 'http://x/%4', 'parse "http://x/%4": invalid URL escape "%4"'],
  [
    'reports a bad fragment escape with the whole URL',
    'http://x/#%zz',
    'parse "http://x/#%zz": invalid URL escape "%zz"',
  ],
  [
    'rejects a space in the host',
    'http://exa mple.com/',
    'parse "http://exa mple.com/": invalid character " " in host name',
  ],
  ['rejects an escaped ASCII byte in the host', 'http://%41.com/', 'parse "http://%41.com/": invalid URL escape "%41"'],
  ['holds http hosts to one colon', 'http://a:b:80/', 'parse "http://a:b:80/": invalid port ":b:80" after host'],
  ['rejects a non-numeric port', 'http://[::1]:80a/', 'parse "http://[::1]:80a/": invalid port ":80a" after host'],
  ['rejects an unclosed IPv6 literal', 'http://[::1', `parse "http://[::1": missing ']' in host`],
  ['rejects IPv4 in brackets', 'http://[127.0.0.1]/', 'parse "http://[127.0.0.1]/": invalid IP-literal'],
  ['rejects an IPv6 literal after other host text', 'http://x[::1]/', 'parse "http://x[::1]/": invalid IP-literal'],
  [
    'rejects a name in brackets',
    'http://[example]/',
    'parse "http://[example]/": invalid host: ParseAddr("example"): unable to parse IP',
  ],
  [
    'reads a dotted name in brackets as a bad IPv4 address, as netip does',
    'http://[example.com]/',
    'parse "http://[example.com]/": invalid host: ParseAddr("example.com"): unexpected character (at "example.com")',
  ],
  [
    'rejects an empty zone',
    'http://[fe80::1%25]/',
    'parse "http://[fe80::1%25]/": invalid host: ParseAddr("fe80::1%"): zone must be a non-empty string',
  ],
  [
    'rejects a malformed IPv6 literal',
    'http://[1:2::3::4]/',
    'parse "http://[1:2::3::4]/": invalid host: ParseAddr("1:2::3::4"): multiple :: in address (at ":4")',
  ],
  ['rejects a missing scheme before :', ':foo', 'parse ":foo": missing protocol scheme'],
  [
    'rejects a colon in a relative first segment',
    '1a:b',
    'parse "1a:b": first path segment in URL cannot contain colon',
  ],
  [
    'rejects control characters',
    'http://x/\u0001',
    'parse "http://x/\\x01": net/url: invalid control character in URL',
  ],
  ['rejects a space in userinfo', 'http://user name@x/', 'parse "http://user name@x/": net/url: invalid userinfo'],
];

describe('uri.parse', () => {
  it.each(parsed)('%s', (_name, url, want) => {
    expect(call('uri.parse', url)).toEqual(obj(want));
  });

  it.each(errors)('%s', (_name, url, message) => {
    expect(() => call('uri.parse', url)).toThrow(BuiltinError);
    expect(() => call('uri.parse', url)).toThrow(message);
  });

  it('requires a string operand', () => {
    expect(() => call('uri.parse', 5)).toThrow(OperandError);
  });
});

describe('uri.is_valid', () => {
  const cases: [string, Value, boolean][] = [
    ['accepts an absolute URL', 'https://example.com/a?b#c', true],
    ['accepts a relative reference', '../a/b', true],
    ['rejects the empty string, unlike Go', '', false],
    ['rejects a bad escape', 'http://x/%zz', false],
    ['rejects a bracketed name', 'http://[example.com]/', false],
    ['is false for a non-string', 5, false],
  ];
  it.each(cases)('%s', (_name, input, want) => {
    expect(call('uri.is_valid', input)).toBe(want);
  });
});
