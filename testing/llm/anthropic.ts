/** Fake Anthropic Messages server: `POST /v1/messages`, API versions 2023-06-01 and 2026-10-21. */
import { lastUserText, startFakeServer, words, type Answer, type FakeServerHandle, type Pacing, type RecordedRequest, type Scenario } from './server.js';

export interface FakeAnthropicOptions extends Pacing {
  /** The key the server accepts (as `x-api-key` or `Authorization: Bearer`); others get 401. */
  apiKey?: string;
}

export interface FakeAnthropicServer extends FakeServerHandle {
  /** Base URL for the SDK's `baseURL` (without `/v1`). */
  readonly baseURL: string;
}

const KNOWN_VERSIONS = new Set(['2023-06-01', '2026-10-21']);
/** API version 2026-10-21 removed the sampling parameters; sending any of them is a 400 even at defaults. */
const SAMPLING_PARAMS = ['temperature', 'top_p', 'top_k'];

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

let nextId = 1;

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropicServer> {
  const handle = await startFakeServer('http1', (req, scenario) => respond(req, scenario, options), options);
  return Object.assign(handle, { baseURL: handle.origin });
}

function error(status: number, message: string, retryAfterSec?: number): Answer {
  const headers: Record<string, string> = { 'request-id': `req_fake${nextId++}` };
  if (retryAfterSec !== undefined) headers['retry-after'] = String(retryAfterSec);
  return { status, headers, body: { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } } };
}

function presentedKey(req: RecordedRequest): string | undefined {
  // Both headers are accepted; when both are sent, x-api-key wins.
  if (req.headers['x-api-key']) return req.headers['x-api-key'];
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
}

function respond(req: RecordedRequest, scenario: Scenario | undefined, options: FakeAnthropicOptions): Answer | 'hang' {
  if (req.method !== 'POST' || req.path !== '/v1/messages') return error(404, `Not found: ${req.method} ${req.path}`);
  if (options.apiKey !== undefined && presentedKey(req) !== options.apiKey) return error(401, 'invalid x-api-key');
  const version = req.headers['anthropic-version'];
  if (!version) return error(400, 'anthropic-version: header is required');
  if (!KNOWN_VERSIONS.has(version)) return error(400, `anthropic-version: unknown version ${version}`);
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return error(400, 'Request body is not valid JSON');
  if (typeof body.model !== 'string') return error(400, 'model: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) return error(400, 'max_tokens: Field required');
  if (version === '2026-10-21') {
    const sampling = SAMPLING_PARAMS.find((p) => p in body);
    if (sampling) return error(400, `${sampling}: Extra inputs are not permitted`);
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) return error(400, 'messages: at least one message is required');
  for (const [i, m] of (body.messages as { role?: unknown }[]).entries()) {
    if (m?.role !== 'user' && m?.role !== 'assistant') {
      return error(400, `messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
  }
  if (scenario?.kind === 'hang') return 'hang';
  if (scenario?.kind === 'error') return error(scenario.status, scenario.message ?? `fake error ${scenario.status}`, scenario.retryAfterSec);
  if (scenario?.kind === 'malformed') return { status: 200, body: '<html>gateway</html>' };
  const text = scenario?.text ?? `Fake Anthropic reply to: ${lastUserText(body.messages)}`;
  const inputTokens =
    scenario?.usage?.promptTokens ??
    (body.messages as { content?: unknown }[]).reduce((n, m) => n + words(typeof m.content === 'string' ? m.content : lastUserText([{ role: 'user', content: m.content }])), 0);
  return {
    status: 200,
    headers: { 'request-id': `req_fake${nextId}` },
    body: {
      id: `msg_fake${nextId++}`,
      type: 'message',
      role: 'assistant',
      model: scenario?.model ?? body.model,
      content: [{ type: 'text', text }],
      stop_reason: scenario?.finish ?? 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: scenario?.usage?.cachedPromptTokens ?? 0,
        output_tokens: scenario?.usage?.completionTokens ?? words(text),
      },
    },
  };
}
