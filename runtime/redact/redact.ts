import { hasNonAscii } from '../text/index.js';
import { DETECTORS, type Detector } from './detectors.js';
import { redactSpans, render } from './spans.js';

export interface RedactionCounts {
  [kind: string]: number;
}

/**
 * Replaces every detected span of one string with `[REDACTED:<kind>]`, counting per kind. The detectors read the
 * normalized text (runtime/text); a span masks the original characters it came from.
 */
export function redactText(text: string, counts: RedactionCounts, detectors: readonly Detector[] = DETECTORS): string {
  if (hasNonAscii(text)) return redactNormalized(text, counts, detectors);
  // no detector matches fewer than 8 characters; most short cells (names, codes) skip the scan
  if (text.length < 8) return text;
  let out = text;
  for (const d of detectors) {
    if (d.spans) {
      const spans = d.spans(out);
      if (spans.length === 0) continue;
      const pieces: string[] = [];
      let last = 0;
      for (const [start, end] of spans) {
        pieces.push(out.slice(last, start), `[REDACTED:${d.kind}]`);
        last = end;
      }
      out = pieces.join('') + out.slice(last);
      counts[d.kind] = (counts[d.kind] ?? 0) + spans.length;
      continue;
    }
    d.pattern.lastIndex = 0;
    out = out.replace(d.pattern, (match: string, ...rest: unknown[]) => {
      const group = typeof rest[0] === 'string' ? rest[0] : undefined;
      const found = group ?? match;
      const span = d.refine ? d.refine(found) : found;
      if (span === undefined || (d.valid && !d.valid(span, text))) return match;
      counts[d.kind] = (counts[d.kind] ?? 0) + 1;
      return span === match ? `[REDACTED:${d.kind}]` : match.replace(span, `[REDACTED:${d.kind}]`);
    });
  }
  return out;
}

/** A text that normalization may change: its spans, mapped back to it. */
function redactNormalized(text: string, counts: RedactionCounts, detectors: readonly Detector[]): string {
  const spans = redactSpans(text, detectors);
  for (const sp of spans) counts[sp.kind] = (counts[sp.kind] ?? 0) + 1;
  return spans.length === 0 ? text : render(text, spans);
}

/** Redacts string values (not keys) anywhere in a JSON-like value (rows, tool results); returns a copy. */
export function redactValue(
  value: unknown,
  counts: RedactionCounts,
  detectors: readonly Detector[] = DETECTORS,
): unknown {
  if (typeof value === 'string') return redactText(value, counts, detectors);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, counts, detectors));
  if (value && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, counts, detectors);
    return out;
  }
  return value;
}
