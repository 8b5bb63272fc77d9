/**
 * Connection URLs carry passwords. Driver errors sometimes quote them (a bad URL, a DNS failure with
 * the host, an auth failure naming the user), so every message that leaves a connector passes here.
 */

// scheme://anything-up-to-whitespace: a URL of any scheme is replaced whole, not just its password.
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi;
// key=value forms some drivers print (libpq-style DSNs, ioredis options dumps).
const KV_SECRET = /\b(password|passwd|pwd|secret|token|auth)\s*[=:]\s*("[^"]*"|'[^']*'|[^\s,;}]+)/gi;

export interface SanitizeOptions {
  /** Exact strings to remove as well: the connection URL itself, its password, its user. */
  secrets?: readonly string[];
}

export function sanitizeMessage(message: string, options: SanitizeOptions = {}): string {
  let out = message;
  for (const s of options.secrets ?? []) {
    if (s.length >= 3) out = out.split(s).join('[redacted]');
  }
  return out.replace(URL_PATTERN, '[url]').replace(KV_SECRET, '$1=[redacted]');
}

/** The pieces of a connection URL that must never be shown: the URL, its password and decoded forms. */
export function secretsOfUrl(url: string): string[] {
  const out = [url];
  try {
    const u = new URL(url);
    if (u.password) out.push(u.password, decodeURIComponent(u.password));
    out.push(u.host);
    if (u.username) out.push(`${decodeURIComponent(u.username)}:`);
  } catch {
    // not a URL: the whole string is already listed
  }
  return out.filter((s) => s.length >= 3);
}

/** Message text of any thrown value, sanitised. */
export function errorText(e: unknown, secrets: readonly string[] = []): string {
  const raw = e instanceof Error ? e.message : String(e);
  return sanitizeMessage(raw, { secrets });
}
