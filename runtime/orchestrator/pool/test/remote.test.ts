import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentBusyError } from '../../../agent/work.js';
import { AgentCommunicationError } from '../errors.js';
import { AgentPool } from '../pool.js';
import { RemoteAgent } from '../remote-agent.js';
import { StaticSource } from '../static-source.js';
import { HttpAgent } from './http-agent.js';
import { item, until } from './fakes.js';

const servers: HttpAgent[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const s of servers.splice(0)) await s.stop();
});

async function server(): Promise<HttpAgent> {
  const s = await new HttpAgent().start();
  servers.push(s);
  return s;
}

function remote(endpoint: string, deadlineMarginMs = 1000): RemoteAgent {
  const agent = new RemoteAgent({ endpoint, deadlineMarginMs });
  closers.push(() => agent.close());
  return agent;
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('RemoteAgent', () => {
  it('posts items to /v1/work over kept-alive connections', async () => {
    const s = await server();
    const agent = remote(s.endpoint);
    const queries = ['1', '2', '3', '4', '5', '6'];
    for (const q of queries)
      await expect(agent.execute(item(q))).resolves.toMatchObject({ status: 'success', result: q });
    expect(s.received.map((w) => w.query)).toEqual(queries);
    // NB: undici may open a second connection while the first finishes a response; never one per call.
    expect(s.connections).toBeLessThanOrEqual(2);
  });

  it('turns 429 AGENT_BUSY into AgentBusyError', async () => {
    const s = await server();
    s.mode = 'busy';
    await expect(remote(s.endpoint).execute(item('q'))).rejects.toBeInstanceOf(AgentBusyError);
  });

  it.each([
    { name: 'a 5xx answer', failure: 'status', prepare: (s: HttpAgent) => void (s.mode = 'error') },
    { name: 'a stopped agent', failure: 'connect', prepare: (s: HttpAgent) => s.stop() },
  ])('turns $name into AGENT_COMMUNICATION_ERROR ($failure)', async ({ failure, prepare }) => {
    const s = await server();
    await prepare(s);
    const err = await failureOf(remote(s.endpoint).execute(item('q')));
    expect(err).toBeInstanceOf(AgentCommunicationError);
    expect(err).toMatchObject({ code: 'AGENT_COMMUNICATION_ERROR', failure });
  });

  it('gives up at the item timeout plus the margin when the agent does not answer', async () => {
    const s = await server();
    s.mode = 'hang';
    const err = await failureOf(remote(s.endpoint, 20).execute(item('q', 30)));
    expect(err).toMatchObject({ code: 'AGENT_COMMUNICATION_ERROR', failure: 'deadline' });
  });

  it("rejects with the caller's reason when the caller aborts", async () => {
    const s = await server();
    s.mode = 'hang';
    const controller = new AbortController();
    const call = failureOf(remote(s.endpoint).execute(item('q'), controller.signal));
    await until(() => s.received.length === 1, 'the agent received the item');
    controller.abort(new Error('client went away'));
    const err = await call;
    expect(err).not.toBeInstanceOf(AgentCommunicationError);
    expect(err).toMatchObject({ message: 'client went away' });
  });

  it('probes /readyz and keeps the stats of /v1/stats', async () => {
    const s = await server();
    s.maxInFlight = 7;
    const agent = remote(s.endpoint);
    await agent.probe(AbortSignal.timeout(2000));
    expect(agent.stats()).toMatchObject({ maxInFlight: 7, memoryMb: 64, inFlight: 0 });
    s.ready = false;
    await expect(agent.probe(AbortSignal.timeout(2000))).rejects.toBeInstanceOf(AgentCommunicationError);
  });
});

/** A throw-away self-signed certificate for 127.0.0.1, made with the openssl CLI. */
function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-cert-'));
  try {
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('RemoteAgent over https', () => {
  it('speaks HTTP/2 with TLS 1.3 to an https endpoint', async () => {
    const { key, cert } = selfSignedCert();
    const seen: { httpVersion: string; tls: string | null }[] = [];
    const h2 = createSecureServer({ key, cert, minVersion: 'TLSv1.3' }, (req, res) => {
      seen.push({
        httpVersion: req.httpVersion,
        tls: (req.socket as unknown as { getProtocol(): string | null }).getProtocol(),
      });
      if (req.url === '/v1/work') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            status: 'success',
            policyDecision: 'allow',
            result: 'over h2',
            latencyMs: 1,
            agentId: 'tls-agent',
          }),
        );
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', () => resolve()));
    closers.push(() => new Promise<void>((resolve) => h2.close(() => resolve())));
    const port = (h2.address() as AddressInfo).port;
    const agent = new RemoteAgent({ endpoint: `https://127.0.0.1:${port}`, ca: cert });
    closers.unshift(() => agent.close());

    await expect(agent.execute(item('q'))).resolves.toMatchObject({ result: 'over h2', agentId: 'tls-agent' });
    expect(seen).toEqual([{ httpVersion: '2.0', tls: 'TLSv1.3' }]);
  });
});

describe('AgentPool with remote members', () => {
  async function staticPool(...endpoints: string[]): Promise<AgentPool> {
    const pool = await AgentPool.start({ source: new StaticSource(endpoints), probeIntervalMs: 50 });
    closers.push(() => pool.close());
    return pool;
  }

  it('dispatches only once a probe found the member ready', async () => {
    const [up, notReady] = [await server(), await server()];
    notReady.ready = false;
    const pool = await staticPool(up.endpoint, notReady.endpoint);
    expect(pool.status()).toEqual({ desired: 2, available: 2, healthy: 1, unhealthy: 1 });
    await pool.dispatch(item('1'));
    await pool.dispatch(item('2'));
    expect(up.received).toHaveLength(2);
    expect(notReady.received).toHaveLength(0);
  });

  it('marks a stopped member unhealthy, sends items to the others and takes it back after a probe', async () => {
    const [a, b] = [await server(), await server()];
    const pool = await staticPool(a.endpoint, b.endpoint);
    expect(pool.status().healthy).toBe(2);
    await a.stop();
    // NB: the probe or a call finds out, whichever comes first: a call may still meet a kept-alive connection
    // that the agent closed (AGENT_COMMUNICATION_ERROR, never retried: the item may have been sent).
    const outcomes = await Promise.all([failureOf(pool.dispatch(item('1'))), failureOf(pool.dispatch(item('2')))]);
    for (const o of outcomes) if (o !== undefined) expect(o).toBeInstanceOf(AgentCommunicationError);
    await until(
      () => pool.members().find((m) => m.key === a.endpoint)?.health === 'unhealthy',
      'a is marked unhealthy',
    );
    const member = pool.members().find((m) => m.key === a.endpoint);
    expect(member).toMatchObject({ health: 'unhealthy', inFlight: 0 });
    expect(pool.status()).toEqual({ desired: 2, available: 2, healthy: 1, unhealthy: 1 });

    // While it is unhealthy, every item goes to b.
    await pool.dispatch(item('3'));
    await pool.dispatch(item('4'));
    expect(b.received.map((w) => w.query)).toEqual(expect.arrayContaining(['3', '4']));

    await a.start();
    await until(() => pool.status().healthy === 2, 'the probe brings a back');
    expect(pool.members().find((m) => m.key === a.endpoint)).not.toHaveProperty('lastError');
  });
});
