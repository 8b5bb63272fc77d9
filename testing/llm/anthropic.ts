/** Fake Anthropic Messages server: `POST /v1/messages`, plain or streamed (SSE), API versions 2023-06-01 and 2026-10-21. */
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

type Block = { type?: unknown; id?: unknown; tool_use_id?: unknown };

/**
 * What the API checks of tools: each has a name and an object `input_schema`, and a user turn's `tool_result`
 * blocks come first and answer `tool_use` blocks of the assistant turn just before.
 */
function toolProblem(body: Record<string, unknown>): Answer | undefined {
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return error(400, 'tools: Input should be a valid list');
    for (const [i, t] of (body.tools as { name?: unknown; input_schema?: { type?: unknown } }[]).entries()) {
      if (typeof t?.name !== 'string') return error(400, `tools.${i}.name: Field required`);
      if (t.input_schema?.type !== 'object')
        return error(400, `tools.${i}.input_schema.type: Input should be 'object'`);
    }
  }
  const messages = body.messages as { role: string; content: unknown }[];
  for (const [i, m] of messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    const blocks = m.content as Block[];
    const results = blocks.filter((b) => b?.type === 'tool_result');
    if (results.length === 0) continue;
    const firstOther = blocks.findIndex((b) => b?.type !== 'tool_result');
    if (firstOther !== -1 && firstOther < blocks.map((b) => b?.type).lastIndexOf('tool_result')) {
      return error(400, `messages.${i}: tool_result blocks must come first in the user message`);
    }
    const previous = messages[i - 1];
    const uses = new Set(
      Array.isArray(previous?.content)
        ? (previous.content as Block[]).filter((b) => b?.type === 'tool_use').map((b) => b.id)
        : [],
    );
    const orphan = results.find((r) => !uses.has(r.tool_use_id));
    if (orphan) {
      return error(
        400,
        `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(orphan.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
  }
  return undefined;
}

function respond(
  req: RecordedRequest,
  scenario: Scenario | undefined,
  options: FakeAnthropicOptions,
): Answer | StreamedAnswer | 'hang' {
  if (req.method !== 'POST' || req.path !== '/v1/messages') return error(404, `Not found: ${req.method} ${req.path}`);
  if (options.apiKey !== undefined && presentedKey(req) !== options.apiKey) return error(401, 'invalid x-api-key');
  const version = req.headers['anthropic-version'];
  if (!version) return error(400, 'anthropic-version: header is required');
  if (!KNOWN_VERSIONS.has(version)) return error(400, `anthropic-version: unknown version ${version}`);
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return error(400, 'Request body is not valid JSON');
  if (typeof body.model !== 'string') return error(400, 'model: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    return error(400, 'max_tokens: Field required');
  if (version === '2026-10-21') {
    const sampling = SAMPLING_PARAMS.find((p) => p in body);
    if (sampling) return error(400, `${sampling}: Extra inputs are not permitted`);
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return error(400, 'messages: at least one message is required');
  for (const [i, m] of (body.messages as { role?: unknown }[]).entries()) {
    if (m?.role !== 'user' && m?.role !== 'assistant') {
      return error(400, `messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
  }
  const toolError = toolProblem(body);
  if (toolError) return toolError;
  if (scenario?.kind === 'hang') return 'hang';
  if (scenario?.kind === 'error')
    return error(scenario.status, scenario.message ?? `fake error ${scenario.status}`, scenario.retryAfterSec);
  if (scenario?.kind === 'malformed') return { status: 200, body: '<html>gateway</html>' };
  const reply = scenario?.kind === 'reply' ? scenario : undefined;
  const fallback = `Fake Anthropic reply to: ${lastUserText(body.messages)}`;
  const inputTokens =
    reply?.usage?.promptTokens ??
    (body.messages as { content?: unknown }[]).reduce(
      (n, m) =>
        n + words(typeof m.content === 'string' ? m.content : lastUserText([{ role: 'user', content: m.content }])),
      0,
    );
  if (body.stream === true) return streamed(body, reply, fallback, inputTokens);
  const text = replyText(reply, fallback);
  const toolUses = (reply?.toolCalls ?? []).map((c) => ({
    type: 'tool_use',
    id: c.id ?? `toolu_fake${nextId++}`,
    name: c.name,
    input: JSON.parse(argumentPieces(c).whole || '{}') as unknown,
  }));
  return {
    status: 200,
    headers: { 'request-id': `req_fake${nextId}` },
    body: {
      id: `msg_fake${nextId++}`,
      type: 'message',
      role: 'assistant',
      model: scenario?.model ?? body.model,
      content: [...(text || !toolUses.length ? [{ type: 'text', text }] : []), ...toolUses],
      stop_reason: reply?.finish ?? (toolUses.length ? 'tool_use' : 'end_turn'),
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

/**
 * A `stream: true` answer: `message_start` (input counts), a `ping`, a text block of `text_delta`s, per tool call a
 * `tool_use` block of `input_json_delta`s, `message_delta` (stop reason, output count) and `message_stop`.
 */
function streamed(
  body: Record<string, unknown>,
  reply: Extract<Scenario, { kind: 'reply' }> | undefined,
  fallback: string,
  inputTokens: number,
): StreamedAnswer {
  const out = new FrameList(reply?.stallAfter);
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const withUsage = (usage: Record<string, unknown>) => (reply?.omitUsage ? {} : { usage });
  out.add(
    event('message_start', {
      message: {
        id: `msg_fake${nextId++}`,
        type: 'message',
        role: 'assistant',
        model: reply?.model ?? body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        ...withUsage({
          input_tokens: inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: reply?.usage?.cachedPromptTokens ?? 0,
          output_tokens: 1,
        }),
      },
    }),
  );
  out.add(event('ping', {}));
  let index = 0;
  const pieces = textPieces(reply, fallback);
  if (pieces.length) {
    out.add(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const text of pieces) out.piece(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    out.add(event('content_block_stop', { index: index++ }));
  }
  const calls = reply?.toolCalls ?? [];
  for (const c of calls) {
    out.add(
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: c.id ?? `toolu_fake${nextId++}`, name: c.name, input: {} },
      }),
    );
    for (const partial_json of argumentPieces(c).pieces)
      out.piece(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    out.add(event('content_block_stop', { index: index++ }));
  }
  const outputTokens = reply?.usage?.completionTokens ?? words(pieces.join('')) + calls.length;
  out.add(
    event('message_delta', {
      delta: { stop_reason: reply?.finish ?? (calls.length ? 'tool_use' : 'end_turn'), stop_sequence: null },
      ...withUsage({ output_tokens: outputTokens }),
    }),
  );
  out.add(event('message_stop', {}));
  return {
    status: 200,
    headers: { 'request-id': `req_fake${nextId}` },
    contentType: 'text/event-stream; charset=utf-8',
    frames: out.frames,
    stallAfterFrames: out.stallAfterFrames,
  };
}
