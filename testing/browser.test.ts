import { describe, expect, it } from 'vitest';
import { browserSkipReason, isLoopbackUrl } from './browser.js';

describe('isLoopbackUrl', () => {
  it.each([
    { url: 'http://127.0.0.1:8080/console', loopback: true },
    { url: 'http://127.9.8.7/x', loopback: true },
    { url: 'ws://localhost:3000/live', loopback: true },
    { url: 'http://app.localhost/', loopback: true },
    { url: 'http://[::1]:8080/', loopback: true },
    { url: 'http://[::ffff:127.0.0.1]/', loopback: true },
    { url: 'data:,', loopback: true },
    { url: 'blob:http://127.0.0.1:8080/5f0c', loopback: true },
    { url: 'about:blank', loopback: true },
    { url: 'http://10.0.0.1/', loopback: false },
    { url: 'https://fonts.googleapis.com/css', loopback: false },
    { url: 'http://128.0.0.1/', loopback: false },
    { url: 'http://127.0.0.1.nip.io/', loopback: false },
    { url: 'http://[::2]/', loopback: false },
    { url: 'http://[::ffff:10.0.0.1]/', loopback: false },
    { url: 'wss://example.com/socket', loopback: false },
    { url: 'ftp://127.0.0.1/', loopback: false },
    { url: 'not a url', loopback: false },
  ])('says $loopback for $url', ({ url, loopback }) => {
    expect(isLoopbackUrl(url)).toBe(loopback);
  });
});

describe('browserSkipReason', () => {
  it('skips without Chromium outside CI, saying where it looked', () => {
    expect(browserSkipReason({ STEWARD_CHROMIUM: '/nowhere/chromium' })).toMatch(/no Chromium at \/nowhere\/chromium/);
  });

  it('never skips under CI: a missing Chromium is then a failure', () => {
    expect(browserSkipReason({ STEWARD_CHROMIUM: '/nowhere/chromium', CI: 'true' })).toBeUndefined();
  });
});
