import Fastify, { errorCodes } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Surface } from '../../api/index.js';
import { anthropicErrorBody } from '../gateway/routes/anthropic-compat.js';
import { openAiErrorBody } from '../gateway/routes/openai-compat.js';
import { AuditFailedError, PolicyBlockedError } from '../governed/errors.js';
import { LlmAbortedError, LlmNotConfiguredError, LlmProviderError, LlmTimeoutError } from '../llm/errors.js';
import { ERROR_BODIES, installErrorHandler } from './error-handler.js';
import { errorAnswer, MAX_MESSAGE_CHARS, type ErrorBodyRenderer, type ErrorMapping } from './error-model.js';
import { ApiError } from './errors.js';
import type { PolicyEvaluation } from '../policy/types.js';

type Body = Record<string, unknown>;
/** The `error` object of the envelope, OpenAI and Anthropic shapes. */
const inner = (b: Body) => b.error as Body;

/** Every body shape Steward answers errors in, with the catalogue it answers from and where its code stands. */
const RENDERERS = {
  gateway: { mapping: { surface: 'gateway' }, render: ERROR_BODIES.agent, code: (b: Body) => b.code },
  plan: { mapping: { surface: 'plan' }, render: ERROR_BODIES.envelope, code: (b: Body) => inner(b).code },
  parallel: { mapping: { surface: 'parallel' }, render: ERROR_BODIES.envelope, code: (b: Body) => inner(b).code },
  agent: { mapping: { surface: 'agent' }, render: ERROR_BODIES.envelope, code: (b: Body) => inner(b).code },
  openai: {
    mapping: { surface: 'gateway', passUpstream: true },
    render: openAiErrorBody,
    code: (b: Body) => String(inner(b).code).toUpperCase(),
  },
  anthropic: {
    mapping: { surface: 'gateway', passUpstream: true },
    render: anthropicErrorBody,
    code: (b: Body) => inner(b).code,
  },
} satisfies Record<string, { mapping: ErrorMapping; render: ErrorBodyRenderer; code: (b: Body) => unknown }>;

type Renderer = keyof typeof RENDERERS;

const upstream = (status: number, retryAfterSec?: number) =>
  new ApiError(
    'gateway',
    'PROVIDER_ERROR',
    'the LLM provider openai failed',
    { provider: 'openai', status },
    {
      cause: new LlmProviderError('openai', status === 429 ? 'RATE_LIMITED' : 'BAD_REQUEST', 'refused', {
        status,
        retryAfterSec,
      }),
    },
  );

const validation = () =>
  Object.assign(new Error('body/model must be string'), {
    validation: [{ message: 'must be string' }],
    statusCode: 400,
  });

/** `<status> <CODE>` as each renderer answers, or `none` where nobody is answered. */
type Want = Record<Renderer, string>;
const same = (answer: string): Want => ({
  gateway: answer,
  plan: answer,
  parallel: answer,
  agent: answer,
  openai: answer,
  anthropic: answer,
});

const evaluation: PolicyEvaluation = {
  approved: false,
  triggered: ['builtin-pii'],
  evaluated: ['builtin-pii'],
  results: [{ policy: 'builtin-pii', mode: 'enforce', would: 'block', decision: 'block' }],
  warnings: [],
  logged: [],
  blockReason: 'builtin-pii: a US SSN',
  evaluationMs: 0.1,
};

