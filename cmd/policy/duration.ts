import { PolicyCliError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** A flag's duration as Go writes one (`5s`, `500ms`, `1.5s`, `2m`), in milliseconds; `flag` names it in the error. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text.trim());
  const ms = m ? Number(m[1]) * UNIT_MS[m[2]!]! : NaN;
  if (!(ms > 0) || ms > 3_600_000)
    throw new PolicyCliError(`${flag}: "${text}" is not a duration between 1ms and 1h, such as 5s or 500ms`);
  return ms;
}
