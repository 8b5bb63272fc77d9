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
      /** The provider's own stop word, e.g. `length`, `max_tokens`, `end_turn`. */
      finish?: string;
      model?: string;
    }
  | { kind: 'error'; status: number; message?: string; retryAfterSec?: number }
  /** Accept the request and never answer (the connection stays open until the server closes). */
  | { kind: 'hang' }
  /** Answer 200 with a body that is not what the protocol promises. */
  | { kind: 'malformed' };

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** A protocol module: decides the answer for one request (validation, auth, scenario rendering). */
export type Responder = (req: RecordedRequest, scenario: Scenario | undefined) => Answer | 'hang';

export interface FakeServerHandle {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: RecordedRequest[];
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
}

export async function startFakeServer(transport: 'http1' | 'h2c', respond: Responder, pacing: Pacing = {}): Promise<FakeServerHandle> {
  const requests: RecordedRequest[] = [];
  const queue: Scenario[] = [];
  const hanging = new Set<{ destroy(): void }>();

  const onRequest = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => {
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
        if (!k.startsWith(':') && v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers, rawBody, body: parseJson(rawBody) };
      requests.push(recorded);
      const answer = pacing.hangWhen?.(recorded) ? 'hang' : respond(recorded, queue.shift());
      if (answer === 'hang') {
        const stream = 'stream' in req ? req.stream : req.socket;
        hanging.add(stream);
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
    enqueue: (...s) => void queue.push(...s),
    lastRequest() {
      const last = requests[requests.length - 1];
      if (!last) throw new Error('the fake server has received no request');
      return last;
    },
    async close() {
      for (const h of hanging) h.destroy();
      for (const session of sessions) session.destroy();
      if (server instanceof http.Server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
    if (Array.isArray(m.content)) return m.content.map((b: { text?: unknown }) => (typeof b?.text === 'string' ? b.text : '')).join('');
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
