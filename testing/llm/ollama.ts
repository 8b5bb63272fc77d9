/** Fake Ollama server: `POST /api/chat` (plain with `stream: false`, else NDJSON-streamed) and `GET /api/version`. */
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
  type RecordedRequest,
  type Scenario,
  type StreamedAnswer,
} from './server.js';

export interface FakeOllamaOptions {
  /** Models the server "has"; others get 404 as from a real Ollama. Absent: every model exists. */
  models?: readonly string[];
  /** When set, a Bearer token the server (as behind an authenticating proxy) requires; others get 401. */
  bearerToken?: string;
}

export interface FakeOllamaServer extends FakeServerHandle {
  /** Host for the SDK's `host`. */
  readonly host: string;
}

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllamaServer> {
  const handle = await startFakeServer('http1', (req, scenario) => respond(req, scenario, options));
  return Object.assign(handle, { host: handle.origin });
}

const error = (status: number, message: string, retryAfterSec?: number): Answer => ({
  status,
  headers: retryAfterSec !== undefined ? { 'retry-after': String(retryAfterSec) } : {},
  body: { error: message },
});

function respond(
  req: RecordedRequest,
  scenario: Scenario | undefined,
  options: FakeOllamaOptions,
): Answer | StreamedAnswer | 'hang' {
  if (req.method === 'GET' && req.path === '/api/version') return { status: 200, body: { version: '0.12.0' } };
  if (req.method !== 'POST' || req.path !== '/api/chat') return error(404, '404 page not found');
  if (options.bearerToken !== undefined && req.headers.authorization !== `Bearer ${options.bearerToken}`)
    return error(401, 'unauthorized');
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return error(400, 'invalid character in request body');
  if (typeof body.model !== 'string' || body.model === '') return error(400, 'model is required');
  if (options.models && !options.models.includes(body.model)) {
    return error(404, `model "${body.model}" not found, try pulling it first`);
  }
  if (scenario?.kind === 'hang') return 'hang';
  if (scenario?.kind === 'error')
    return error(scenario.status, scenario.message ?? `fake error ${scenario.status}`, scenario.retryAfterSec);
  if (scenario?.kind === 'malformed') return { status: 200, body: { model: body.model, done: true } };
  const reply = scenario?.kind === 'reply' ? scenario : undefined;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const fallback = `Fake Ollama reply to: ${lastUserText(messages)}`;
  const promptEval =
    reply?.usage?.promptTokens ??
    messages.reduce((n: number, m: { content?: unknown }) => n + words(String(m?.content ?? '')), 0);
  // Ollama sends a tool call whole (arguments as an object, no id), never in pieces.
  const toolCalls = (reply?.toolCalls ?? []).map((c) => ({
    function: { name: c.name, arguments: JSON.parse(argumentPieces(c).whole || '{}') as unknown },
  }));
  const model = reply?.model ?? body.model;
  const final = (content: string, evalCount: number) => ({
    model,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', content },
    done: true,
    done_reason: reply?.finish ?? 'stop',
    total_duration: 1_000_000,
    load_duration: 10_000,
    ...(reply?.omitUsage
      ? {}
      : {
          prompt_eval_count: promptEval,
          prompt_eval_duration: 200_000,
          eval_count: evalCount,
          eval_duration: 700_000,
        }),
  });
  // NB: a real Ollama streams NDJSON unless told `stream: false`.
  if (body.stream === false) {
    const text = replyText(reply, fallback);
    const answer = final(text, reply?.usage?.completionTokens ?? words(text));
    return {
      status: 200,
      body: { ...answer, message: { ...answer.message, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) } },
    };
  }
  const out = new FrameList(reply?.stallAfter);
  const line = (message: Record<string, unknown>) =>
    `${JSON.stringify({ model, created_at: new Date().toISOString(), message: { role: 'assistant', ...message }, done: false })}\n`;
  const pieces = textPieces(reply, fallback);
  for (const content of pieces) out.piece(line({ content }));
  for (const call of toolCalls) out.piece(line({ content: '', tool_calls: [call] }));
  out.add(
    `${JSON.stringify(final('', reply?.usage?.completionTokens ?? words(pieces.join('')) + toolCalls.length))}\n`,
  );
  return {
    status: 200,
    contentType: 'application/x-ndjson',
    frames: out.frames,
    stallAfterFrames: out.stallAfterFrames,
  };
}
