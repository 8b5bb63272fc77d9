/**
 * The HTTP side of the OpenAI and Anthropic adapters: a keep-alive connection pool (undici) per provider, JSON
 * requests, whole JSON answers and server-sent-event streams, and the provider's failures as LlmProviderError.
 * The official SDKs did this through fetch and WHATWG streams at about a third of the gateway's CPU per call
 * (docs/benchmarks.md, issue 38); they stay in the tests, which prove the wire compatibility from the client side.
 */
import { Pool, type Dispatcher } from 'undici';
import { isConnectionFailure } from './call.js';
import {
  LlmError,
  LlmProviderError,
  LlmTimeoutError,
  codeForStatus,
  parseRetryAfterSec,
  type LlmProviderErrorCode,
} from './errors.js';

/** The largest whole answer read from a provider; a larger one fails as INVALID_RESPONSE. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** The largest single server-sent event of a stream. */
export const MAX_EVENT_BYTES = 8 * 1024 * 1024;
/** How much of an error answer is read for its message. */
const MAX_ERROR_BYTES = 64 * 1024;
/** An idle pooled connection is closed after this long (providers close theirs after 5–60 s). */
const KEEP_ALIVE_MS = 4_000;

export interface WireOptions {
  /** The provider's name, for errors. */
  provider: string;
  /** Base URL; request paths are appended to it (its path included). */
  baseURL: string;
  /** Headers sent with every request (credentials, API version). */
  headers: Record<string, string>;
}

export interface WireRequest {
  path: string;
  body: unknown;
  signal: AbortSignal;
  /** Backstop for undici's own header and body timers; the caller's deadline comes through `signal`. */
  timeoutMs: number;
  headers?: Record<string, string>;
}

/** An HTTP client for one provider endpoint. */
export class WireClient {
  readonly #provider: string;
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #headers: Record<string, string>;

  constructor(opts: WireOptions) {
    const base = new URL(opts.baseURL);
    this.#provider = opts.provider;
    this.#prefix = base.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(base.origin, { keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });
    this.#headers = { ...opts.headers, 'content-type': 'application/json' };
  }

