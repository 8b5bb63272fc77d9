import { hasNonAscii, normalizeMapped } from '../text/index.js';

/**
 * The text a StreamRedactor holds, twice: as received (`raw`, what it emits) and normalized (`text`, what the
 * detectors read; runtime/text), with the raw origin of every normalized unit. Positions are absolute: `base` is the
 * position of `text[0]` in the whole normalized stream, `rawBase` that of `raw[0]` in the whole raw stream.
 * NB: normalization is per code point, so a stream normalized piece by piece is the whole text normalized; a high
 * surrogate at the end of a piece waits for its pair.
 */
export class TextWindow {
  text = '';
  base = 0;
  raw = '';
  rawBase = 0;
  /** The absolute raw origin of each unit of `text`; undefined while `text` is `raw` (unit j's is rawBase + j). */
  private origins: number[] | undefined;
  /** A high surrogate at the end of the last piece. */
  private pending = '';

  /** Raw characters received, pending ones included. */
  get received(): number {
    return this.rawBase + this.raw.length + this.pending.length;
  }

  /** Appends a piece as received. */
  append(piece: string): void {
    let s = this.pending + piece;
    this.pending = '';
    const last = s.charCodeAt(s.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.pending = s.slice(-1);
      s = s.slice(0, -1);
    }
    if (s !== '') this.add(s);
  }

  /** The end of the stream: a lone high surrogate waits no more. */
  close(): void {
    if (this.pending === '') return;
    const s = this.pending;
    this.pending = '';
    this.add(s);
  }

  /** The absolute raw position the normalized unit at absolute position `p` came from (past the last: the raw end). */
  rawAt(p: number): number {
    const j = p - this.base;
    if (j >= this.text.length) return this.rawBase + this.raw.length;
    return this.origins ? this.origins[j]! : this.rawBase + j;
  }

  /** The absolute raw end of the code point the normalized unit at absolute position `p` came from. */
  rawEndOf(p: number): number {
    const r = this.rawAt(p);
    return r + (this.raw.codePointAt(r - this.rawBase)! > 0xffff ? 2 : 1);
  }

  /** Whether the normalized units at absolute positions `p - 1` and `p` came from one raw code point (a ligature). */
  sameOrigin(p: number): boolean {
    const j = p - this.base;
    return this.origins !== undefined && j > 0 && j < this.text.length && this.origins[j] === this.origins[j - 1];
  }

  rawSlice(from: number, to: number): string {
    return this.raw.slice(from - this.rawBase, to - this.rawBase);
  }

  /** Forgets the normalized text before absolute position `p`, and the raw text before its origin. */
  trim(p: number): void {
    const keep = p - this.base;
    if (keep <= 0) return;
    const rawCut = this.rawAt(p);
    this.text = this.text.slice(keep);
    this.base = p;
    this.raw = this.raw.slice(rawCut - this.rawBase);
    this.rawBase = rawCut;
    if (!this.origins) return;
    // back to the identity once the window holds ASCII only (the non-ASCII text has passed)
    if (!hasNonAscii(this.raw)) this.origins = undefined;
    else this.origins.splice(0, keep);
  }

  private add(s: string): void {
    const n = normalizeMapped(s);
    const at = this.rawBase + this.raw.length;
    if (n.origins) {
      this.origins ??= Array.from({ length: this.text.length }, (_, j) => this.rawBase + j);
      for (const o of n.origins) this.origins.push(at + o);
    } else if (this.origins) {
      for (let j = 0; j < s.length; j++) this.origins.push(at + j);
    }
    this.text += n.text;
    this.raw += s;
  }
}
