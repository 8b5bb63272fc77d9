/**
 * A standalone Steward for the governance console's browser tests, benchmark and screenshots (issue 40): community
 * mode with the sample manifests, a Budget, an OpenAI stand-in, and a `payments` HTTP connector whose refunds above
 * 500 need an approver (docs/approvals.md). The stand-in payments API counts the refunds it made, so a test can tell
 * that an approved call ran exactly once. Everything listens on 127.0.0.1; calls go over real sockets.
 */
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeOpenAi, type FakeOpenAiServer } from './llm/index.js';
import { startTestStandalone, type TestStandalone } from './standalone.js';
import type { Standalone } from '../runtime/standalone/main.js';

export const SSN = '123-45-6789';
/** A pre-check query the built-in `builtin-pii` policy blocks. */
export const SSN_QUERY = `My SSN is ${SSN}`;
/** A prompt the OpenAI stand-in answers with a card number, which arrives masked. */
export const CARD_PROMPT = 'CARD-PLEASE: which card is on file?';
/** The policy that parks large refunds. */
export const APPROVAL_POLICY = 'refunds-need-a-person';

const MANIFESTS: Record<string, string> = {
  'payments.yaml': `apiVersion: steward.dev/v1alpha1
kind: Connector
metadata: {name: payments}
spec:
  type: http
  connection: {fromEnv: PAYMENTS_URL}
  allowedOperations: [query, request]
  options: {readOnly: false, allowedCidrs: [127.0.0.0/8]}
---
apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: ${APPROVAL_POLICY}}
spec:
  type: custom
  rego: |
    package custom.refunds_need_a_person
    require_approval contains "refunds above 500 need a person" if {
      input.mcp.phase == "call"
      input.mcp.connector == "payments"
      input.mcp.arguments.path == "/refunds"
      input.mcp.arguments.body.amount > 500
    }
`,
  'budget.yaml': `apiVersion: steward.dev/v1alpha1
kind: Budget
metadata: {name: community-monthly}
spec:
  scope: {}
  limit: {usd: 50, tokens: 2000000}
  window: {period: month}
  action: warn
  thresholds: [50, 80, 100]
`,
};

export interface ConsoleWorld {
  sa: TestStandalone;
  app: Standalone;
  /** `http://127.0.0.1:<port>` of the gateway, which serves the console at `/console`. */
  gateway: string;
  /** How many refunds the stand-in payments API made (POST /refunds that reached it). */
  refunds(): number;
  llm: FakeOpenAiServer;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  json: Record<string, unknown>;
  text: string;
}

export interface ConsoleWorldOptions {
  /** More standalone settings (they win over the world's). */
  env?: Record<string, string>;
}

/** Starts the world; `close()` stops the standalone and the stand-ins and removes the data folder. */
export async function startConsoleWorld(o: ConsoleWorldOptions = {}): Promise<ConsoleWorld> {
  let refunds = 0;
  const payments = createServer(paymentsApi(() => refunds++));
  const paymentsUrl = await listen(payments);
  const llm = await startFakeOpenAi({
    apiKey: 'sk-upstream',
    otherwise: (req) =>
      req.rawBody.includes('CARD-PLEASE')
        ? { kind: 'reply', text: 'The card on file is 4111 1111 1111 1111.' }
        : { kind: 'reply', text: 'Sunny and mild.' },
  });
  let sa: TestStandalone;
  try {
    sa = await startTestStandalone({
      samples: true,
      manifests: MANIFESTS,
      env: {
        OPENAI_API_KEY: 'sk-upstream',
        OPENAI_BASE_URL: llm.baseURL,
        STEWARD_OPENAI_MODEL: 'gpt-4o-mini',
        STEWARD_LLM_TIMEOUT_MS: '10000',
        ...o.env,
      },
      processEnv: { PAYMENTS_URL: paymentsUrl },
    });
  } catch (err) {
    await llm.close();
    await stop(payments);
    throw err;
  }
  return {
    sa,
    app: sa.app,
    gateway: sa.gateway,
    refunds: () => refunds,
    llm,
    async close() {
      await sa.close();
      await llm.close();
      await stop(payments);
    },
  };
}

