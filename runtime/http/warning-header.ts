/**
 * The caller-visible warnings of a governed call (a policy under `enforcementAction: warn`, a warn rule) as HTTP
 * `Warning` headers, the way Kubernetes' API server tells kubectl of deprecations: `299 - "<text>"`, one entry
 * per warning. Every surface sets them; envelopes that have a `warnings` field carry the same texts there.
 */
import type { FastifyReply } from 'fastify';

/** At most this many headers, each at most this long: a header block has limits of its own. */
const MAX_WARNINGS = 8;
const MAX_TEXT = 256;

/** Adds the `Warning` header, one entry per text (bounded); nothing once the head is sent. */
export function warnCaller(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length === 0 || reply.sent || reply.raw.headersSent) return;
  // NB: one header, a comma-separated list (RFC 9110 list syntax), as some clients keep only the last of several.
  void reply.header(
    'warning',
    warnings
      .slice(0, MAX_WARNINGS)
      .map((w) => `299 - "${headerText(w)}"`)
      .join(', '),
  );
}

/** A quoted-string's content: printable ASCII, `"` and `\` escaped, other characters as `\uXXXX`, bounded. */
export function headerText(text: string): string {
  let out = '';
  for (const ch of text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else out += c > 0xffff ? ch.split('').map(unicodeEscape).join('') : unicodeEscape(ch);
  }
  return out;
}

const unicodeEscape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
