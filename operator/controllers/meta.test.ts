import { describe, expect, it } from 'vitest';
import { selects } from './meta.js';

describe('selects', () => {
  it.each([
    { name: 'selects everything without a selector', selector: undefined, labels: {}, result: true },
    {
      name: 'selects when all matchLabels hold',
      selector: { matchLabels: { team: 'a' } },
      labels: { team: 'a', x: 'y' },
      result: true,
    },
    {
      name: 'does not select when a matchLabel differs',
      selector: { matchLabels: { team: 'a' } },
      labels: { team: 'b' },
      result: false,
    },
    {
      name: 'applies In',
      selector: { matchExpressions: [{ key: 'tier', operator: 'In' as const, values: ['gold'] }] },
      labels: { tier: 'gold' },
      result: true,
    },
    {
      name: 'applies NotIn to an absent label as a match',
      selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn' as const, values: ['gold'] }] },
      labels: {},
      result: true,
    },
    {
      name: 'applies Exists',
      selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' as const }] },
      labels: {},
      result: false,
    },
    {
      name: 'applies DoesNotExist',
      selector: { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' as const }] },
      labels: { tier: 'x' },
      result: false,
    },
  ])('$name', ({ selector, labels, result }) =>
    expect(selects(selector, labels as Record<string, string>)).toBe(result),
  );
});
