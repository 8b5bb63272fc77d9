/** How the console writes figures and times: in the reader's locale, with a dash for what is not there. */

export const NONE = '—';

const count = new Intl.NumberFormat();
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const usd = new Intl.NumberFormat(undefined, {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  // NB: one call often costs a fraction of a cent
  maximumFractionDigits: 6,
});

export const formatCount = (n: number | null | undefined): string =>
  typeof n === 'number' && Number.isFinite(n) ? count.format(n) : NONE;

export const formatUsd = (n: number | null | undefined): string =>
  typeof n === 'number' && Number.isFinite(n) ? usd.format(n) : NONE;

/** Milliseconds: one decimal below 10 ms, whole above. */
export function formatMs(n: number | null | undefined): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return NONE;
  return `${n < 10 ? n.toFixed(1) : count.format(Math.round(n))} ms`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return NONE;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : dateTime.format(t);
}

/** A duration in seconds as words: `1 minute`, `15 minutes`, `2 hours`. */
export function formatSeconds(s: number): string {
  const [n, unit] = s % 3600 === 0 ? [s / 3600, 'hour'] : s % 60 === 0 ? [s / 60, 'minute'] : [s, 'second'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** The value of a `<input type="datetime-local">` for an instant, in the reader's time zone. */
export function toLocalInput(iso: string | null): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(t)) return '';
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The instant a `datetime-local` value means, as RFC 3339; a value that is no date is passed on as it is. */
export function fromLocalInput(value: string): string {
  const t = new Date(value);
  return Number.isNaN(t.getTime()) ? value : t.toISOString();
}
