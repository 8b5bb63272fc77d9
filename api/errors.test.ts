import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUES } from './errors.js';

/** Reads `## <surface>:` sections of docs/errors.md into code → status maps. */
function documented(): Record<string, Record<string, number>> {
  const text = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  const out: Record<string, Record<string, number>> = {};
  let section: Record<string, number> | undefined;
  for (const line of text.split('\n')) {
    const heading = /^## (\w+):/.exec(line);
    if (heading) section = out[heading[1]!] = {};
    const row = /^\| `([A-Z][A-Z0-9_]*)` \| (\d{3}) \|/.exec(line);
    if (row && section) section[row[1]!] = Number(row[2]);
  }
  return out;
}

describe('error catalogues', () => {
  const docs = documented();
  it.each(Object.keys(ERROR_CATALOGUES))('docs/errors.md lists exactly the %s codes with their statuses', (surface) => {
    const catalogue = ERROR_CATALOGUES[surface as keyof typeof ERROR_CATALOGUES];
    const expected = Object.fromEntries(Object.entries(catalogue).map(([code, spec]) => [code, spec.status]));
    expect(docs[surface]).toEqual(expected);
  });

  it('documents no surface that the code does not have', () => {
    expect(Object.keys(docs).sort()).toEqual(Object.keys(ERROR_CATALOGUES).sort());
  });

  it.each(
    Object.entries(ERROR_CATALOGUES).flatMap(([s, c]) => Object.entries(c).map(([code, spec]) => ({ s, code, spec }))),
  )('$s $code has a 4xx or 5xx status', ({ spec }) => {
    expect(spec.status).toBeGreaterThanOrEqual(400);
    expect(spec.status).toBeLessThan(600);
  });
});
