/**
 * The `a2a` connector against stand-in remote agents built with the official SDK (testing/a2a.ts), through real
 * sockets: a card is used only once its signature verifies against a trusted key, a forged or untrusted card fails
 * closed with A2A_CARD_UNVERIFIED, the SSRF guard holds the card and its interfaces, and a message comes back as the
 * agent's task, streamed or polled.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInAgent, type StandInAgent } from '../../../testing/a2a.js';
import { A2A_SEND_TOOL } from '../../../api/index.js';
import { ConnectorError } from '../errors.js';
import { createConnector } from '../factory.js';
import { cardLocation } from '../kinds/a2a.js';
import type { Connector } from '../types.js';
import { connectorDoc } from './fixtures.js';

let agent: StandInAgent;
let polled: StandInAgent;
let forged: StandInAgent;
let keysServer: Server;
let keysUrl: string;
const open: Connector[] = [];
const limits = { timeoutMs: 5000, maxRows: 1000, maxResultBytes: 1 << 20, redact: false };
const local = { allowedCidrs: ['127.0.0.0/8'] };

const make = async (url: string, options: Record<string, unknown>) => {
  const c = await createConnector(connectorDoc('remote', 'a2a', 'AGENT_URL', { options }), url);
  open.push(c);
  return c;
};
/** The code and reason a call fails with. */
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectorError);
  return { code: (err as ConnectorError).code, reason: (err as ConnectorError).reason };
};

beforeAll(async () => {
  agent = await startStandInAgent({ token: 'remote-token' });
  polled = await startStandInAgent({ streaming: false, answer: (t) => `polled: ${t}` });
  forged = await startStandInAgent();
  forged.tamper();
  keysServer = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(agent.keys)),
  );
  await new Promise<void>((r) => keysServer.listen(0, '127.0.0.1', r));
  keysUrl = `http://127.0.0.1:${(keysServer.address() as { port: number }).port}/keys.json`;
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await Promise.all([agent?.close(), polled?.close(), forged?.close()]);
  keysServer?.close();
});

