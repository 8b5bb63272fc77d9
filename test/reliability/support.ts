/**
 * Shared pieces of the reliability suites (issue 15, item 9): the route table read from the apps themselves,
 * the two error-body shapes, the seed, and the orchestrator built on a test gateway's store and source.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { startTestOrchestrator, type TestGateway } from '../../testing/gateway.js';

/** The seed every generated body derives from; `RELIABILITY_SEED=n` replays a run. */
export const SEED = Number(process.env.RELIABILITY_SEED ?? 20_261_126);

/** Which error body a surface answers with (docs/errors.md); the provider-compatible routes answer in the provider's. */
export type Style = 'agent' | 'envelope' | 'openai' | 'anthropic' | 'a2a';

/** The error body of one route of a surface: the gateway's provider-compatible routes answer in their provider's shape. */
export function routeStyle(style: Style, url: string): Style {
  if (style !== 'agent') return style;
  if (url === '/v1/chat/completions' || url.startsWith('/v1/models')) return 'openai';
  if (url === '/v1/messages') return 'anthropic';
  // A2A's HTTP+JSON binding answers its own failures in its own shape (docs/a2a.md); its JSON-RPC routes answer 200.
  if (url.startsWith('/a2a/') && /(message:|tasks)/.test(url)) return 'a2a';
  return style;
}

export interface Surface {
  name: 'gateway' | 'orchestrator';
  app: FastifyInstance;
  style: Style;
}

export interface Route {
  method: string;
  url: string;
}

/**
 * Every method and path the app serves, parsed from fastify's `printRoutes` tree, so that a route added later is
 * covered without editing these suites. Parametric segments (`:id`) are filled with `probe`.
 * NB: the tree nests a path under its longest registered prefix (`/metrics` → `/prometheus`); the indentation
 * (four characters per level) says which.
 */
export function routeTable(app: FastifyInstance): Route[] {
  const out: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const url = stack
      .join('')
      // NB: a parameter begins a segment and may carry a pattern (`:taskId(^[^:/]+)`); `::` after it is a literal colon.
      .replace(/\/:\w+(\([^)]*\))?/g, '/probe')
      .replace(/::/g, ':')
      .replace(/\*$/, 'probe');
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      out.push({ method, url });
  }
  if (!out.length) throw new Error(`no routes parsed from printRoutes:\n${app.printRoutes({ commonPrefix: false })}`);
  return out;
}

/** The orchestrator app on the test gateway's store and manifests (what `steward standalone` runs beside it). */
export async function startOrchestrator(gw: TestGateway): Promise<FastifyInstance> {
  // NB: the orchestrator shares the gateway's credentials (License and API keys), as `steward standalone` wires it.
  return (await startTestOrchestrator(gw)).app;
}

/** The code and message of an error answer in the surface's shape, or a description of what is wrong with it. */
export function errorOf(
  style: Style,
  res: { statusCode: number; body: string; headers: Record<string, unknown> },
): { code: string; message: string; requestId: string } | string {
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `status ${res.statusCode} with a body that is not JSON (${String(res.headers['content-type'])}): ${res.body.slice(0, 120)}`;
  }
  const b = body as Record<string, unknown>;
  if (style === 'openai' || style === 'anthropic') {
    const e = b.error as Record<string, unknown> | undefined;
    const shaped =
      style === 'openai'
        ? typeof e?.type === 'string' && 'param' in e
        : b.type === 'error' && typeof e?.type === 'string';
    if (!shaped || typeof e?.code !== 'string' || typeof e.message !== 'string' || typeof b.request_id !== 'string') {
      return `status ${res.statusCode} without the ${style} error body {error: {message, type, code}, request_id}: ${res.body.slice(0, 200)}`;
    }
    return { code: e.code, message: e.message, requestId: b.request_id };
  }
  if (style === 'a2a' && b.success !== false) {
    // NB: Steward's own refusals (credentials, tenant) keep Steward's shape, read below as the agent's.
    const e = b.error as Record<string, unknown> | undefined;
    const requestId = res.headers['x-request-id'];
    if (
      typeof e?.code !== 'number' ||
      typeof e.status !== 'string' ||
      typeof e.message !== 'string' ||
      typeof requestId !== 'string'
    ) {
      return `status ${res.statusCode} without the A2A error body {error: {code, status, message}} and X-Request-ID: ${res.body.slice(0, 200)}`;
    }
    return { code: e.status, message: e.message, requestId };
  }
  if (style === 'agent' || style === 'a2a') {
    if (
      b.success !== false ||
      typeof b.error !== 'string' ||
      typeof b.code !== 'string' ||
      typeof b.request_id !== 'string'
    ) {
      return `status ${res.statusCode} without {success:false, error, code, request_id}: ${res.body.slice(0, 200)}`;
    }
    return { code: b.code, message: b.error, requestId: b.request_id };
  }
  const e = b.error as Record<string, unknown> | undefined;
  if (
    b.success !== false ||
    typeof e !== 'object' ||
    e === null ||
    typeof e.code !== 'string' ||
    typeof e.message !== 'string' ||
    typeof e.request_id !== 'string' ||
    typeof e.timestamp !== 'string'
  ) {
    return `status ${res.statusCode} without {success:false, error:{code,message,request_id,timestamp}}: ${res.body.slice(0, 200)}`;
  }
  return { code: e.code, message: e.message, requestId: e.request_id };
}

/** Asserts an error answer has the surface's body with a code; returns the code. */
export function expectErrorBody(
  style: Style,
  res: LightMyRequestResponse | { statusCode: number; body: string; headers: Record<string, unknown> },
  label = '',
): string {
  const e = errorOf(style, res);
  if (typeof e === 'string') expect.fail(`${label}: ${e}`);
  return e.code;
}
