import { DETECTORS, type Detector } from './detectors.js';
import type { RedactionCounts } from './redact.js';
import { normalizedSpans } from './spans.js';
import { TextWindow } from './window.js';

/**
 * The most characters any detector's match (with the context its pattern reads) can span: the bound of what a
 * StreamRedactor holds back. NB: the JWT detector sets it (three segments of up to 8 KiB); a PEM block, which has
 * no bound of its own, is capped at 16 KiB in a stream.
 */
export const STREAM_WINDOW_CHARS = windowChars(DETECTORS);

/** The largest `maxLength` of `detectors`. */
export function windowChars(detectors: readonly Detector[]): number {
  return detectors.reduce((m, d) => Math.max(m, d.maxLength), 0);
}

export interface StreamRedactorOptions {
  /**
   * Characters already sent that stay in the window as left context (lookbehinds, context words).
   * @default 128
   */
  contextChars?: number;
}

/**
 * Positions where a `breaks` class occurred. Only the last one at or before `end - 3` is asked for, and `end` only
 * grows: earlier ones are dropped, so at most four are kept (a run of spaces at the end cannot push it out).
 */
class Breaks {
  private readonly at: number[] = [];
  constructor(private readonly re: RegExp) {}

  scan(text: string, base: number, from: number): void {
    this.re.lastIndex = from;
    for (let m = this.re.exec(text); m; m = this.re.exec(text)) this.at.push(base + m.index);
    this.re.lastIndex = 0;
    const limit = base + text.length - 3;
    let keep = this.at.length - 1;
    while (keep > 0 && this.at[keep]! > limit) keep--;
    if (keep > 0) this.at.splice(0, keep);
  }

  /** The last position at or before `limit`, or -1. */
  lastAtOrBefore(limit: number): number {
    for (let i = this.at.length - 1; i >= 0; i--) if (this.at[i]! <= limit) return this.at[i]!;
    return -1;
  }
}

interface Tracked {
  detector: Detector;
  /** start positions (absolute) of `head` matches not yet behind the window */
  heads: number[];
}

/**
 * Redacts a text that arrives in pieces (an SSE answer) as `redactText` would redact it whole, emitting as early as
 * that allows: `push` returns the text that no future piece can change, already redacted, and holds back the rest —
 * at most `STREAM_WINDOW_CHARS`; in ordinary prose nothing once a word's space has arrived (a number, a label such
 * as `password = …`, or the beginning of a key prefix waits until it is decided). A detector says how far back a
 * match still open at the end can begin: `maxLength`, narrowed by `breaks` (a token cannot hold a space, so it began
 * after the last one; with `lookahead: 1` the space at the very end closes it) and `head` (a PEM block begins at
 * `-----BEGIN `; an incomplete head at the end is held only where the text is the beginning of one).
 *
 * The detectors, breaks and heads read the normalized text (runtime/text), as `redactText` does; what is emitted is
 * the text as received, masked where a span's original characters are (window.ts keeps both and the map between).
 *
 * Cost: every push scans only the window (the held text and `contextChars` of context), and only when it can emit;
 * when the window is long (a run without spaces), only once it has grown by a quarter, so a text costs time linear in
 * its length, whatever its shape.
 *
 * NB: equal to `redactText` of the whole text except (1) detectors with `textContext` (a context word outside the
 * window is not seen), (2) a PEM block longer than its 16 KiB cap, (3) a candidate match that the whole-text scan
 * rejected and that straddles a cut (its tail is scanned again on its own). The invariant tested by property
 * (stream.test.ts) is equality for the other detectors, and that no emitted piece holds a secret the whole-text
 * redaction masks.
 */
