/**
 * The socket half of the fake provider servers: listens on 127.0.0.1 (a free port), records every request,
 * and hands it to a protocol module that answers in that provider's wire format. HTTP/1.1 through node:http,
 * or cleartext HTTP/2 (h2c) through node:http2 for Bedrock, whose SDK speaks only HTTP/2.
 */
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path with the query string, as received (percent-encoding kept). */
  path: string;
  /** Lower-case header names; HTTP/2 pseudo-headers are left out. */
  headers: Record<string, string>;
  rawBody: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
}

/** What the next request gets. Queued with `enqueue`; when the queue is empty, a normal reply. */
export type Scenario =
  | {
      kind: 'reply';
      text?: string;
      /**
       * Provider-neutral counts; each protocol renders them in its own usage fields. `promptTokens` is the
       * uncached input, `cachedPromptTokens` input read from the provider's prompt cache.
       */
      usage?: { promptTokens: number; completionTokens: number; cachedPromptTokens?: number };
      /** The provider's own stop word, e.g. `length`, `max_tokens`, `end_turn`. @default stop, or the tool-call word */
      finish?: string;
      model?: string;
      /** Streamed answers: the text in these pieces, one event each; joined, they are the answer (`text` is ignored). */
      chunks?: readonly string[];
      /** Calls the model makes, streamed or not; `arguments` is JSON text, given whole or in the pieces it streams in. */
      toolCalls?: readonly ScriptedToolCall[];
      /** Streamed answers: send no token counts at all. */
      omitUsage?: boolean;
      /** Streamed answers: after this many content pieces (text chunks, argument pieces) stop sending and hold the connection open. */
      stallAfter?: number;
    }
  | { kind: 'error'; status: number; message?: string; retryAfterSec?: number }
  /** Accept the request and never answer (the connection stays open until the server closes). */
  | { kind: 'hang' }
  /** Answer 200 with a body that is not what the protocol promises. */
  | { kind: 'malformed' };

