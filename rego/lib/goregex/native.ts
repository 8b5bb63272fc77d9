/**
 * Native (V8 irregexp) execution of RE2 patterns — ~20× faster than re2js on prompt-sized text —
 * used only when it is provably equivalent (translate.ts) AND linear-time safe.
 *
 * Safety rests on V8's experimental linear-time engine: with the flags below, a regexp that
 * backtracks more than BACKTRACKS_BEFORE_FALLBACK times is re-run on that engine instead of
 * continuing, so `(a+)+$` on 50k characters costs milliseconds, not forever. But that engine only
 * takes some regexps (no `u`/`i`/`d` flags, no lookarounds, counted repetition ≤ 16 copies …), and a
 * regexp it cannot take never falls back. So every translation is first compiled with the `l`
 * (linear) flag, which V8 rejects exactly when its linear engine cannot run the regexp; only those
 * it accepts are used natively. Everything else stays on re2js.
 * That engine is slow, though: ~0.005–0.01 µs per character per character of the translated
 * pattern (measured on the built-in pack: 37 ms for one 183-character alternation on 40,000
 * newlines, ~1 s for the pack's 180 patterns, where re2js takes ~220 ms). So a native run is
 * allowed only when its worst case — the fallback engine over the whole text — is small:
 * text length × pattern weight ≤ NATIVE_MAX_WORK (nativeAffordable). Larger texts run on re2js,
 * which is linear with a small constant. Required-literal checks (translate.ts) skip most
 * texts before any engine runs.
 */
import v8 from 'node:v8';
import { translate, Untranslatable } from './translate.js';

const BACKTRACKS_BEFORE_FALLBACK = 10_000;

// NB: process-wide V8 settings, applied once when this module is first imported. They change no
// result of any RegExp in the process: they only (1) let V8 switch an excessively backtracking
// regexp to its linear-time engine, and (2) make the `l` flag legal so translations can be probed.
// They apply to regexps compiled afterwards; V8's compilation cache could hand back an identical
// (source, flags) regexp compiled before this module loaded, without the fallback — harmless
// for the non-hostile regexps other modules compile at start-up.
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
v8.setFlagsFromString(`--regexp-backtracks-before-fallback=${BACKTRACKS_BEFORE_FALLBACK}`);
v8.setFlagsFromString('--enable-experimental-regexp-engine');

type WellFormed = (this: string) => boolean;
const isWellFormed = (String.prototype as unknown as { isWellFormed?: WellFormed }).isWellFormed;

/**
 * Bounded self-check that the fallback really is active on this runtime: `^(a+)+$` on 23 a's and
 * a `!` takes ~2^23 backtracking steps (tens of ms) without it and ~0.05 ms with it. A slow or
 * failed check (e.g. flags unknown to another V8) disables native matching entirely.
 */
function selfCheck(): boolean {
  if (isWellFormed === undefined) return false;
  try {
    new RegExp('a', 'l');
    const re = new RegExp('^(a+)+$', 'g');
    const input = `${'a'.repeat(23)}!`;
    const t0 = performance.now();
    const matched = re.test(input);
    return !matched && performance.now() - t0 < 8;
  } catch {
    return false;
  }
}

/** Whether native matching is in use in this process (else every pattern runs on re2js). */
export const nativeEnabled: boolean = selfCheck();

/**
 * Most text length × pattern weight (translated source length) one native run may take: at
 * ~0.01 µs per unit in V8's fallback engine, a worst case of ~10 ms for one call; the evaluation's
 * deadline is checked between calls. At 75 characters every pack pattern runs natively; at 49 KB
 * only patterns up to 20 characters do.
 */
export const NATIVE_MAX_WORK = 1_000_000;

export interface NativeRegex {
  /** Compiled with flags `g` only; set lastIndex before every use. */
  readonly re: RegExp;
  /** Cost per character of V8's fallback engine, in units of NATIVE_MAX_WORK (the source's length). */
  readonly weight: number;
  /** false: submatch values may differ from RE2's, use re2js when they are needed. */
  readonly groupsExact: boolean;
  /** Texts every match contains: no match starts where one of them no longer occurs. */
  readonly required: readonly string[];
}

export type NativePlan =
  | {
      readonly native: true;
      readonly source: string;
      readonly groupsExact: boolean;
      readonly required: readonly string[];
    }
  | { readonly native: false; readonly reason: string };

function compiles(source: string, flags: string): boolean {
  try {
    new RegExp(source, flags);
    return true;
  } catch (e) {
    if (e instanceof SyntaxError) return false;
    throw e;
  }
}

/** How a (re2js-valid) pattern will run, and why not natively when it will not. */
export function nativePlan(pattern: string): NativePlan {
  if (!nativeEnabled) return { native: false, reason: 'linear-time fallback unavailable' };
  let t;
  try {
    t = translate(pattern);
  } catch (e) {
    if (e instanceof Untranslatable) return { native: false, reason: e.message };
    throw e;
  }
  for (const source of [t.source, t.unrolled]) {
    if (source === undefined) continue;
    if (!compiles(source, 'g')) return { native: false, reason: 'translation is not a valid JS regexp' };
    if (compiles(source, 'gl')) return { native: true, source, groupsExact: t.groupsExact, required: t.required };
  }
  return { native: false, reason: 'not runnable by the linear-time engine' };
}

/** The native form of a pattern already accepted by re2js, or undefined to stay on re2js. */
export function compileNative(pattern: string): NativeRegex | undefined {
  const plan = nativePlan(pattern);
  if (!plan.native) return undefined;
  return {
    re: new RegExp(plan.source, 'g'),
    weight: plan.source.length,
    groupsExact: plan.groupsExact,
    required: plan.required,
  };
}

/** Whether a native run over a text of this length is cheap enough even in the worst case. */
export function nativeAffordable(n: NativeRegex, textLength: number): boolean {
  return textLength * n.weight <= NATIVE_MAX_WORK;
}

// NB: holds on to the last text checked (one string) until the next call.
let lastText: string | undefined;
let lastWellFormed = false;

/**
 * Whether a text may be matched natively: lone surrogates are code points to re2js but only code
 * units to the translation, so such (rare, non-UTF-8) texts go to re2js.
 */
export function nativeInput(s: string): boolean {
  // The same text usually meets many patterns in a row; checking a two-byte text costs ~0.3 µs/KB.
  if (s !== lastText) {
    lastWellFormed = isWellFormed!.call(s);
    lastText = s;
  }
  return lastWellFormed;
}
