import { describe, expect, it } from 'vitest';
import { matchesSelector, type LabelSelector } from './selector.js';

const labels = { team: 'travel', tier: 'gold' };

describe('matchesSelector', () => {
  it.each<{ name: string; selector: LabelSelector | undefined; match: boolean }>([
    { name: 'an absent selector matches everything', selector: undefined, match: true },
    { name: 'an empty selector matches everything', selector: {}, match: true },
    { name: 'matchLabels needs every pair', selector: { matchLabels: { team: 'travel', tier: 'gold' } }, match: true },
    {
      name: 'matchLabels fails on one other value',
      selector: { matchLabels: { team: 'travel', tier: 'silver' } },
      match: false,
    },
    {
      name: 'In matches a listed value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] },
      match: true,
    },
    {
      name: 'In fails on a missing label',
      selector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      match: false,
    },
    {
      name: 'NotIn matches a missing label',
      selector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      match: true,
    },
    {
      name: 'NotIn fails on a listed value',
      selector: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['travel'] }] },
      match: false,
    },
    {
      name: 'Exists needs the key',
      selector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] },
      match: true,
    },
    {
      name: 'DoesNotExist fails on a present key',
      selector: { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] },
      match: false,
    },
  ])('$name', ({ selector, match }) => {
    expect(matchesSelector(labels, selector)).toBe(match);
  });
});
