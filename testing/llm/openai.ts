/** Fake OpenAI Chat Completions server: `POST /v1/chat/completions` with Bearer auth. */
import { lastUserText, startFakeServer, words, type Answer, type FakeServerHandle, type Pacing, type RecordedRequest, type Scenario } from './server.js';

let nextId = 1;

export interface FakeOpenAiOptions extends Pacing {
  /** The key the server accepts; any other (or none) gets 401 as from api.openai.com. */
  apiKey?: string;
}

export interface FakeOpenAiServer extends FakeServerHandle {
  /** Base URL for the SDK's `baseURL` (includes `/v1`). */
  readonly baseURL: string;
}

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
  const handle = await startFakeServer('http1', (req, scenario) => respond(req, scenario, options), options);
  return Object.assign(handle, { baseURL: `${handle.origin}/v1` });
}

function error(status: number, message: string, extra: { param?: string; retryAfterSec?: number } = {}): Answer {
  const t = ERROR_TYPES[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return {
    status,
    headers: extra.retryAfterSec !== undefined ? { 'retry-after': String(extra.retryAfterSec) } : {},
    body: { error: { message, type: t.type, param: extra.param ?? null, code: t.code } },
  };
}

function respond(req: RecordedRequest, scenario: Scenario | undefined, options: FakeOpenAiOptions): Answer | 'hang' {
  if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return error(404, `Invalid URL (${req.method} ${req.path})`);
  const auth = req.headers.authorization;
  if (options.apiKey !== undefined && auth !== `Bearer ${options.apiKey}`) {
    return error(401, 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.');
  }
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return error(400, 'We could not parse the JSON body of your request.');
  if (typeof body.model !== 'string') return error(400, "you must provide a model parameter", { param: 'model' });
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return error(400, "Invalid 'messages': empty array. Expected an array with minimum length 1.", { param: 'messages' });
  }
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined) {
    return error(400, "max_tokens and max_completion_tokens cannot both be set", { param: 'max_tokens' });
  }
  if (scenario?.kind === 'hang') return 'hang';
  if (scenario?.kind === 'error') return error(scenario.status, scenario.message ?? `fake error ${scenario.status}`, scenario);
  if (scenario?.kind === 'malformed') return { status: 200, body: { id: 'chatcmpl-fake', object: 'chat.completion', choices: [] } };
  const text = scenario?.text ?? `Fake OpenAI reply to: ${lastUserText(body.messages)}`;
  const promptTokens = scenario?.usage?.promptTokens ?? body.messages.reduce((n: number, m: { content?: unknown }) => n + words(String(m?.content ?? '')), 0);
  const completionTokens = scenario?.usage?.completionTokens ?? words(text);
  const cached = scenario?.usage?.cachedPromptTokens ?? 0;
  return {
    status: 200,
    body: {
      id: `chatcmpl-fake${nextId++}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: scenario?.model ?? `${body.model}-2024-08-06`,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: scenario?.finish ?? 'stop' }],
      usage: {
        // OpenAI counts cached input inside prompt_tokens and reports the cached part apart.
        prompt_tokens: promptTokens + cached,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + cached + completionTokens,
        prompt_tokens_details: { cached_tokens: cached },
      },
    },
  };
}
