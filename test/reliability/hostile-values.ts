/**
 * Seeded generators of request bodies: the right field names with hostile values (NUL, lone surrogates, huge
 * numbers, deep nesting, long strings, wrong types, extra keys). Bodies are built as JSON text so that depths
 * JSON.stringify cannot reach still go out.
 */
import fc from 'fast-check';

/** Every field name a Steward request body knows (api/http/*.ts), plus the AgentConfig manifest's. */
export const FIELD_NAMES = [
  'client_id',
  'user_token',
  'query',
  'context',
  'data_sources',
  'context_id',
  'prompt',
  'response',
  'response_summary',
  'provider',
  'model',
  'latency_ms',
  'tokens',
  'token_usage',
  'metadata',
  'name',
  'description',
  'mode',
  'request_type',
  'temperature',
  'max_tokens',
  'apiVersion',
  'kind',
  'spec',
  'domain',
  'execution_mode',
  'user',
] as const;

/** A placeholder the body text replaces with a 10,000-level nested value. */
const DEEP = '\u0001deep\u0001';
export const DEEP_LEVELS = 10_000;
export const LONG_STRING_MAX = 40_000;

const hostileString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\ud83d',
    '\u202e\u200b\ufeff',
    'ß\u0301🙂👩‍👩‍👧',
    '\\',
    '"',
    '%00',
    '${x}',
    '../../etc/passwd',
    "' OR 1=1 --",
    '<script>',
  ),
  // NB: pathological repeats for the policy pack's regular expressions ("\n", "union/**/select ") are
  // hostile-policies.test.ts's; here they would only make every run as slow as the slowest regex.
  fc
    .tuple(
      fc.constantFrom('a', '\u0000', '\ud800', 'é', '🙂', 'ab\u0000\udc00'),
      fc.integer({ min: 201, max: LONG_STRING_MAX }),
    )
    .map(([c, n]) => c.repeat(Math.ceil(n / c.length))),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(
    2_147_483_648,
    2 ** 53,
    2 ** 53 + 2,
    -1,
    -0,
    0,
    1e308,
    -1e308,
    5e-324,
    0.5,
    4_294_967_296,
    -2_147_483_649,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A JSON value with hostile leaves; `deep` marks a 10,000-level nesting. */
const leaf = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.constant<unknown>(DEEP) },
);
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        hostileString.filter((s) => s.length < 300),
        fc.constantFrom(...FIELD_NAMES, '__proto__', 'constructor'),
      ),
      tie('v'),
      { maxKeys: 4 },
    ),
  ),
})).v;

/** A body: mostly the known field names (so validation passes often and the handler runs), some extra keys. */
export const bodyArbitrary: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    known: fc.dictionary(fc.constantFrom(...FIELD_NAMES), value, { maxKeys: 8 }),
    validish: fc.dictionary(
      fc.constantFrom('client_id', 'user_token', 'query', 'context_id', 'name', 'prompt'),
      hostileString,
      { minKeys: 1, maxKeys: 6 },
    ),
    extra: fc.dictionary(
      hostileString.filter((s) => s.length < 300),
      value,
      { maxKeys: 2 },
    ),
  })
  .map(({ known, validish, extra }) => ({ ...extra, ...known, ...validish }));

/** The text of a body, the deep placeholder expanded. */
export function bodyText(body: unknown): string {
  const text = JSON.stringify(body);
  const marker = JSON.stringify(DEEP);
  if (!text.includes(marker)) return text;
  const deep = '{"a":['.repeat(DEEP_LEVELS / 2) + '1' + ']}'.repeat(DEEP_LEVELS / 2);
  return text.split(marker).join(deep);
}

/** Seeded samples of the body arbitrary. */
export function sampleBodies(seed: number, count: number): Record<string, unknown>[] {
  return fc.sample(bodyArbitrary, { seed, numRuns: count });
}

/** Every string (values and keys) longer than `min` characters in a value; the deep placeholder excluded. */
export function longStrings(v: unknown, min = 200, out: string[] = []): string[] {
  if (typeof v === 'string') {
    if (v.length > min) out.push(v);
  } else if (Array.isArray(v)) {
    for (const x of v) longStrings(x, min, out);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k.length > min) out.push(k);
      longStrings(x, min, out);
    }
  }
  return out;
}

/** Whether `text` holds more than `max` characters of `input` in a row (checked at its start, middle and end). */
export function echoes(text: string, input: string, max = 200): boolean {
  if (input.length <= max) return false;
  const at = [0, Math.floor((input.length - max - 1) / 2), input.length - max - 1];
  return at.some((i) => text.includes(input.slice(i, i + max + 1)));
}

/** A stable number per route, mixed into the seed so that each route gets its own sequence. */
export function routeSeed(seed: number, route: string): number {
  let h = seed | 0;
  for (let i = 0; i < route.length; i++) h = (Math.imul(h, 31) + route.charCodeAt(i)) | 0;
  return h;
}