const cases: { name: string; err: () => unknown; want: Want }[] = [
  {
    name: "the governed pipeline's blocked input is a policy violation, named like the ApiError one",
    err: () => new PolicyBlockedError('input', evaluation, 'ctx_1'),
    want: {
      gateway: '403 POLICY_VIOLATION',
      plan: '403 POLICY_VIOLATION',
      parallel: '403 POLICY_VIOLATION',
      agent: '400 INVALID_REQUEST',
      openai: '403 POLICY_VIOLATION',
      anthropic: '403 POLICY_VIOLATION',
    },
  },
  {
    name: 'a blocked answer is a policy violation too',
    err: () => new PolicyBlockedError('output', evaluation, 'ctx_1'),
    want: {
      gateway: '403 POLICY_VIOLATION',
      plan: '403 POLICY_VIOLATION',
      parallel: '403 POLICY_VIOLATION',
      agent: '400 INVALID_REQUEST',
      openai: '403 POLICY_VIOLATION',
      anthropic: '403 POLICY_VIOLATION',
    },
  },
  {
    name: 'an answer that could not be audited is a retryable 503',
    err: () => new AuditFailedError('aud_1'),
    want: {
      gateway: '503 AUDIT_FAILED',
      plan: '503 SERVICE_UNAVAILABLE',
      parallel: '503 ORCHESTRATOR_UNAVAILABLE',
      agent: '503 AGENT_CLOSING',
      openai: '503 AUDIT_FAILED',
      anthropic: '503 AUDIT_FAILED',
    },
  },
  {
    name: "the LLM layer's own errors map to the provider codes, and by status where a catalogue has none",
    err: () => new LlmTimeoutError('openai', 30_000),
    want: {
      gateway: '504 PROVIDER_TIMEOUT',
      plan: '504 PROVIDER_TIMEOUT',
      parallel: '504 QUERY_TIMEOUT',
      agent: '500 INTERNAL_ERROR',
      openai: '504 PROVIDER_TIMEOUT',
      anthropic: '504 PROVIDER_TIMEOUT',
    },
  },
  {
    name: 'a provider that is not configured is a 503',
    err: () => new LlmNotConfiguredError('bedrock', ['openai']),
    want: {
      gateway: '503 PROVIDER_NOT_CONFIGURED',
      plan: '503 PROVIDER_NOT_CONFIGURED',
      parallel: '503 ORCHESTRATOR_UNAVAILABLE',
      agent: '503 AGENT_CLOSING',
      openai: '503 PROVIDER_NOT_CONFIGURED',
      anthropic: '503 PROVIDER_NOT_CONFIGURED',
    },
  },
  {
    name: 'a policy violation is 403 where the catalogue has it, the same status (or a 400) where not',
    err: () => new ApiError('gateway', 'POLICY_VIOLATION', 'blocked by policy: pii', { block_reason: 'pii' }),
    want: {
      gateway: '403 POLICY_VIOLATION',
      plan: '403 POLICY_VIOLATION',
      parallel: '403 POLICY_VIOLATION',
      agent: '400 INVALID_REQUEST',
      openai: '403 POLICY_VIOLATION',
      anthropic: '403 POLICY_VIOLATION',
    },
  },
  {
    name: 'a rate limit is a 429 in every catalogue',
    err: () =>
      new ApiError('gateway', 'RATE_LIMITED', 'slow down', { limit: 10 }, { headers: { 'retry-after': '30' } }),
    want: {
      gateway: '429 RATE_LIMITED',
      plan: '429 RATE_LIMITED',
      parallel: '429 RATE_LIMIT_EXCEEDED',
      agent: '429 AGENT_BUSY',
      openai: '429 RATE_LIMITED',
      anthropic: '429 RATE_LIMITED',
    },
  },
  {
    name: "an upstream 429 is a 502 on Steward's own shapes and passes on the compatible ones",
    err: () => upstream(429, 7),
    want: {
      gateway: '502 PROVIDER_ERROR',
      plan: '502 PROVIDER_ERROR',
      parallel: '502 AGENT_COMMUNICATION_ERROR',
      agent: '500 INTERNAL_ERROR',
      openai: '429 PROVIDER_ERROR',
      anthropic: '429 PROVIDER_ERROR',
    },
  },
  {
    name: 'an upstream 404 passes on the compatible shapes',
    err: () => upstream(404),
    want: {
      gateway: '502 PROVIDER_ERROR',
      plan: '502 PROVIDER_ERROR',
      parallel: '502 AGENT_COMMUNICATION_ERROR',
      agent: '500 INTERNAL_ERROR',
      openai: '404 PROVIDER_ERROR',
      anthropic: '404 PROVIDER_ERROR',
    },
  },
  {
    name: 'an upstream 500 is a 502 everywhere',
    err: () => upstream(500),
    want: {
      gateway: '502 PROVIDER_ERROR',
      plan: '502 PROVIDER_ERROR',
      parallel: '502 AGENT_COMMUNICATION_ERROR',
      agent: '500 INTERNAL_ERROR',
      openai: '502 PROVIDER_ERROR',
      anthropic: '502 PROVIDER_ERROR',
    },
  },
  {
    name: "another surface's code becomes this surface's code of its status",
    err: () => new ApiError('plan', 'PLANNING_TIMEOUT', 'the plan took too long'),
    want: {
      gateway: '408 PLANNING_TIMEOUT',
      plan: '408 PLANNING_TIMEOUT',
      parallel: '408 REQUEST_TIMEOUT',
      agent: '408 REQUEST_TIMEOUT',
      openai: '408 PLANNING_TIMEOUT',
      anthropic: '408 PLANNING_TIMEOUT',
    },
  },
  {
    name: 'a body that is not JSON is INVALID_JSON where the catalogue has it',
    err: () => new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(),
    want: {
      gateway: '400 INVALID_JSON',
      plan: '400 INVALID_REQUEST',
      parallel: '400 INVALID_REQUEST',
      agent: '400 INVALID_REQUEST',
      openai: '400 INVALID_JSON',
      anthropic: '400 INVALID_JSON',
    },
  },
  {
    name: 'an empty JSON body is INVALID_JSON where the catalogue has it',
    err: () => new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(),
    want: {
      gateway: '400 INVALID_JSON',
      plan: '400 INVALID_REQUEST',
      parallel: '400 INVALID_REQUEST',
      agent: '400 INVALID_REQUEST',
      openai: '400 INVALID_JSON',
      anthropic: '400 INVALID_JSON',
    },
  },
  {
    name: 'a body over the limit is 413 PAYLOAD_TOO_LARGE',
    err: () => new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(),
    want: same('413 PAYLOAD_TOO_LARGE'),
  },
  {
    name: 'a Content-Type no route reads is 415 UNSUPPORTED_MEDIA_TYPE',
    err: () => new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(),
    want: same('415 UNSUPPORTED_MEDIA_TYPE'),
  },
  { name: 'a schema validation failure is 400 INVALID_REQUEST', err: validation, want: same('400 INVALID_REQUEST') },
  {
    name: 'a request stream error is 400 INVALID_REQUEST',
    err: () => Object.assign(new Error('aborted'), { statusCode: 400 }),
    want: same('400 INVALID_REQUEST'),
  },
  {
    name: 'an error nobody mapped is 500 INTERNAL_ERROR',
    err: () => new Error('db password is hunter2'),
    want: same('500 INTERNAL_ERROR'),
  },
  { name: 'a client that went away is answered nothing', err: () => new LlmAbortedError('openai'), want: same('none') },
];

