import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDigest } from '../audit/canonical.js';
import { rowDigest, type ChainedRow } from './audit-digest.js';
import { storable } from './group-insert.js';

/** The digest's definition: the canonical JSON of the row as the JSON round trip with `storable` leaves it. */
const reference = (row: ChainedRow) => canonicalDigest(JSON.parse(JSON.stringify(row, storable)) as unknown);

/** The digest's hex, or the reason it has none (a metadata key with a lone surrogate: keys are not made storable). */
function outcome(digest: (r: ChainedRow) => Buffer, r: ChainedRow): string {
  try {
    return digest(r).toString('hex');
  } catch (err) {
    return `throws ${(err as { reason?: string }).reason}`;
  }
}

const text = fc.oneof(
  fc.string({ unit: 'binary' }), // lone surrogates included
  fc.constantFrom('', '\0', 'a\0b', '\uD800', 'x\uDC00y', 'é ✓ 😀', '"\\\n\t\u2028'),
);
const textOrNull = fc.option(text, { nil: null });
const num = fc.option(fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-0, 0.1, 1e21, Number.NaN)), { nil: null });

const row: fc.Arbitrary<ChainedRow> = fc.record({
  id: text,
  organization_id: text,
  client_id: text,
  context_id: textOrNull,
  user_token: textOrNull,
  provider: textOrNull,
  model: textOrNull,
  prompt: textOrNull,
  response: textOrNull,
  latency_ms: num,
  prompt_tokens: num,
  completion_tokens: num,
  total_tokens: num,
  metadata: fc.dictionary(text, fc.jsonValue()) as fc.Arbitrary<Record<string, unknown>>,
  created_at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
});

describe('rowDigest', () => {
  it('is the canonical digest of the row as stored, for any row (strings made storable, non-finite numbers null)', () => {
    fc.assert(
      fc.property(row, (r) => {
        expect(outcome(rowDigest, r)).toBe(outcome(reference, r));
      }),
      { numRuns: 500 },
    );
  });

  it('changes with any column, the metadata included', () => {
    const base: ChainedRow = {
      id: 'aud_1',
      organization_id: 'org',
      client_id: 'c',
      context_id: null,
      user_token: null,
      provider: 'openai',
      model: 'm',
      prompt: 'p',
      response: 'r',
      latency_ms: 1.5,
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
      metadata: { a: [1, undefined] },
      created_at: '2026-12-02T00:00:00.000Z',
    };
    const digest = rowDigest(base).toString('hex');
    expect(rowDigest({ ...base, response: 'R' }).toString('hex')).not.toBe(digest);
    expect(rowDigest({ ...base, metadata: { a: [1, null, 2] } }).toString('hex')).not.toBe(digest);
    expect(rowDigest({ ...base, metadata: { a: [1, null] } }).toString('hex')).toBe(digest);
  });
});
