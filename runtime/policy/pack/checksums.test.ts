/**
 * The pack computes Luhn, ISO 13616 mod-97 and Verhoeff in Rego. These properties compare the Rego
 * functions with small JavaScript reference implementations on random inputs.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PolicySet } from '../../../rego/index.js';
import { loadPolicyManifests, toModules } from './index.js';

let set: PolicySet;

beforeAll(async () => {
  const pii = (await loadPolicyManifests()).filter((p) => p.type === 'pii');
  set = PolicySet.compile(toModules(pii));
});

const holds = (fn: string, arg: string) =>
  set.prepared.query(`data.steward.builtin.pii.${fn}(${JSON.stringify(arg)})`).length > 0;
const value = (fn: string, arg: string) =>
  set.prepared.query(`x := data.steward.builtin.pii.${fn}(${JSON.stringify(arg)})`)[0]?.x;

function luhn(d: string): boolean {
  let sum = 0;
  [...d].reverse().forEach((c, i) => {
    let x = Number(c);
    if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
    sum += x;
  });
  return sum % 10 === 0;
}

function mod97(iban: string): number {
  const moved = iban.slice(4) + iban.slice(0, 4);
  const digits = moved.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return Number(BigInt(digits) % 97n);
}

const D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 2, 4, 1],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 7, 6, 8, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
function verhoeff(d: string): boolean {
  let c = 0;
  [...d].reverse().forEach((ch, i) => (c = D[c]![P[i % 8]![Number(ch)]!]!));
  return c === 0;
}

const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((a) => a.join(''));
const ibanLike = fc
  .tuple(
    fc.constantFrom('DE', 'GB', 'FR', 'NL', 'MT', 'LC'),
    digits(2, 2),
    fc.array(fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'), { minLength: 11, maxLength: 30 }),
  )
  .map(([cc, check, rest]) => cc + check + rest.join(''));

describe('checksums computed in Rego', () => {
  it('Luhn agrees with the reference on 13-19 digit numbers', () => {
    fc.assert(
      fc.property(digits(13, 19), (d) => holds('luhn', d) === luhn(d)),
      { numRuns: 300 },
    );
  });

  it('mod-97 agrees with the reference (BigInt) on IBAN-shaped strings up to 34 characters', () => {
    fc.assert(
      fc.property(ibanLike, (s) => value('iban_mod97', s) === mod97(s)),
      { numRuns: 300 },
    );
  });

  it('Verhoeff agrees with the reference on 12-digit numbers', () => {
    fc.assert(
      fc.property(digits(12, 12), (d) => holds('verhoeff', d) === verhoeff(d)),
      { numRuns: 300 },
    );
  });

  it.each([
    ['luhn', '4111111111111111', true],
    ['luhn', '4111111111111112', false],
    ['verhoeff', '234123412346', true],
    ['verhoeff', '234123412347', false],
  ])('%s(%s) is %s', (fn, arg, expected) => {
    expect(holds(fn, arg)).toBe(expected);
  });

  it.each([
    ['GB82WEST12345698765432', 1],
    ['DE89370400440532013000', 1],
    ['DE89370400440532013001', mod97('DE89370400440532013001')],
  ])('iban_mod97(%s) is %d', (iban, expected) => {
    expect(value('iban_mod97', iban)).toBe(expected);
  });
});
