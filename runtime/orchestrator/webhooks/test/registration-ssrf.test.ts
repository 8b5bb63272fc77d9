import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../../../../testing/gateway.js';

/**
 * Registration refuses every spelling of a special-purpose address the shared policy (runtime/net) knows, on POST
 * and on PUT: the IPv6 forms that carry an IPv4 address, and the ranges the webhook list used to miss.
 */
let gw: TestGateway;
let orchestrator: TestOrchestrator;
let app: FastifyInstance;
let id: string;

beforeAll(async () => {
  gw = await startTestGateway({ policyPack: false });
  orchestrator = await startTestOrchestrator(gw);
  app = orchestrator.app;
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: { 'x-license-key': gw.keys.acme },
    payload: { url: 'https://hooks.example.com/ssrf', events: ['plan.completed'] },
  });
  expect(res.statusCode).toBe(201);
  id = res.json().id;
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

describe('webhook registration SSRF', () => {
  it.each([
    ['IPv4-compatible loopback', 'http://[::7f00:1]/x'],
    ['IPv4-compatible loopback, dotted', 'http://[::127.0.0.1]/x'],
    ['IPv4-translated loopback', 'http://[::ffff:0:7f00:1]/x'],
    ['IPv4-translated metadata address', 'http://[::ffff:0:169.254.169.254]/x'],
    ['IPv4-mapped metadata address in hex', 'http://[::ffff:a9fe:a9fe]/x'],
    ['NAT64 of the metadata address', 'http://[64:ff9b::a9fe:a9fe]/x'],
    ['6to4 of loopback', 'http://[2002:7f00:1::1]/x'],
    ['6to4 of a public address', 'http://[2002:808:808::1]/x'],
    ['Teredo with loopback as its client', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x'],
    ['a site-local address', 'http://[fec0::1]/x'],
    ['TEST-NET-1', 'http://192.0.2.1/x'],
    ['TEST-NET-2', 'http://198.51.100.7/x'],
    ['TEST-NET-3', 'http://203.0.113.9/x'],
    ['IPv6 documentation', 'http://[2001:db8::1]/x'],
  ])('refuses %s (%s) on POST and PUT with 400 INVALID_REQUEST', async (_name, url) => {
    const headers = { 'x-license-key': gw.keys.acme };
    const post = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers,
      payload: { url, events: ['plan.completed'] },
    });
    expect(post.statusCode).toBe(400);
    expect(post.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { fields: [{ field: 'url' }] } });
    const put = await app.inject({ method: 'PUT', url: `/api/v1/webhooks/${id}`, headers, payload: { url } });
    expect(put.statusCode).toBe(400);
  });

  it('still registers a public IPv6 literal', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/webhooks/${id}`,
      headers: { 'x-license-key': gw.keys.acme },
      payload: { url: 'http://[2606:4700:4700::1111]/x' },
    });
    expect(res.statusCode).toBe(200);
  });
});