/** One JSON call to the gateway over its socket. */
export async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: `text` has it
  }
  return { status: res.status, json, text };
}

/** `POST /api/policy/pre-check` without a credential (community mode), as the demo client. */
export const preCheck = (w: ConsoleWorld, query: string) =>
  call(w.gateway, 'POST', '/api/policy/pre-check', { client_id: 'demo', user_token: 'me', query });

/** A refund through the `payments` connector (`POST /mcp/tools/execute`), without a credential. */
export const refund = (w: ConsoleWorld, amount: number, approvalId?: string) =>
  call(w.gateway, 'POST', '/mcp/tools/execute', {
    connector: 'payments',
    tool: 'request',
    params: { method: 'POST', path: '/refunds', body: { amount } },
    ...(approvalId ? { approval_id: approvalId } : {}),
  });

/** A new API key (`POST /api/clients`, anyone may in community mode) with these roles. */
export async function createApiKey(w: ConsoleWorld, name: string, roles: string[] = []): Promise<string> {
  const res = await call(w.gateway, 'POST', '/api/clients', { name, ...(roles.length ? { roles } : {}) });
  if (res.status !== 201) throw new Error(`POST /api/clients answered ${res.status}: ${res.text}`);
  return String(res.json.api_key);
}

/** A governed call through the OpenAI stand-in (`POST /v1/execute`). */
export const execute = (w: ConsoleWorld, prompt: string) => call(w.gateway, 'POST', '/v1/execute', { prompt });

/** Parks a refund above the threshold; answers the approval's id. */
export async function parkRefund(w: ConsoleWorld, amount: number): Promise<string> {
  const res = await refund(w, amount);
  const id = (res.json.details as { approval_id?: unknown } | undefined)?.approval_id;
  if (res.status !== 403 || res.json.code !== 'APPROVAL_REQUIRED' || typeof id !== 'string')
    throw new Error(`the refund of ${amount} was not parked: ${res.status} ${res.text}`);
  return id;
}

/**
 * Writes `count` audit rows of the community organization straight into the store (allowed, a block every tenth,
 * a redaction every seventh), in groups the store commits together: a long history for paging and summaries.
 */
export async function seedAudit(app: Standalone, count: number): Promise<void> {
  const GROUP = 500;
  for (let start = 0; start < count; start += GROUP) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + GROUP); i++) {
      const decision = i % 10 === 0 ? 'blocked_input' : i % 7 === 0 ? 'redacted' : 'allowed';
      rows.push(
        app.store.audit.record({
          organizationId: 'community',
          clientId: `seed-client-${i % 5}`,
          contextId: null,
          provider: 'openai',
          model: 'gpt-4o-mini',
          prompt: `seeded prompt ${i}`,
          response: decision === 'blocked_input' ? undefined : `seeded answer ${i}`,
          latencyMs: 20 + (i % 50),
          metadata: {
            decision,
            surface: 'llm',
            via: 'execute',
            steward_ms: 1 + (i % 9),
            ...(decision === 'blocked_input' ? { policies: ['builtin-pii'], block_reason: 'builtin-pii: seeded' } : {}),
            ...(decision === 'redacted' ? { redactions: { email: 1 } } : {}),
          },
        }),
      );
    }
    await Promise.all(rows);
  }
}

/** The stand-in payments API: POST /refunds (counted), GET /customers/1 (an e-mail the gateway masks), /health. */
function paymentsApi(refunded: () => void): RequestListener {
  return (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'POST' && req.url === '/refunds') {
        refunded();
        return json(200, { refunded: true, ...(body ? (JSON.parse(body) as object) : {}) });
      }
      if (req.url === '/customers/1') return json(200, { id: 1, name: 'Ada', email: 'ada.lovelace@corp.io' });
      if (req.url === '/' || req.url === '/health') return json(200, { ok: true });
      json(404, { error: 'not found' });
    });
  };
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  server.close();
  await once(server, 'close').catch(() => undefined);
}
