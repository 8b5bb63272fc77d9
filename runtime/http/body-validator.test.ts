import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  auditRequest,
  createClientRequest,
  executeRequest,
  gatewayRequest,
  policyTestRequest,
  preCheckRequest,
} from '../../api/http/gateway.js';
import { jsonObject, safeText } from '../../api/http/safe.js';
import { bodyCheck } from './body-validator.js';

const LONG = 'x'.repeat(200);
const ASTRAL = '😀';

/** Bodies a client may send: valid, missing fields, wrong types, extra keys, empty and astral strings, nulls. */
const bodies: unknown[] = [
  {},
  { client_id: 'app', user_token: 'u', query: 'What is the weather tomorrow?' },
  { client_id: 'app', user_token: 'u', query: '', context: { a: 1, b: [null] } },
  {
    client_id: 'app',
    user_token: 'u',
    query: 'q',
    context: { user_role: 'agent' },
    data_sources: ['db', 1],
    extra: { deep: true },
  },
  { client_id: '', user_token: 'u', query: 'q' },
  { client_id: ASTRAL, user_token: ASTRAL, query: ASTRAL },
  { client_id: 'app', user_token: 'u' },
  { client_id: 'app', user_token: 'u', query: 7 },
  { client_id: 'app', user_token: 'u', query: 'q', context: null },
  { client_id: 'app', user_token: 'u', query: 'q', context: ['a'] },
  { client_id: 'app', user_token: 'u', query: 'q', context: 'text' },
  { client_id: null, user_token: 'u', query: 'q' },
  { context_id: 'ctx_1' },
  { context_id: '' },
  {
    context_id: 'ctx_1',
    client_id: 'app',
    latency_ms: 12.5,
    tokens: { prompt: 3, completion: 4 },
    token_usage: { total_tokens: 7 },
    metadata: { k: 'v' },
  },
  { context_id: 'ctx_1', latency_ms: -1 },
  { context_id: 'ctx_1', tokens: { prompt: 1.5 } },
  { context_id: 'ctx_1', tokens: { prompt: 1, other: 2 } },
  { context_id: 'ctx_1', token_usage: { prompt_tokens: 2 ** 60 } },
  { context_id: 'ctx_1', metadata: [] },
  { context_id: 'ctx_1', provider: null },
  { query: 'q' },
  { query: 'q', context: { k: 1 }, extra: 1 },
  { query: 'q', request_type: 'chat' },
  { name: 'app' },
  { name: '' },
  { name: LONG },
  { name: 'app', description: ASTRAL.repeat(600) },
  { name: 'app', other: true },
  { prompt: 'hello', mode: 'chat' },
  { prompt: 'hello' },
  { prompt: '' },
  // strings PostgreSQL cannot store, numbers past an integer column, nested metadata (api/http/safe.ts)
  { client_id: 'app\u0000', user_token: 'u', query: 'q' },
  { client_id: 'app', user_token: 'u', query: 'q', context: { ['k\ud800']: 1 } },
  { client_id: 'app', user_token: 'u', query: 'q', context: { k: [{ deep: ['x\udc00'] }] } },
  { client_id: 'app', user_token: 'u', query: 'q', extra: 'x\u0000' },
  { context_id: 'ctx_1', tokens: { prompt: 2147483647 } },
  { context_id: 'ctx_1', tokens: { prompt: 2147483648 } },
  { context_id: 'ctx_1', metadata: { a: { b: [1, 'two', null, { c: true }] }, [ASTRAL]: ASTRAL } },
  { context_id: 'ctx_1', metadata: { a: { b: [1, 'tw\u0000o'] } } },
  { context_id: 'ctx_1', latency_ms: 86_400_001 },
  { name: 'x\u0000' },
  { name: 'app', description: '\ud83d' },
];

const schemas: Record<string, z.ZodType> = {
  preCheckRequest,
  auditRequest,
  policyTestRequest,
  createClientRequest,
  executeRequest,
  gatewayRequest,
};

describe('bodyCheck', () => {
  it('is compiled for the pre-check and audit bodies, the gateway hot path', () => {
    expect(bodyCheck(preCheckRequest)).toBeTypeOf('function');
    expect(bodyCheck(auditRequest)).toBeTypeOf('function');
    expect(bodyCheck(policyTestRequest)).toBeTypeOf('function');
    expect(bodyCheck(createClientRequest)).toBeTypeOf('function');
  });

  it('is not compiled where zod changes or checks more than JSON Schema states', () => {
    // defaults fill the output, transforms and refinements run code, lengths count differently
    expect(bodyCheck(executeRequest)).toBeUndefined();
    expect(bodyCheck(gatewayRequest)).toBeUndefined();
    expect(bodyCheck(z.object({ a: z.string().transform((s) => s.trim()) }))).toBeUndefined();
    expect(bodyCheck(z.object({ a: z.string().refine((s) => s !== 'x') }))).toBeUndefined();
    expect(bodyCheck(z.object({ a: z.string().email() }))).toBeUndefined();
    expect(bodyCheck(z.object({ a: z.string().regex(/^a/) }))).toBeUndefined();
    // a part JSON Schema cannot state: no check, and no error either
    expect(bodyCheck(z.object({ a: z.literal(1n) }))).toBeUndefined();
  });

  it.each(Object.entries(schemas))(
    'accepts only what zod accepts, and zod returns it unchanged (%s)',
    (_name, schema) => {
      const check = bodyCheck(schema);
      let accepted = 0;
      for (const body of bodies) {
        const parsed = schema.safeParse(body);
        if (check === undefined || !check(body)) continue;
        accepted++;
        expect(parsed.success, JSON.stringify(body)).toBe(true);
        expect(parsed.data, JSON.stringify(body)).toStrictEqual(body);
      }
      if (check !== undefined) expect(accepted).toBeGreaterThan(0);
    },
  );

  it('is compiled for a u-flagged pattern and a recursive JSON value, and agrees with zod on them', () => {
    const schema = z.object({ a: safeText(), m: jsonObject().optional() });
    const check = bodyCheck(schema)!;
    expect(check).toBeTypeOf('function');
    const cases = [
      { a: ASTRAL },
      { a: 'x\u0000' },
      { a: '\ud800' },
      { a: 'ok', m: { k: [[{ v: ASTRAL }]] } },
      { a: 'ok', m: { k: [[{ v: '\udfff' }]] } },
      { a: 'ok', m: { ['\u0000']: 1 } },
    ];
    for (const body of cases) expect(check(body), JSON.stringify(body)).toBe(schema.safeParse(body).success);
  });

  it('leaves to zod a body with a key zod would strip', () => {
    const strip = z.object({ a: z.string(), nested: z.object({ n: z.number() }).optional() });
    const check = bodyCheck(strip)!;
    expect(check({ a: 'x', nested: { n: 1 } })).toBe(true);
    expect(check({ a: 'x', b: 1 })).toBe(false);
    expect(check({ a: 'x', nested: { n: 1, m: 2 } })).toBe(false);
    expect(strip.parse({ a: 'x', b: 1 })).toStrictEqual({ a: 'x' });
  });

  it('counts code points, as zod does', () => {
    const schema = z.object({ a: z.string().min(1).max(2), b: z.array(z.string()).max(1).optional() });
    const check = bodyCheck(schema)!;
    for (const body of [
      { a: ASTRAL },
      { a: ASTRAL + ASTRAL },
      { a: '\ud800x' },
      { a: '' },
      { a: ASTRAL.repeat(3) },
      { a: 'x', b: ['1', '2'] },
    ]) {
      expect(check(body), JSON.stringify(body)).toBe(schema.safeParse(body).success);
    }
  });
});
