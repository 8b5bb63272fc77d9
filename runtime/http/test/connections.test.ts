import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp, type ConnectionSettings } from '../app.js';
import { createLogger } from '../../../platform/log.js';

/**
 * Slow and idle clients are closed by the server, and what node's HTTP parser refuses answers in the surface's
 * JSON shape. Real sockets; every wait has a deadline far above the configured timeout, and nothing asserts
 * how fast the server was.
 */
const SETTINGS: ConnectionSettings = {
  headersTimeoutMs: 500,
  requestTimeoutMs: 1000,
  keepAliveTimeoutMs: 300,
  socketTimeoutMs: 10_000,
  maxRequestsPerSocket: 0,
  maxConnections: 3,
};
const DEADLINE_MS = 8000;

let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = createHttpApp({
    log: createLogger({ level: 'silent' }),
    bodyLimitBytes: 1 << 20,
    surface: 'gateway',
    errorStyle: 'agent',
    connections: SETTINGS,
  });
  app.post('/slow', async () => {
    // Longer than the request timeout: waiting for the answer is not the client's time.
    await new Promise((r) => setTimeout(r, SETTINGS.requestTimeoutMs + 500));
    return { ok: true };
  });
  app.get('/ok', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await app?.close();
});

/** A raw connection that collects what the server sends and resolves `closed` when the server ends it. */
function open(): { socket: Socket; received: () => string; closed: Promise<boolean> } {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d.toString('utf8')));
  socket.on('error', () => {});
  const closed = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), DEADLINE_MS);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  return { socket, received: () => data, closed };
}

const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

describe('slow and idle clients', () => {
  it('closes a client that sends its headers one byte at a time, with 408 REQUEST_TIMEOUT', async () => {
    const c = open();
    const header = 'GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(200);
    let i = 0;
    const drip = setInterval(() => {
      if (!c.socket.destroyed && i < header.length) c.socket.write(header[i++]!);
    }, 50);
    const closed = await c.closed;
    clearInterval(drip);
    expect(closed).toBe(true);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(c.received())).toMatchObject({
      success: false,
      code: 'REQUEST_TIMEOUT',
      request_id: expect.any(String),
    });
  });

  it('closes a client that sends a body slower than the request timeout', async () => {
    const c = open();
    c.socket.write('POST /slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const drip = setInterval(() => !c.socket.destroyed && c.socket.write(' '), 100);
    const closed = await c.closed;
    clearInterval(drip);
    expect(closed).toBe(true);
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection that never sends anything', async () => {
    const c = open();
    expect(await c.closed).toBe(true);
  });

  it('closes an idle keep-alive connection after an answer', async () => {
    const c = open();
    c.socket.write('GET /ok HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await c.closed).toBe(true);
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('still answers a request whose handler takes longer than the request timeout', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
  });

  it('drops connections past the maximum', async () => {
    const held = [open(), open(), open()];
    for (const h of held) h.socket.write('GET /ok HTTP/1.1\r\nHost: x\r\n'); // open, headers unfinished
    await new Promise((r) => setTimeout(r, 100));
    const extra = open();
    extra.socket.write('GET /ok HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await extra.closed).toBe(true);
    expect(extra.received()).toBe('');
    for (const h of held) h.socket.destroy();
  });
});

describe("errors of node's HTTP parser", () => {
  it('answers headers over 16 KiB with 431 HEADERS_TOO_LARGE in the JSON shape', async () => {
    const c = open();
    c.socket.write(`GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(await c.closed).toBe(true);
    expect(c.received()).toMatch(/^HTTP\/1\.1 431 /);
    expect(c.received()).toMatch(/\r\nX-Request-ID: [0-9a-f-]{36}\r\n/);
    expect(bodyOf(c.received())).toMatchObject({
      success: false,
      code: 'HEADERS_TOO_LARGE',
      request_id: expect.any(String),
    });
  });

  it('answers a malformed request with 400 INVALID_REQUEST in the JSON shape', async () => {
    const c = open();
    c.socket.write('GET /ok HTTP/1.1\r\nHost x\r\nBad Header\r\n\r\n');
    expect(await c.closed).toBe(true);
    expect(c.received()).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(c.received())).toMatchObject({
      success: false,
      code: 'INVALID_REQUEST',
      request_id: expect.any(String),
    });
  });

  it('answers a URL fastify cannot decode with 400 INVALID_REQUEST in the JSON shape', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/ok%zz`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INVALID_REQUEST', request_id: res.headers.get('x-request-id') });
  });
});