export class StreamRedactor {
  /** Replacements emitted so far, per kind. */
  readonly counts: RedactionCounts = {};
  private readonly tracked: Tracked[];
  private readonly space: Breaks = new Breaks(/\s/g);
  private readonly line: Breaks = new Breaks(/\n/g);
  private readonly delimiter: Breaks = new Breaks(/[\s"'`,;<>(){}[\]]/g);
  private readonly contextChars: number;
  private readonly window: number;
  /** the text from `w.base`: context (already emitted) up to `emitted`, then held text (normalized positions) */
  private readonly w = new TextWindow();
  private emitted = 0;
  /** the raw position of `emitted` */
  private rawEmitted = 0;

  constructor(
    private readonly detectors: readonly Detector[] = DETECTORS,
    options: StreamRedactorOptions = {},
  ) {
    this.contextChars = options.contextChars ?? 128;
    this.window = windowChars(detectors);
    this.tracked = detectors.map((detector) => ({ detector, heads: [] }));
  }

  /** Characters received and not yet emitted: at most 5/4 of the window (`windowChars(detectors)`) plus a piece. */
  get held(): number {
    return this.w.received - this.rawEmitted;
  }

  /** Takes the next piece; returns the redacted text that may be sent now (often '', while a match may be open). */
  push(chunk: string): string {
    if (chunk === '') return '';
    if (this.detectors.length === 0) return chunk;
    const w = this.w;
    const from = w.text.length;
    w.append(chunk);
    const end = w.base + w.text.length;
    // NB: rescan a little before the piece: a head or break may straddle the previous one
    const rescan = Math.max(0, from - 16);
    this.space.scan(w.text, w.base, from);
    this.line.scan(w.text, w.base, from);
    this.delimiter.scan(w.text, w.base, from);
    for (const t of this.tracked) if (t.detector.head) this.scanHeads(t, rescan, end);
    const hold = this.holdPoint(end);
    const emittable = hold - this.emitted;
    if (emittable <= 0) return '';
    // amortised: a long window is scanned again only once a quarter of it can go (so at most 5/4 of it is held)
    if (w.text.length > 2048 && emittable * 4 < Math.min(this.window, w.text.length)) return '';
    return this.flush(hold);
  }

  /** The end of the text: everything held, redacted. */
  end(): string {
    this.w.close();
    const out = this.flush(this.w.base + this.w.text.length);
    this.w.trim(this.emitted);
    for (const t of this.tracked) t.heads.length = 0;
    return out;
  }

  private scanHeads(t: Tracked, from: number, end: number): void {
    const re = t.detector.head!.pattern;
    const last = t.heads[t.heads.length - 1] ?? -1;
    const text = this.w.text;
    re.lastIndex = from;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const at = this.w.base + m.index;
      if (at > last) t.heads.push(at);
      if (m[0] === '') re.lastIndex++;
    }
    re.lastIndex = 0;
    // heads further back than the detector's reach cannot begin an open match any more
    const reach = end - t.detector.maxLength;
    let drop = 0;
    while (drop < t.heads.length && t.heads[drop]! <= reach) drop++;
    if (drop) t.heads.splice(0, drop);
  }

  /** The first absolute position a match still open at `end` could cover: everything before it may go. */
  private holdPoint(end: number): number {
    let hold = end;
    for (const t of this.tracked) {
      const d = t.detector;
      // NB: the earliest start of a match that reads past `end` (its lookahead reads at most 2 characters past it)
      let from = end - d.maxLength + 1;
      if (d.breaks) {
        // NB: a break at `end - 1` closes a match before it only if the pattern reads one character past a match
        const b = this[d.breaks.on].lastAtOrBefore(end - (d.lookahead === 1 ? 1 : 3));
        if (b >= 0) from = Math.max(from, b - d.breaks.after + 1);
      }
      if (d.head) {
        // an open match begins at a head, or at a head not complete yet (in the last head.length - 1 characters)
        let first = this.incompleteHead(d.head, end);
        for (const h of t.heads) {
          if (h >= from) {
            first = Math.min(first, h);
            break;
          }
        }
        from = Math.max(from, first);
      }
      // lookbehinds read up to 3 characters before a match, and are kept as context, not held
      hold = Math.min(hold, Math.max(from, 0));
    }
    return Math.max(hold, this.emitted);
  }

  /** Where a head not complete yet may begin at the end of the text: from its first possible character. */
  private incompleteHead(head: NonNullable<Detector['head']>, end: number): number {
    const { text, base } = this.w;
    const from = Math.max(base, end - head.length + 1);
    if (head.words || head.partial) {
      for (let at = from; at < end; at++) {
        const tail = text.slice(at - base, end - base);
        if (
          head.partial
            ? head.partial.test(tail)
            : head.words!.some((w) => w.length > tail.length && w.startsWith(tail.toLowerCase()))
        )
          return at;
      }
      return end;
    }
    if (!head.first) return from;
    for (let at = from; at < end; at++) if (head.first.test(text[at - base]!)) return at;
    return end;
  }

  /**
   * Emits [emitted, to), cut before any replacement that reaches past `to` (and before a raw character whose
   * normalized form is cut), as the raw text with the replacements; then trims the window.
   */
  private flush(to: number): string {
    const w = this.w;
    const spans = normalizedSpans(w.text, this.detectors);
    const ctx = this.emitted - w.base;
    let cut = to - w.base;
    for (const sp of spans) if (sp.start < cut && sp.end > cut) cut = sp.start;
    while (cut > ctx && w.sameOrigin(w.base + cut)) cut--;
    if (cut <= ctx) return '';
    const rawCut = w.rawAt(w.base + cut);
    let out = '';
    let at = this.rawEmitted;
    for (const sp of spans) {
      if (sp.end <= ctx || sp.start >= cut) continue;
      // NB: a span begun in the context (already sent) is one a scan without its left context found: the cut never
      // falls inside a match of the whole text, but masking its tail errs on the safe side
      const start = w.rawAt(w.base + sp.start);
      out += w.rawSlice(at, Math.max(at, start)) + `[REDACTED:${sp.kind}]`;
      this.counts[sp.kind] = (this.counts[sp.kind] ?? 0) + 1;
      at = Math.max(at, w.rawEndOf(w.base + sp.end - 1));
    }
    out += w.rawSlice(at, Math.max(at, rawCut));
    this.emitted = w.base + cut;
    this.rawEmitted = Math.max(at, rawCut);
    const keep = Math.max(0, cut - this.contextChars);
    if (keep > 0) w.trim(w.base + keep);
    return out;
  }
}

/** The detectors of the given kinds, in DETECTORS order (secrets before PII, as redactText runs them). */
export function detectorsOf(kinds: Iterable<string>): Detector[] {
  const wanted = new Set(kinds);
  return DETECTORS.filter((d) => wanted.has(d.kind));
}