const answer = (renderer: Renderer, err: unknown) => {
  const r = RENDERERS[renderer];
  return errorAnswer(err, r.mapping, r.render, 'req-1');
};

describe('the error mapping, once for every renderer', () => {
  it.each(
    cases.flatMap((c) =>
      (Object.keys(RENDERERS) as Renderer[]).map((renderer) => ({ ...c, renderer, expected: c.want[renderer] })),
    ),
  )('$name ($renderer: $expected)', ({ err, renderer, expected }) => {
    const a = answer(renderer, err());
    expect(a ? `${a.status} ${RENDERERS[renderer].code(a.body)}` : 'none').toBe(expected);
  });

  it.each(Object.keys(RENDERERS) as Renderer[])(
    '%s: a re-mapped code keeps the original in details.reason_code',
    (renderer) => {
      const a = answer(renderer, new ApiError('gateway', 'POLICY_VIOLATION', 'blocked', { block_reason: 'pii' }))!;
      const details = renderer === 'gateway' ? a.body.details : inner(a.body).details;
      const remapped = renderer === 'agent';
      expect(details).toEqual(
        remapped ? { block_reason: 'pii', reason_code: 'POLICY_VIOLATION' } : { block_reason: 'pii' },
      );
    },
  );

  it.each(Object.keys(RENDERERS) as Renderer[])('%s: the error’s own headers go with the answer', (renderer) => {
    expect(answer(renderer, cases.find((c) => c.name.startsWith('a rate limit'))!.err())!.headers).toEqual({
      'retry-after': '30',
    });
  });

  it.each([
    { renderer: 'gateway' as const, headers: undefined },
    { renderer: 'openai' as const, headers: { 'retry-after': '7' } },
    { renderer: 'anthropic' as const, headers: { 'retry-after': '7' } },
  ])("$renderer: an upstream 429's Retry-After goes where the 429 does", ({ renderer, headers }) => {
    expect(answer(renderer, upstream(429, 7))!.headers).toEqual(headers);
  });

  it.each(Object.keys(RENDERERS) as Renderer[])(
    '%s: a long message is cut to MAX_MESSAGE_CHARS and counted',
    (renderer) => {
      const body = JSON.stringify(answer(renderer, new ApiError('gateway', 'INVALID_REQUEST', 'x'.repeat(5000)))!.body);
      expect(body).toContain(`${'x'.repeat(MAX_MESSAGE_CHARS)}… (${5000 - MAX_MESSAGE_CHARS} more characters)`);
      expect(body).not.toContain('x'.repeat(MAX_MESSAGE_CHARS + 1));
    },
  );

  it.each(Object.keys(RENDERERS) as Renderer[])('%s: an unmapped error says nothing of itself', (renderer) => {
    expect(JSON.stringify(answer(renderer, new Error('db password is hunter2'))!.body)).not.toContain('hunter2');
  });
});

describe('installErrorHandler', () => {
  const app = (mapping: Surface | ErrorMapping, style: Parameters<typeof installErrorHandler>[2], err: unknown) => {
    const a = Fastify();
    installErrorHandler(a, mapping, style);
    a.get('/', async () => {
      throw err;
    });
    return a;
  };

  it('answers a renderer’s body with the mapped status and headers', async () => {
    const res = await app({ surface: 'gateway', passUpstream: true }, openAiErrorBody, upstream(429, 7)).inject({
      method: 'GET',
      url: '/',
    });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.json()).toEqual(answer('openai', upstream(429, 7))!.body);
  });

  it("answers a style's body in the surface's catalogue", async () => {
    const res = await app('parallel', 'envelope', new ApiError('gateway', 'RATE_LIMITED', 'slow down')).inject({
      method: 'GET',
      url: '/',
    });
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('RATE_LIMIT_EXCEEDED');
  });
});

describe('ApiError', () => {
  it("refuses a code outside the surface's catalogue, at compile time and at run time", () => {
    // @ts-expect-error a misspelt code does not compile
    expect(() => new ApiError('gateway', 'POLICY_VIOLATOIN', 'blocked')).toThrow('not in the gateway catalogue');
    // @ts-expect-error another surface's code does not compile either
    expect(() => new ApiError('parallel', 'AUDIT_FAILED', 'not recorded')).toThrow('not in the parallel catalogue');
  });
});
