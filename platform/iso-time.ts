/** The last timestamps formatted, by epoch millisecond: two slots (a row's created_at and expires_at). */
const ms: [number, number] = [NaN, NaN];
const text: [string, string] = ['', ''];
let next = 0;

/**
 * `date.toISOString()`, remembered for the last two instants: under load many rows in a row share their
 * millisecond, and formatting a Date costs more than the rest of a context row's encoding.
 */
export function isoTimestamp(date: Date): string {
  const t = date.getTime();
  if (t === ms[0]) return text[0];
  if (t === ms[1]) return text[1];
  const s = date.toISOString();
  ms[next] = t;
  text[next] = s;
  next ^= 1;
  return s;
}