export interface ScriptedToolCall {
  /** @default a fresh provider-style id */
  id?: string;
  name: string;
  arguments: string | readonly string[];
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** A streamed 2xx answer: its frames (SSE events, NDJSON lines, event-stream messages) are written one at a time. */
export interface StreamedAnswer {
  status: number;
  headers?: Record<string, string>;
  contentType: string;
  frames: readonly (string | Uint8Array)[];
  /** Frames written before the fake stops sending and holds the connection open; absent: all of them, then the end. */
  stallAfterFrames?: number;
}

/** A protocol module: decides the answer for one request (validation, auth, scenario rendering). */
export type Responder = (req: RecordedRequest, scenario: Scenario | undefined) => Answer | StreamedAnswer | 'hang';

/** Collects a stream's frames, noting where a scenario's `stallAfter` (counted in content pieces) cuts it. */
export class FrameList {
  readonly frames: (string | Uint8Array)[] = [];
  stallAfterFrames: number | undefined;
  #pieces = 0;
  constructor(private readonly stallAfter: number | undefined) {
    if (stallAfter === 0) this.stallAfterFrames = 0;
  }
  /** A frame without content (start, stop, usage). */
  add(frame: string | Uint8Array): void {
    this.frames.push(frame);
  }
  /** A frame with one content piece. */
  piece(frame: string | Uint8Array): void {
    this.frames.push(frame);
    if (++this.#pieces === this.stallAfter) this.stallAfterFrames ??= this.frames.length;
  }
}

/** The text pieces of a streamed reply: the scenario's chunks, or its text a word at a time. */
export function textPieces(scenario: Extract<Scenario, { kind: 'reply' }> | undefined, fallback: string): string[] {
  if (scenario?.chunks) return [...scenario.chunks];
  const text = replyText(scenario, fallback);
  return text.match(/\S+\s*/g) ?? [];
}

/** The whole reply text: joined chunks, else `text`, else (unless the reply only calls tools) the fallback. */
export function replyText(scenario: Extract<Scenario, { kind: 'reply' }> | undefined, fallback: string): string {
  if (scenario?.chunks) return scenario.chunks.join('');
  return scenario?.text ?? (scenario?.toolCalls?.length ? '' : fallback);
}

/** A scripted call's argument pieces and whole text. */
export function argumentPieces(call: ScriptedToolCall): { pieces: string[]; whole: string } {
  const pieces = typeof call.arguments === 'string' ? [call.arguments] : [...call.arguments];
  return { pieces, whole: pieces.join('') };
}

export interface FakeServerHandle {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  /** Answers whose connection the client closed before the server finished them (cancelled or abandoned calls). */
  readonly clientAborts: number;
  /** Resolves once `clientAborts` reaches `count`. */
  waitForClientAborts(count?: number): Promise<void>;
  /** Scenarios for the next requests, in order. */
  enqueue(...scenarios: Scenario[]): void;
  /** The last recorded request; throws when there is none, so a test cannot pass on an empty record. */
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** How the fake paces its answers: an LLM stand-in that takes a fixed time, or never answers some requests. */
export interface Pacing {
  /** Every answer is sent this long after the request arrived. @default 0 */
  delayMs?: number;
  /** Requests for which this is true are accepted and never answered (a hung provider). */
  hangWhen?: (req: RecordedRequest) => boolean;
  /** The scenario of a request when none is queued (a stand-in that always answers the same). @default the protocol's own reply */
  otherwise?: (req: RecordedRequest) => Scenario | undefined;
}

export async function startFakeServer(
  transport: 'http1' | 'h2c',
  respond: Responder,
  pacing: Pacing = {},
): Promise<FakeServerHandle> {
  const requests: RecordedRequest[] = [];
  const queue: Scenario[] = [];
  const hanging = new Set<{ destroy(): void }>();
  let clientAborts = 0;
  let closing = false;
  const abortWaiters = new Set<{ count: number; resolve: () => void }>();
  const onClientAbort = () => {
    clientAborts++;
    for (const w of abortWaiters) {
      if (clientAborts >= w.count) {
        abortWaiters.delete(w);
        w.resolve();
      }
    }
  };

  const onRequest = (
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (!k.startsWith(':') && v !== undefined)
          headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
      }
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        rawBody,
        body: parseJson(rawBody),
      };
      requests.push(recorded);
      res.on('close', () => {
        if (!res.writableEnded && !closing) onClientAbort();
      });
      const answer = pacing.hangWhen?.(recorded)
        ? 'hang'
        : respond(recorded, queue.shift() ?? pacing.otherwise?.(recorded));
      const hold = () => hanging.add('stream' in req ? req.stream : req.socket);
      if (answer === 'hang') return void hold();
      if ('frames' in answer) {
        const start = () => void writeFrames(res as http.ServerResponse, answer, hold);
        if (pacing.delayMs) setTimeout(start, pacing.delayMs);
        else start();
        return;
      }
      const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      const type = typeof answer.body === 'string' ? 'text/plain' : 'application/json';
      const send = () => {
        (res as http.ServerResponse).writeHead(answer.status, { 'content-type': type, ...answer.headers });
        res.end(body);
      };
      if (pacing.delayMs) setTimeout(send, pacing.delayMs);
      else send();
    });
  };

  let server: http.Server | http2.Http2Server;
  const sessions = new Set<http2.ServerHttp2Session>();
  if (transport === 'h2c') {
    const s = http2.createServer();
    s.on('request', onRequest);
    s.on('session', (session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    server = s;
  } else {
    const s = http.createServer(onRequest);
    server = s;
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    get clientAborts() {
      return clientAborts;
    },
    waitForClientAborts(count = 1) {
      if (clientAborts >= count) return Promise.resolve();
      return new Promise<void>((resolve) => abortWaiters.add({ count, resolve }));
    },
    enqueue: (...s) => void queue.push(...s),
    lastRequest() {
      const last = requests[requests.length - 1];
      if (!last) throw new Error('the fake server has received no request');
      return last;
    },
    async close() {
      closing = true;
      for (const h of hanging) h.destroy();
      for (const session of sessions) session.destroy();
      if (server instanceof http.Server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes a streamed answer frame by frame, a turn of the event loop apart, until it ends or the client leaves. */
async function writeFrames(res: http.ServerResponse, answer: StreamedAnswer, hold: () => void): Promise<void> {
  let gone = false;
  res.once('close', () => (gone = true));
  res.writeHead(answer.status, { 'content-type': answer.contentType, 'cache-control': 'no-cache', ...answer.headers });
  if (typeof res.flushHeaders === 'function') res.flushHeaders(); // NB: absent on HTTP/2, where writeHead sends them.
  const upTo = answer.stallAfterFrames ?? answer.frames.length;
  for (const frame of answer.frames.slice(0, upTo)) {
    if (gone) return;
    res.write(frame);
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (gone) return;
  if (upTo < answer.frames.length) hold();
  else res.end();
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** The text of the last user turn in an OpenAI/Anthropic/Ollama-shaped message list. */
export function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown };
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content))
      return m.content.map((b: { text?: unknown }) => (typeof b?.text === 'string' ? b.text : '')).join('');
  }
  return '';
}

/** Whitespace word count: the fakes' stand-in for a tokenizer when a scenario gives no usage. */
export function words(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/).length;
}

/**
 * The most requests a paced fake held at once: from the requests' arrival times, each held `holdMs` (the fake's
 * `delayMs`). Batches of five show as 5; one at a time as 1.
 */
export function maxOverlap(arrivals: readonly number[], holdMs: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0; i < sorted.length; i++) {
    let n = 0;
    for (let j = i; j < sorted.length && sorted[j]! < sorted[i]! + holdMs; j++) n++;
    most = Math.max(most, n);
  }
  return most;
}
