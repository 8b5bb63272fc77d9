/**
 * Fake Bedrock Runtime server for the Converse API: `POST /model/{modelId}/converse` and `.../converse-stream`
 * (answered in the AWS event-stream binary framing) over cleartext HTTP/2
 * (the SDK's transport). It parses SigV4 authorization and checks the signed payload hash against the body,
 * but does not recompute signatures. Errors carry `x-amzn-errortype`, from which the SDK names its exception.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
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

export interface FakeBedrockOptions {
  /** Access key id the server accepts in SigV4 requests; others get 403 UnrecognizedClientException. */
  accessKeyId?: string;
  /** Bedrock API key the server accepts as `Authorization: Bearer`; absent: bearer requests are refused. */
  bearerToken?: string;
  /** Model ids the server knows; others get 400 ValidationException. Absent: every id is known. */
  models?: readonly string[];
}

export interface FakeBedrockServer extends FakeServerHandle {
  /** Endpoint for the SDK's `endpoint`. */
  readonly endpoint: string;
}

export interface SigV4Authorization {
  accessKeyId: string;
  /** YYYYMMDD */
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

const EXCEPTIONS: Record<number, string> = {
  400: 'ValidationException',
  401: 'UnrecognizedClientException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

export async function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrockServer> {
  const handle = await startFakeServer('h2c', (req, scenario) => respond(req, scenario, options));
  return Object.assign(handle, { endpoint: handle.origin });
}

/** Parses `AWS4-HMAC-SHA256 Credential=…/date/region/service/aws4_request, SignedHeaders=…, Signature=…`. */
export function parseSigV4(header: string | undefined): SigV4Authorization | undefined {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      header ?? '',
    );
  if (!m) return undefined;
  return {
    accessKeyId: m[1]!,
    date: m[2]!,
    region: m[3]!,
    service: m[4]!,
    signedHeaders: m[5]!.split(';'),
    signature: m[6]!,
  };
}

function error(
  status: number,
  message: string,
  name = EXCEPTIONS[status] ?? 'InternalServerException',
  retryAfterSec?: number,
): Answer {
  const headers: Record<string, string> = {
    'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'fake-request-id',
  };
  if (retryAfterSec !== undefined) headers['retry-after'] = String(retryAfterSec);
  return { status, headers, body: { message } };
}

function authFailure(req: RecordedRequest, options: FakeBedrockOptions): Answer | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) {
    return auth.slice('Bearer '.length) === options.bearerToken
      ? undefined
      : error(403, 'Invalid API Key format: Must start with pre-defined prefix', 'AccessDeniedException');
  }
  const sig = parseSigV4(auth);
  if (!sig || !req.headers['x-amz-date'])
    return error(403, 'Missing Authentication Token', 'MissingAuthenticationTokenException');
  if (sig.service !== 'bedrock')
    return error(403, `Credential should be scoped to correct service: 'bedrock'.`, 'InvalidSignatureException');
  const declared = req.headers['x-amz-content-sha256'];
  if (declared && declared !== createHash('sha256').update(req.rawBody).digest('hex')) {
    return error(
      400,
      'The provided x-amz-content-sha256 header does not match what was computed.',
      'InvalidSignatureException',
    );
  }
  if (options.accessKeyId !== undefined && sig.accessKeyId !== options.accessKeyId) {
    return error(403, 'The security token included in the request is invalid.', 'UnrecognizedClientException');
  }
  return undefined;
}

function conversationProblem(messages: unknown): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return 'The messages field is required and must not be empty.';
  let previous: unknown;
  for (const m of messages as { role?: unknown; content?: unknown }[]) {
    if (m?.role !== 'user' && m?.role !== 'assistant') return `Invalid role: ${String(m?.role)}`;
    if (!Array.isArray(m.content) || m.content.length === 0) return 'The content field in the Message object is empty.';
    if (m.role === previous) {
      return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    }
    previous = m.role;
  }
  if ((messages as { role: string }[])[0]!.role !== 'user')
    return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  return undefined;
}

