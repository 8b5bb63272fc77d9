/** Fake OpenAI Chat Completions server: `POST /v1/chat/completions` with Bearer auth, plain or streamed (SSE). */
import {
  FrameList,
  argumentPieces,
  lastUserText,
  replyText,
  startFakeServer,
  textPieces,
  words,
  type Answer,
  type FakeServerHandle,
  type Pacing,
  type RecordedRequest,
  type Scenario,
  type StreamedAnswer,
} from './server.js';

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

/** What api.openai.com checks of tools: function tools with names, and every tool message answering an earlier call. */
function toolProblem(body: Record<string, unknown>): Answer | undefined {
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools))
      return error(400, "Invalid type for 'tools': expected an array.", { param: 'tools' });
    for (const [i, t] of (body.tools as { type?: unknown; function?: { name?: unknown } }[]).entries()) {
      if (t?.type !== 'function' || typeof t.function?.name !== 'string')
        return error(400, `Missing required parameter: 'tools[${i}].function.name'.`, { param: `tools[${i}]` });
    }
  }
  const callIds = new Set<string>();
  for (const [i, m] of (
    body.messages as { role?: unknown; tool_calls?: { id?: unknown }[]; tool_call_id?: unknown }[]
  ).entries()) {
    for (const c of m?.tool_calls ?? []) if (typeof c?.id === 'string') callIds.add(c.id);
    if (m?.role === 'tool' && (typeof m.tool_call_id !== 'string' || !callIds.has(m.tool_call_id))) {
      return error(
        400,
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        { param: `messages.[${i}].role` },
      );
    }
  }
  return undefined;
}

function respond(
  req: RecordedRequest,
  scenario: Scenario | undefined,
  options: FakeOpenAiOptions,
): Answer | StreamedAnswer | 'hang' {
  if (req.method !== 'POST' || req.path !== '/v1/chat/completions')
    return error(404, `Invalid URL (${req.method} ${req.path})`);
  const auth = req.headers.authorization;
  if (options.apiKey !== undefined && auth !== `Bearer ${options.apiKey}`) {
    return error(
      401,
      'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
    );
  }
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return error(400, 'We could not parse the JSON body of your request.');
  if (typeof body.model !== 'string') return error(400, 'you must provide a model parameter', { param: 'model' });
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return error(400, "Invalid 'messages': empty array. Expected an array with minimum length 1.", {
      param: 'messages',
    });
  }
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined) {
    return error(400, 'max_tokens and max_completion_tokens cannot both be set', { param: 'max_tokens' });
  }
  const toolError = toolProblem(body);
  if (toolError) return toolError;
  if (scenario?.kind === 'hang') return 'hang';
  if (scenario?.kind === 'error')
    return error(scenario.status, scenario.message ?? `fake error ${scenario.status}`, scenario);
  if (scenario?.kind === 'malformed')
    return { status: 200, body: { id: 'chatcmpl-fake', object: 'chat.completion', choices: [] } };
  const reply = scenario?.kind === 'reply' ? scenario : undefined;
  const fallback = `Fake OpenAI reply to: ${lastUserText(body.messages)}`;
  if (body.stream === true) return streamed(body, reply, fallback);
  const text = replyText(reply, fallback);
  const toolCalls = (reply?.toolCalls ?? []).map((c) => ({
    id: c.id ?? `call_fake${nextId++}`,
    type: 'function',
    function: { name: c.name, arguments: argumentPieces(c).whole },
  }));
  const promptTokens =
    scenario?.usage?.promptTokens ??
    body.messages.reduce((n: number, m: { content?: unknown }) => n + words(String(m?.content ?? '')), 0);
  const completionTokens = scenario?.usage?.completionTokens ?? words(text);
  const cached = scenario?.usage?.cachedPromptTokens ?? 0;
  return {
    status: 200,
    body: {
      id: `chatcmpl-fake${nextId++}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: scenario?.model ?? `${body.model}-2024-08-06`,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: toolCalls.length && !text ? null : text,
            refusal: null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: reply?.finish ?? (toolCalls.length ? 'tool_calls' : 'stop'),
        },
      ],
      usage: usage(promptTokens, cached, completionTokens),
    },
  };
}

function usage(promptTokens: number, cached: number, completionTokens: number) {
  // OpenAI counts cached input inside prompt_tokens and reports the cached part apart.
  return {
    prompt_tokens: promptTokens + cached,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + cached + completionTokens,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

/**
 * A `stream: true` answer: a role chunk, one chunk per text piece, per tool call a chunk with id and name then
 * one per argument piece, a finish chunk, with `stream_options.include_usage` a usage chunk without choices,
 * and `[DONE]`.
 */
function streamed(
  body: Record<string, unknown>,
  reply: Extract<Scenario, { kind: 'reply' }> | undefined,
  fallback: string,
): StreamedAnswer {
  const id = `chatcmpl-fake${nextId++}`;
  const created = Math.floor(Date.now() / 1000);
  const model = reply?.model ?? `${body.model as string}-2024-08-06`;
  const out = new FrameList(reply?.stallAfter);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices, ...extra })}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  out.add(delta({ role: 'assistant', content: '', refusal: null }));
  const pieces = textPieces(reply, fallback);
  for (const text of pieces) out.piece(delta({ content: text }));
  const calls = reply?.toolCalls ?? [];
  calls.forEach((c, index) => {
    out.add(
      delta({
        tool_calls: [
          { index, id: c.id ?? `call_fake${nextId++}`, type: 'function', function: { name: c.name, arguments: '' } },
        ],
      }),
    );
    for (const args of argumentPieces(c).pieces)
      out.piece(delta({ tool_calls: [{ index, function: { arguments: args } }] }));
  });
  out.add(delta({}, reply?.finish ?? (calls.length ? 'tool_calls' : 'stop')));
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  if (options?.include_usage === true && !reply?.omitUsage) {
    const prompt =
      reply?.usage?.promptTokens ??
      (body.messages as { content?: unknown }[]).reduce((n, m) => n + words(String(m?.content ?? '')), 0);
    const completion = reply?.usage?.completionTokens ?? words(pieces.join('')) + calls.length;
    out.add(chunk([], { usage: usage(prompt, reply?.usage?.cachedPromptTokens ?? 0, completion) }));
  }
  out.add('data: [DONE]\n\n');
  return {
    status: 200,
    contentType: 'text/event-stream; charset=utf-8',
    frames: out.frames,
    stallAfterFrames: out.stallAfterFrames,
  };
}