  /** POSTs a JSON body and reads the whole JSON answer. */
  async json(req: WireRequest): Promise<unknown> {
    const res = await this.#send(req, 'application/json');
    const text = await readText(res.body, MAX_ANSWER_BYTES).catch((err: unknown) => {
      throw this.#bodyFailure(err, 'answer');
    });
    if (text === undefined) throw tooLarge(this.#provider, 'the answer');
    try {
      return JSON.parse(text);
    } catch {
      throw new LlmProviderError(this.#provider, 'INVALID_RESPONSE', 'the answer is not JSON');
    }
  }

  /**
   * POSTs a JSON body and resolves once the provider accepted the stream (2xx), with its events' data parsed as
   * JSON. OpenAI's closing `[DONE]` ends it; a payload with an `error` member (a failure after acceptance) throws.
   */
  async events(req: WireRequest): Promise<AsyncIterable<unknown>> {
    const res = await this.#send(req, 'text/event-stream');
    return this.#parse(res.body);
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  async #send(req: WireRequest, accept: string): Promise<Dispatcher.ResponseData> {
    const res = await this.#pool.request({
      method: 'POST',
      path: this.#prefix + req.path,
      headers: { ...this.#headers, accept, ...req.headers },
      body: JSON.stringify(req.body),
      signal: req.signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    const text = (await readText(res.body, MAX_ERROR_BYTES).catch(() => '')) ?? '(a body too large to read)';
    const status = res.statusCode;
    throw new LlmProviderError(
      this.#provider,
      codeForStatus(status),
      `provider answered: ${status} ${messageOf(text)}`,
      {
        status,
        retryAfterSec: parseRetryAfterSec(header(res.headers['retry-after'])),
        // NB: the provider's answer as it came (the head of it), for logs.
        cause: { status, body: text },
      },
    );
  }

  async *#parse(body: Dispatcher.ResponseData['body']): AsyncGenerator<unknown, void, undefined> {
    const lines = new SseLines(MAX_EVENT_BYTES);
    let data: string[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        for (const line of lines.push(chunk as Buffer)) {
          if (line === '') {
            if (data.length === 0) continue;
            const payload = data.length === 1 ? data[0]! : data.join('\n');
            data = [];
            size = 0;
            if (payload === '[DONE]') return;
            yield this.#event(payload);
          } else if (line.startsWith('data:')) {
            const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
            size += value.length;
            if (size > MAX_EVENT_BYTES) throw tooLarge(this.#provider, 'a stream event');
            data.push(value);
          }
          // NB: `event:`, `id:`, `retry:` and comments carry nothing the decoders need: the payloads name their type.
        }
      }
    } catch (err) {
      if (err instanceof RangeError) throw tooLarge(this.#provider, 'a stream line');
      throw err instanceof LlmError ? err : this.#bodyFailure(err, 'stream');
    } finally {
      // NB: leaving early (the caller stopped reading, or a failure) must not leave the socket half read.
      if (!body.destroyed) body.destroy();
    }
    if (data.length) yield this.#event(data.join('\n'));
  }

  #event(payload: string): unknown {
    let value: unknown;
    try {
      value = JSON.parse(payload);
    } catch {
      throw new LlmProviderError(this.#provider, 'INVALID_RESPONSE', 'a stream event is not JSON');
    }
    const error = (value as { error?: unknown } | null)?.error;
    if (error && typeof error === 'object') {
      const { type, message } = error as { type?: unknown; message?: unknown };
      throw new LlmProviderError(
        this.#provider,
        STREAM_ERROR_CODES[String(type)] ?? 'UNKNOWN',
        `provider failed the stream: ${typeof message === 'string' ? message : JSON.stringify(error)}`,
      );
    }
    return value;
  }

  #bodyFailure(err: unknown, what: string): LlmError {
    if (err instanceof LlmError) return err;
    const code = (err as { code?: unknown })?.code;
    if (code === 'UND_ERR_BODY_TIMEOUT') return new LlmTimeoutError(this.#provider, 0, { cause: err });
    if (isConnectionFailure(err))
      return new LlmProviderError(this.#provider, 'CONNECTION', `the connection failed during the ${what}`, {
        cause: err,
      });
    return new LlmProviderError(this.#provider, 'UNKNOWN', `reading the ${what} failed: ${(err as Error)?.message}`, {
      cause: err,
    });
  }
}

/** Failures the wire client throws before an answer: timeouts of undici's own timers, connection failures. */
export function classifyWireError(provider: string, err: unknown): LlmError {
  if (err instanceof LlmError) return err;
  const code = (err as { code?: unknown })?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return new LlmTimeoutError(provider, 0, { cause: err });
  if (isConnectionFailure(err))
    return new LlmProviderError(provider, 'CONNECTION', 'provider could not be reached', { cause: err });
  return new LlmProviderError(provider, 'UNKNOWN', `unexpected failure: ${(err as Error)?.message ?? String(err)}`, {
    cause: err,
  });
}

/** Error types a provider names in a failed stream (Anthropic's `error` event; OpenAI's `error` payload). */
const STREAM_ERROR_CODES: Record<string, LlmProviderErrorCode> = {
  overloaded_error: 'OVERLOADED',
  rate_limit_error: 'RATE_LIMITED',
  api_error: 'SERVER_ERROR',
  server_error: 'SERVER_ERROR',
  invalid_request_error: 'BAD_REQUEST',
};

function tooLarge(provider: string, what: string): LlmProviderError {
  return new LlmProviderError(provider, 'INVALID_RESPONSE', `${what} is larger than Steward reads`);
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The provider's own message from an error body (`{error: {message}}`, both wire formats), else the text. */
function messageOf(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } })?.error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: the text itself
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text || '(no body)';
}

/** Reads a body as UTF-8; undefined when it is longer than `limit` bytes (the rest is not read). */
async function readText(body: Dispatcher.ResponseData['body'], limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

/**
 * Splits a byte stream into lines (LF, CRLF or CR, as the event-stream format allows), decoding UTF-8 across
 * chunk boundaries. A line longer than `limit` characters throws RangeError rather than growing without bound.
 */
export class SseLines {
  readonly #decoder = new TextDecoder();
  #rest = '';
  #cr = false;

  constructor(private readonly limit: number) {}

  push(chunk: Uint8Array): string[] {
    let text = this.#rest + this.#decoder.decode(chunk, { stream: true });
    if (text === '') return [];
    // NB: a CR that ended the previous chunk already ended its line; an LF right after it belongs to it.
    if (this.#cr && text.charCodeAt(0) === 10) text = text.slice(1);
    this.#cr = false;
    const lines: string[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      lines.push(text.slice(start, i));
      if (c === 13) {
        if (i + 1 === text.length) this.#cr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.#rest = text.slice(start);
    if (this.#rest.length > this.limit) throw new RangeError('a stream line is longer than the limit');
    return lines;
  }
}
