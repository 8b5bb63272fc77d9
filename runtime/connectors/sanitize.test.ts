import { describe, expect, it } from 'vitest';
import { sanitizeMessage, secretsOfUrl } from './sanitize.js';

describe('sanitizeMessage', () => {
  it('removes URLs of any scheme, the password alone, and key=value secrets', () => {
    const url = 'postgresql://app:p%40ss-W0rd@db.internal:5432/app';
    const msg = `connect to ${url} failed; password authentication failed (password=p@ss-W0rd) near p@ss-W0rd`;
    const out = sanitizeMessage(msg, { secrets: secretsOfUrl(url) });
    expect(out).not.toContain('p@ss-W0rd');
    expect(out).not.toContain('p%40ss-W0rd');
    expect(out).not.toContain('db.internal');
    expect(out).not.toContain('postgresql://');
    expect(sanitizeMessage('GET https://user:pw@api.io/x failed')).toBe('GET [url] failed');
  });
});
