import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmProviderError } from './errors.js';
import { MAX_ANSWER_BYTES, SseLines, WireClient } from './wire.js';

describe('SseLines', () => {
  const all = (parts: (string | Uint8Array)[], limit = 1000) => {
    const lines = new SseLines(limit);
    return parts.flatMap((p) => lines.push(typeof p === 'string' ? Buffer.from(p) : p));
  };

  it('splits on LF, CRLF and CR, also when a CRLF is cut between two chunks', () => {
    expect(all(['a\nb\r\nc\rd\r', '\ne\n'])).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(all(['a\r', '', '\nb\n'])).toEqual(['a', 'b']);
  });

  it('keeps a UTF-8 character that is cut between two chunks whole', () => {
    const bytes = Buffer.from('data: café ✓\n');
    const cut = bytes.indexOf(0xa9); // the second byte of é
    expect(all([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(['data: café ✓']);
  });

  it('throws RangeError for a line longer than its limit instead of buffering it', () => {
    expect(() => all(['x'.repeat(11)], 10)).toThrow(RangeError);
  });
});

describe('WireClient against a loopback server', () => {
  let server: Server | undefined;
  let client: WireClient | undefined;

  afterEach(async () => {
    await client?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = client = undefined;
  });

  async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<WireClient> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = new WireClient({ provider: 'p', baseURL: `http://127.0.0.1:${port}/v1/`, headers: { 'x-key': 'k' } });
    return client;
  }

  const call = (_c: WireClient) => ({
    path: '/chat',
    body: { q: 1 },
    signal: new AbortController().signal,
    timeoutMs: 5000,
  });

  async function failure(p: Promise<unknown>): Promise<LlmProviderError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LlmProviderError);
    return err as LlmProviderError;
  }

  it('posts JSON under the base path with the fixed headers and reads the JSON answer', async () => {
    let seen: { url?: string; key?: string; type?: string; body?: string } = {};
    const c = await serve((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d));
      req.on('end', () => {
        seen = { url: req.url, key: req.headers['x-key'] as string, type: req.headers['content-type'], body };
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      });
    });
    expect(await c.json(call(c))).toEqual({ ok: true });
    expect(seen).toEqual({ url: '/v1/chat', key: 'k', type: 'application/json', body: '{"q":1}' });
  });

  it("turns an error answer into its coded error with the provider's message and Retry-After", async () => {
    const c = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end('{"error":{"message":"slow down","type":"rate_limit_error"}}');
    });
    const err = await failure(c.json(call(c)));
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.status).toBe(429);
    expect(err.retryAfterSec).toBe(7);
    expect(err.message).toBe('p: provider answered: 429 slow down');
  });

  it('refuses an answer that is not JSON, or larger than the limit, as INVALID_RESPONSE', async () => {
    let big = false;
    const c = await serve((_req, res) => {
      if (!big) return res.end('<html>');
      res.write('['.padEnd(MAX_ANSWER_BYTES, ' '));
      res.end(' 1]');
    });
    expect((await failure(c.json(call(c)))).code).toBe('INVALID_RESPONSE');
    big = true;
    const err = await failure(c.json(call(c)));
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.message).toMatch(/larger than Steward reads/);
  });

  it('yields each event once, joins multi-line data, stops at [DONE] and skips comments and event names', async () => {
    const c = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keep-alive\n\nevent: message_start\ndata: {"a":');
      res.write('1}\n\ndata: {"b":\ndata: 2}\r\n\r\n');
      res.end('data: [DONE]\n\ndata: {"after":true}\n\n');
    });
    const got: unknown[] = [];
    for await (const e of await c.events(call(c))) got.push(e);
    expect(got).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('fails a stream on an error event with the code its type names, after the events before it', async () => {
    const c = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"message_start"}\n\n');
      res.end('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
    });
    const got: unknown[] = [];
    const err = await failure(
      (async () => {
        for await (const e of await c.events(call(c))) got.push(e);
      })(),
    );
    expect(got).toEqual([{ type: 'message_start' }]);
    expect(err.code).toBe('OVERLOADED');
    expect(err.message).toBe('p: provider failed the stream: Overloaded');
  });

  it('fails a stream whose event is not JSON as INVALID_RESPONSE', async () => {
    const c = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {oops\n\n');
    });
    const err = await failure(
      (async () => {
        for await (const _ of await c.events(call(c))) void _;
      })(),
    );
    expect(err.code).toBe('INVALID_RESPONSE');
  });

  it('reports a connection closed mid-stream as CONNECTION', async () => {
    const c = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const err = await failure(
      (async () => {
        for await (const _ of await c.events(call(c))) void _;
      })(),
    );
    expect(err.code).toBe('CONNECTION');
  });

  it('does not follow a redirect: the provider answered 3xx, nothing else is called', async () => {
    const paths: string[] = [];
    const c = await serve((req, res) => {
      paths.push(req.url!);
      res.writeHead(307, { location: '/elsewhere' });
      res.end();
    });
    const err = await failure(c.json(call(c)));
    expect(err.status).toBe(307);
    expect(paths).toEqual(['/v1/chat']);
  });
});
