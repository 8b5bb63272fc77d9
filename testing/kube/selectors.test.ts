import { describe, expect, it } from 'vitest';
import { isApiError } from './status-errors.js';
import {
  fromLabelSelectorObject,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from './selectors.js';

const labels = { app: 'web', tier: 'front', version: '3', 'example.com/team': 'a' };

describe('label selectors', () => {
  it.each([
    { name: 'equality with =', sel: 'app=web', match: true },
    { name: 'equality with ==', sel: 'app==web', match: true },
    { name: 'inequality of a present label', sel: 'app!=web', match: false },
    { name: 'inequality of a missing label matches', sel: 'missing!=x', match: true },
    { name: 'set membership', sel: 'tier in (front, back)', match: true },
    { name: 'set membership of a missing label', sel: 'missing in (a)', match: false },
    { name: 'notin excludes', sel: 'tier notin (front)', match: false },
    { name: 'notin of a missing label matches', sel: 'missing notin (a)', match: true },
    { name: 'existence', sel: 'app', match: true },
    { name: 'non-existence', sel: '!app', match: false },
    { name: 'greater than', sel: 'version>2', match: true },
    { name: 'less than', sel: 'version<3', match: false },
    { name: 'prefixed keys', sel: 'example.com/team=a', match: true },
    { name: 'conjunction of all forms', sel: 'app=web, tier in (front),!gone,version>1', match: true },
    { name: 'empty selector selects everything', sel: '', match: true },
  ])('$name', ({ sel, match }) => {
    expect(matchesLabels(parseLabelSelector(sel), labels)).toBe(match);
  });

  it.each([
    { name: 'rejects an unterminated set', sel: 'a in (x' },
    { name: 'rejects an invalid key', sel: 'bad key=1' },
    { name: 'rejects an invalid value', sel: 'a=-bad-' },
    { name: 'rejects a non-integer comparison', sel: 'a>x' },
    { name: 'rejects a dangling operator', sel: 'a=b,' },
  ])('$name with 400 BadRequest', ({ sel }) => {
    try {
      parseLabelSelector(sel);
      expect.unreachable();
    } catch (e) {
      expect(isApiError(e) && e.status.code === 400 && e.status.reason === 'BadRequest').toBe(true);
      expect((e as Error).message).toMatch(/^unable to parse requirement: /);
    }
  });

  it('builds the structured selector form (matchLabels and matchExpressions)', () => {
    const sel = fromLabelSelectorObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'NotIn', values: ['db'] },
        { key: 'gone', operator: 'DoesNotExist' },
      ],
    });
    expect(matchesLabels(sel, labels)).toBe(true);
    expect(matchesLabels(sel, { app: 'web', tier: 'db' })).toBe(false);
  });
});

describe('field selectors', () => {
  const fields: Record<string, string> = { 'metadata.name': 'a,b', 'status.phase': 'Running' };
  const get = (f: string): string | undefined => fields[f];

  it('matches equality and inequality, with escaped commas', () => {
    expect(matchesFields(parseFieldSelector('metadata.name=a\\,b,status.phase!=Pending'), get)).toBe(true);
    expect(matchesFields(parseFieldSelector('status.phase==Pending'), get)).toBe(false);
  });

  it('rejects a term without an operator', () => {
    expect(() => parseFieldSelector('metadata.name')).toThrow(
      /invalid selector: 'metadata.name'; can't understand 'metadata.name'/,
    );
  });
});