describe('a2a connector', () => {
  it('verifies the card, then sends a message with the credentials of the connection URL and reads the streamed task', async () => {
    const withToken = agent.url.replace('http://', 'http://bearer:remote-token@');
    const c = await make(withToken, { ...local, cardKeys: agent.keys });
    await c.connect();
    expect(c.tools()).toMatchObject([{ name: A2A_SEND_TOOL, description: expect.stringContaining('stand-in') }]);
    const res = await c.execute(A2A_SEND_TOOL, { text: 'hello there' }, limits);
    expect(res.result).toMatchObject({
      state: 'completed',
      text: 'echo: hello there',
      task_id: expect.any(String),
      context_id: expect.any(String),
      artifacts: [{ name: 'answer', parts: [] }],
    });
    expect(agent.heard.at(-1)).toMatchObject({ text: 'hello there', authorization: 'Bearer remote-token' });
  });

  it('sends and then polls a task when the card offers no streaming', async () => {
    const c = await make(polled.url, { ...local, cardKeys: polled.keys });
    const res = await c.execute(A2A_SEND_TOOL, { text: 'ping' }, limits);
    expect(res.result).toMatchObject({ state: 'completed', text: 'polled: ping' });
  });

  it('trusts the keys served at cardKeysUrl', async () => {
    const c = await make(agent.url.replace('http://', 'http://bearer:remote-token@'), {
      ...local,
      cardKeysUrl: keysUrl,
    });
    expect((await c.health(5000)).ok).toBe(true);
  });

  it('fails closed on a card changed after signing, and never sends the message', async () => {
    const c = await make(forged.url, { ...local, cardKeys: forged.keys });
    const health = await c.health(5000);
    expect(health).toMatchObject({ ok: false, error: expect.stringMatching(/no signature that verifies/) });
    expect(await refusal(c.execute(A2A_SEND_TOOL, { text: 'secret plans' }, limits))).toEqual({
      code: 'A2A_CARD_UNVERIFIED',
      reason: 'BAD_SIGNATURE',
    });
    expect(forged.heard).toEqual([]);
  });

  it('fails closed on a card signed with a key the connector does not trust, and on an unsigned card', async () => {
    const untrusted = await make(polled.url, { ...local, cardKeys: agent.keys });
    expect(await refusal(untrusted.execute(A2A_SEND_TOOL, { text: 'hi' }, limits))).toEqual({
      code: 'A2A_CARD_UNVERIFIED',
      reason: 'UNKNOWN_KEY',
    });
    const unsigned = createServer((req, res) => {
      if (req.url !== '/.well-known/agent-card.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          name: 'unsigned',
          description: 'no signature',
          supportedInterfaces: [{ url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          version: '1',
          skills: [],
        }),
      );
    });
    await new Promise<void>((r) => unsigned.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(unsigned.address() as { port: number }).port}/`;
      const strict = await make(url, { ...local, cardKeys: agent.keys });
      expect(await refusal(strict.connect())).toEqual({ code: 'A2A_CARD_UNVERIFIED', reason: 'NO_SIGNATURE' });
      // unsignedCard trusts it, and the SSRF guard still holds its interface (another port: another origin).
      const lab = await make(url, { ...local, unsignedCard: true });
      expect(await refusal(lab.connect())).toMatchObject({ code: 'SSRF_REFUSED', reason: 'OTHER_ORIGIN' });
    } finally {
      unsigned.close();
    }
  });

  it('refuses a private address the connector does not allow, and a connector that names no trusted key', async () => {
    // NB: an IP-literal host is refused when the connector is built; a name is refused when it resolves.
    expect(await refusal(make(agent.url, { cardKeys: agent.keys }))).toMatchObject({
      code: 'SSRF_REFUSED',
      reason: 'PRIVATE_ADDRESS',
    });
    const named = await make(agent.url.replace('127.0.0.1', 'localhost'), { cardKeys: agent.keys });
    expect(await refusal(named.connect())).toMatchObject({ code: 'SSRF_REFUSED', reason: 'PRIVATE_ADDRESS' });
    expect(await refusal(make(agent.url, { ...local }))).toMatchObject({ code: 'CONNECTOR_MISCONFIGURED' });
  });

  it('refuses bad parameters and other tools with coded errors', async () => {
    const c = await make(agent.url, { ...local, cardKeys: agent.keys });
    expect(await refusal(c.execute(A2A_SEND_TOOL, {}, limits))).toMatchObject({ code: 'INVALID_PARAMS' });
    expect(await refusal(c.execute(A2A_SEND_TOOL, { text: 42 }, limits))).toMatchObject({ code: 'INVALID_PARAMS' });
    expect(await refusal(c.execute('delete', { text: 'x' }, limits))).toMatchObject({
      code: 'OPERATION_NOT_ALLOWED',
      reason: 'UNKNOWN_TOOL',
    });
  });
});

describe('cardLocation', () => {
  it("reads a card's URL or an agent's base URL", () => {
    const at = (url: string) => {
      const { base, card } = cardLocation(url);
      return [base, card.href];
    };
    expect(at('https://a.example/agents/x/.well-known/agent-card.json')).toEqual([
      'https://a.example/agents/x/',
      'https://a.example/agents/x/.well-known/agent-card.json',
    ]);
    expect(at('https://a.example/agents/x')).toEqual([
      'https://a.example/agents/x/',
      'https://a.example/agents/x/.well-known/agent-card.json',
    ]);
    expect(at('https://a.example/')).toEqual(['https://a.example/', 'https://a.example/.well-known/agent-card.json']);
    expect(at('https://a.example/cards/x.json')).toEqual([
      'https://a.example/cards/',
      'https://a.example/cards/x.json',
    ]);
  });
});
