import { describe, expect, it } from 'vitest';
import { URLParseError, parseURL, splitHostPort } from './index.js';

// Parts and messages are Go's url.Parse (Go 1.26).
describe('parseURL', () => {
  it('splits a URL into its decoded parts', () => {
    expect(parseURL('https://user@example.com:8443/a%20b/c?x=1#frag')).toEqual({
      scheme: 'https',
      host: 'example.com:8443',
      path: '/a b/c',
      rawPath: '/a b/c',
      rawQuery: 'x=1',
      fragment: 'frag',
    });
    expect(parseURL('mailto:a@b').scheme).toBe('mailto');
  });

  it.each([
    { url: 'http://a:b:c/', message: 'parse "http://a:b:c/": invalid port ":b:c" after host' },
    { url: 'ftp://a:b:c/', message: 'parse "ftp://a:b:c/": invalid port ":c" after host' },
    { url: ':x', message: 'parse ":x": missing protocol scheme' },
    { url: '/a%zz', message: 'parse "/a%zz": invalid URL escape "%zz"' },
  ])('rejects $url', ({ url, message }) => {
    expect(() => parseURL(url)).toThrow(new URLParseError(message));
  });

  it('splits host and port as URL.Hostname and URL.Port do', () => {
    expect(splitHostPort('[::1]:80')).toEqual(['::1', '80']);
    expect(splitHostPort('example.com')).toEqual(['example.com', '']);
  });
});