function respond(
  req: RecordedRequest,
  scenario: Scenario | undefined,
  options: FakeBedrockOptions,
): Answer | StreamedAnswer | 'hang' {
  const route = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(req.path);
  if (req.method !== 'POST' || !route)
    return error(404, `Unknown operation ${req.method} ${req.path}`, 'UnknownOperationException');
  const denied = authFailure(req, options);
  if (denied) return denied;
  const modelId = decodeURIComponent(route[1]!);
  if (options.models && !options.models.includes(modelId))
    return error(400, 'The provided model identifier is invalid.');
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object')
    return error(400, 'Malformed input request, please reformat your input and try again.', 'SerializationException');
  const problem = conversationProblem(body.messages);
  if (problem) return error(400, problem);
  const inference = (body.inferenceConfig ?? {}) as { maxTokens?: unknown; temperature?: unknown };
  if (
    inference.maxTokens !== undefined &&
    (!Number.isInteger(inference.maxTokens) || (inference.maxTokens as number) < 1)
  ) {
    return error(
      400,
      "1 validation error detected: Value at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
    );
  }
  if (scenario?.kind === 'hang') return 'hang';
  if (scenario?.kind === 'error')
    return error(
      scenario.status,
      scenario.message ?? `fake error ${scenario.status}`,
      undefined,
      scenario.retryAfterSec,
    );
  if (scenario?.kind === 'malformed') return { status: 200, body: { stopReason: 'end_turn', usage: {} } };
  const reply = scenario?.kind === 'reply' ? scenario : undefined;
  const fallback = `Fake Bedrock reply to: ${lastUserText(body.messages)}`;
  const input =
    reply?.usage?.promptTokens ??
    (body.messages as { content: unknown }[]).reduce(
      (n: number, m) => n + words(lastUserText([{ role: 'user', content: m.content }])),
      0,
    );
  const cached = reply?.usage?.cachedPromptTokens ?? 0;
  if (route[2] === 'converse-stream') return streamed(reply, fallback, input, cached);
  const text = replyText(reply, fallback);
  const output = reply?.usage?.completionTokens ?? words(text);
  const toolUses = (reply?.toolCalls ?? []).map((c, i) => ({
    toolUse: {
      toolUseId: c.id ?? `tooluse_fake${i}`,
      name: c.name,
      input: JSON.parse(argumentPieces(c).whole || '{}') as unknown,
    },
  }));
  return {
    status: 200,
    headers: { 'x-amzn-requestid': 'fake-request-id' },
    body: {
      output: {
        message: { role: 'assistant', content: [...(text || !toolUses.length ? [{ text }] : []), ...toolUses] },
      },
      stopReason: reply?.finish ?? (toolUses.length ? 'tool_use' : 'end_turn'),
      usage: {
        inputTokens: input,
        outputTokens: output,
        totalTokens: input + cached + output,
        cacheReadInputTokens: cached,
        cacheWriteInputTokens: 0,
      },
      metrics: { latencyMs: 42 },
    },
  };
}

/**
 * A ConverseStream answer: `messageStart`, a text block of deltas, per tool call a block opened with its id and
 * name and filled with input deltas, `messageStop` and `metadata` (the counts).
 */
function streamed(
  reply: Extract<Scenario, { kind: 'reply' }> | undefined,
  fallback: string,
  input: number,
  cached: number,
): StreamedAnswer {
  const out = new FrameList(reply?.stallAfter);
  out.add(eventMessage('messageStart', { role: 'assistant' }));
  let index = 0;
  const pieces = textPieces(reply, fallback);
  if (pieces.length) {
    for (const text of pieces)
      out.piece(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { text } }));
    out.add(eventMessage('contentBlockStop', { contentBlockIndex: index++ }));
  }
  const calls = reply?.toolCalls ?? [];
  calls.forEach((c, i) => {
    out.add(
      eventMessage('contentBlockStart', {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId: c.id ?? `tooluse_fake${i}`, name: c.name } },
      }),
    );
    for (const piece of argumentPieces(c).pieces)
      out.piece(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: piece } } }));
    out.add(eventMessage('contentBlockStop', { contentBlockIndex: index++ }));
  });
  out.add(eventMessage('messageStop', { stopReason: reply?.finish ?? (calls.length ? 'tool_use' : 'end_turn') }));
  if (!reply?.omitUsage) {
    const output = reply?.usage?.completionTokens ?? words(pieces.join('')) + calls.length;
    out.add(
      eventMessage('metadata', {
        usage: {
          inputTokens: input,
          outputTokens: output,
          totalTokens: input + cached + output,
          cacheReadInputTokens: cached,
          cacheWriteInputTokens: 0,
        },
        metrics: { latencyMs: 42 },
      }),
    );
  }
  return {
    status: 200,
    headers: { 'x-amzn-requestid': 'fake-request-id' },
    contentType: 'application/vnd.amazon.eventstream',
    frames: out.frames,
    stallAfterFrames: out.stallAfterFrames,
  };
}

/**
 * One message of the AWS event-stream framing: total and header lengths, a CRC32 of those, string headers
 * (`:event-type`, `:content-type`, `:message-type`), the JSON payload and a CRC32 of everything before it.
 */
export function eventMessage(eventType: string, payload: unknown): Uint8Array {
  const headers = Buffer.concat(
    Object.entries({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }).map(
      ([name, value]) => {
        const n = Buffer.from(name);
        const v = Buffer.from(value);
        const h = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
        h.writeUInt8(n.length, 0);
        n.copy(h, 1);
        h.writeUInt8(7, 1 + n.length); // 7: string
        h.writeUInt16BE(v.length, 2 + n.length);
        v.copy(h, 4 + n.length);
        return h;
      },
    ),
  );
  const body = Buffer.from(JSON.stringify(payload));
  const total = 12 + headers.length + body.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headers.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headers.copy(message, 12);
  body.copy(message, 12 + headers.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}
