import { normalizeMapped, originalSpan, type Normalized } from '../text/index.js';
import { DETECTORS, type Detector } from './detectors.js';

/** One replacement of `redactText`, in the coordinates of the text given: [start, end) becomes `[REDACTED:<kind>]`. */
export interface RedactedSpan {
  start: number;
  end: number;
  kind: string;
}

const placeholder = (kind: string) => `[REDACTED:${kind}]`;

/**
 * What `redactText` replaces, as spans of the original text rather than a new string: the stream redactor needs to
 * know where a replacement begins and ends to cut its window outside of one. The detectors read the normalized text
 * (runtime/text: a zero-width space, a full-width digit or an en dash does not hide a number), and each span covers
 * the original characters its normalized text came from.
 * `render(text, redactSpans(text))` equals `redactText(text)` (redact.test.ts checks it on the pack corpus).
 */
export function redactSpans(text: string, detectors: readonly Detector[] = DETECTORS): RedactedSpan[] {
  const n = normalizeMapped(text);
  const spans = normalizedSpans(n.text, detectors);
  return n.origins && spans.length > 0 ? toText(text, n, spans) : spans;
}

/**
 * The spans of the detectors in a text that is already normalized, in its coordinates. NB: the detectors run one
 * after the other on the text their predecessors produced (as in redactText: a later detector sees `[REDACTED:x]`),
 * so the spans are tracked through the placeholders; a replacement that covers part of a placeholder takes all of it.
 */
export function normalizedSpans(text: string, detectors: readonly Detector[] = DETECTORS): RedactedSpan[] {
  // as redactText: no detector matches fewer than 8 characters
  if (text.length < 8 || detectors.length === 0) return [];
  let spans: RedactedSpan[] = [];
  let current = text;
  for (const d of detectors) {
    const found = d.spans ? d.spans(current).map(([s, e]) => ({ s, e })) : patternSpans(d, current, text);
    if (found.length === 0) continue;
    spans = merge(spans, toOriginal(spans, found, d.kind));
    current = render(text, spans);
  }
  return spans;
}

/** Spans of the normalized text `n` as spans of the original `text`; spans that meet there are merged. */
function toText(text: string, n: Normalized, spans: readonly RedactedSpan[]): RedactedSpan[] {
  const out: RedactedSpan[] = [];
  for (const sp of spans) {
    const [start, end] = originalSpan(text, n, sp.start, sp.end);
    const last = out[out.length - 1];
    if (last && start < last.end) last.end = Math.max(last.end, end);
    else out.push({ start, end, kind: sp.kind });
  }
  return out;
}

/** The spans of a pattern detector in `current`, with redactText's rules (capture group, refine, valid on the original). */
function patternSpans(d: Detector, current: string, original: string): { s: number; e: number }[] {
  const out: { s: number; e: number }[] = [];
  const re = d.pattern;
  re.lastIndex = 0;
  for (let m = re.exec(current); m; m = re.exec(current)) {
    const match = m[0];
    if (match === '') {
      re.lastIndex++;
      continue;
    }
    const found = m[1] ?? match;
    const span = d.refine ? d.refine(found) : found;
    if (span === undefined || (d.valid && !d.valid(span, original))) continue;
    // NB: redactText replaces the first occurrence of the span in the match
    const s = m.index + (span === match ? 0 : match.indexOf(span));
    out.push({ s, e: s + span.length });
  }
  re.lastIndex = 0;
  return out;
}

/**
 * Maps spans [s, e) of the text rendered with `spans` (sorted, both lists) back to the original text, in one pass:
 * an end inside a placeholder takes the whole placeholder.
 */
function toOriginal(
  spans: readonly RedactedSpan[],
  found: readonly { s: number; e: number }[],
  kind: string,
): RedactedSpan[] {
  const out: RedactedSpan[] = [];
  let i = 0;
  let shift = 0; // rendered minus original length of spans[0, i)
  const origin = (x: number, end: boolean): number => {
    // advance past the placeholders wholly before x
    while (i < spans.length) {
      const sp = spans[i]!;
      const rs = sp.start + shift;
      const len = placeholder(sp.kind).length;
      if (x < rs + len) break;
      shift += len - (sp.end - sp.start);
      i++;
    }
    const sp = spans[i];
    if (sp) {
      const rs = sp.start + shift;
      if (end ? x > rs : x >= rs) return end ? sp.end : sp.start;
    }
    return x - shift;
  };
  for (const f of found) {
    const start = origin(f.s, false);
    out.push({ start, end: origin(f.e, true), kind });
  }
  return out;
}

/** The earlier spans, less those the new ones cover, plus the new ones (merged where they overlap); both sorted. */
function merge(old: readonly RedactedSpan[], added: readonly RedactedSpan[]): RedactedSpan[] {
  const all: RedactedSpan[] = [];
  let j = 0;
  for (const a of added) {
    while (j < old.length && old[j]!.start < a.start) {
      const o = old[j++]!;
      // an earlier span that reaches into this one is covered by it
      if (o.end <= a.start) all.push(o);
      else all.push({ start: o.start, end: Math.max(o.end, a.end), kind: o.kind });
    }
    all.push(a);
  }
  while (j < old.length) all.push(old[j++]!);
  const out: RedactedSpan[] = [];
  for (const sp of all) {
    const last = out[out.length - 1];
    if (last && sp.start < last.end) last.end = Math.max(last.end, sp.end);
    else out.push({ ...sp });
  }
  return out;
}

/** `text[from, to)` with the spans inside it replaced; `spans` sorted, none crossing `from` or `to`. */
export function render(text: string, spans: readonly RedactedSpan[], from = 0, to = text.length): string {
  let out = '';
  let at = from;
  for (const sp of spans) {
    if (sp.end <= from || sp.start >= to) continue;
    out += text.slice(at, Math.max(at, sp.start)) + placeholder(sp.kind);
    at = Math.max(at, sp.end);
  }
  return out + text.slice(at, to);
}
