import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { steadyLoad } from './steady.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that answers at once, except that it freezes for `stallMs` when the request numbered `stallAt` arrives. */
async function serve(stallAt: number, stallMs: number): Promise<{ url: string; seen: () => number }> {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (++n === stallAt) {
        const until = performance.now() + stallMs;
        while (performance.now() < until); // the whole process stalls, as a GC pause or a busy server would
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/x`, seen: () => n };
}

describe('steadyLoad', () => {
  it('sends rate × duration requests, all answered', async () => {
    const { url, seen } = await serve(0, 0);
    const r = await steadyLoad({ url, body: '{}', rate: 400, durationS: 0.5 });
    expect(r.requests).toBe(200);
    expect(seen()).toBe(200);
    expect(r.errors).toBe(0);
    expect(r.non2xx).toBe(0);
    expect(r.p50).toBeGreaterThan(0);
    expect(r.p50).toBeLessThanOrEqual(r.p90);
    expect(r.p90).toBeLessThanOrEqual(r.p99);
    expect(r.p99).toBeLessThanOrEqual(r.max);
  });

  it('counts a stall against every request due during it (open loop, no coordinated omission)', async () => {
    // 500 req/s and a 200 ms stall: ~100 requests fall due while the server is frozen. A closed-loop generator
    // on 10 connections would have only its 10 requests in flight delayed (5%), so its p90 would not see it.
    const { url } = await serve(20, 200);
    const r = await steadyLoad({ url, body: '{}', rate: 500, durationS: 0.4, connections: 10 });
    expect(r.errors).toBe(0);
    expect(r.max).toBeGreaterThanOrEqual(150);
    expect(r.p90).toBeGreaterThanOrEqual(50);
  });
});
