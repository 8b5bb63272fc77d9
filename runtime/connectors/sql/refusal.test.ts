import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SQL_REFUSALS } from './refusal.js';

describe('SQL guard refusal reasons', () => {
  it('lists the same reasons as docs/connectors.md', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../../docs/connectors.md', import.meta.url)), 'utf8');
    const section = doc.slice(doc.indexOf('Refusals are `SQL_REFUSED`'), doc.indexOf('## Errors'));
    const documented = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual([...SQL_REFUSALS].sort());
  });
});
