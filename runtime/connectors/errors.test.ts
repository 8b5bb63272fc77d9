import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONNECTOR_ERROR_CODES, ConnectorError } from './errors.js';

describe('connector error catalogue', () => {
  it('lists the same codes as docs/connectors.md', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../docs/connectors.md', import.meta.url)), 'utf8');
    // NB: the section only, up to the next heading of its level: later sections have tables of their own.
    const start = doc.indexOf('## Errors');
    const end = doc.indexOf('\n## ', start + 1);
    const section = doc.slice(start, end === -1 ? undefined : end);
    const documented = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(Object.keys(CONNECTOR_ERROR_CODES).sort());
  });

  it('serialises code, message and reason, never the cause', () => {
    const e = new ConnectorError('SQL_REFUSED', 'statement refused: x', {
      reason: 'STACKED_QUERIES',
      connector: 'db',
      cause: new Error('postgres://u:pw@h/db'),
    });
    expect(JSON.stringify(e)).toBe(
      '{"code":"SQL_REFUSED","message":"statement refused: x","reason":"STACKED_QUERIES","connector":"db"}',
    );
  });
});
