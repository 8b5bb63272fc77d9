/** A short state word with a tone; the word carries the meaning, the colour only repeats it. */
import { NONE } from '../format';

export type Tone = 'good' | 'warn' | 'bad' | 'plain';

const TONES: [RegExp, Tone][] = [
  [/^(blocked|blocked_input|blocked_output|refused|failed|denied|unhealthy|provider_error|drifted)$/, 'bad'],
  [/^(redacted|warn|warning|audit|exempted|approval_required|parked|starting|pending|held|fallback|draining)$/, 'warn'],
  [/^(allowed|approved|compiled|healthy|ok|pinned)$/, 'good'],
];

/** The tone of a decision, health or state word as the API writes it. */
export const toneOf = (word: string): Tone => TONES.find(([re]) => re.test(word))?.[1] ?? 'plain';

export function Badge({ text, tone }: { text?: string; tone?: Tone }) {
  if (!text) return <>{NONE}</>;
  return <span class={`badge ${tone ?? toneOf(text)}`}>{text}</span>;
}
