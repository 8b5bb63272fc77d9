import { z } from 'zod';
import { agentError, envelopeError, validationResult } from './common.js';
import * as g from './gateway.js';
import * as o from './orchestrator.js';

/** One documented endpoint; the OpenAPI documents are generated from this table. */
export interface RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  summary: string;
  request?: z.ZodTypeAny;
  /** Alternative request media types besides application/json. */
  requestYaml?: boolean;
  response: z.ZodTypeAny;
  status?: number;
  /** The success answer's media type. @default application/json */
  responseType?: 'application/json' | 'text/plain';
  error: z.ZodTypeAny;
  /**
   * The route's credential rule, as its `config.auth.require` states it (a test compares the two): 'none' is
   * public (`security: []`), 'any' any credential, 'license-key' the organization's key, 'operator' the
   * operator token.
   */
  auth: 'none' | 'any' | 'license-key' | 'operator';
}

const anyObject = z.record(z.string(), z.unknown());
const prometheusText = z.string().describe('Prometheus text exposition format 0.0.4');

export const GATEWAY_ROUTES: RouteDoc[] = [
  { method: 'GET', path: '/health', auth: 'none', summary: 'Liveness and readiness; unauthenticated and cheap', response: g.gatewayHealth, error: agentError },
  { method: 'POST', path: '/health', auth: 'none', summary: 'Health with the license status of X-License-Key', response: g.gatewayHealth, error: agentError },
  { method: 'GET', path: '/metrics', auth: 'any', summary: "Request metrics of the caller's organization over a sliding window", response: g.gatewayMetrics, error: agentError },
  { method: 'GET', path: '/metrics/prometheus', auth: 'operator', summary: "The process's Prometheus metrics (operator token, or community mode)", response: prometheusText, responseType: 'text/plain', error: agentError },
  { method: 'POST', path: '/api/policy/pre-check', auth: 'any', summary: 'Evaluate a query against every enabled policy', request: g.preCheckRequest, response: g.policyDecision, error: agentError },
  { method: 'POST', path: '/api/audit/llm-call', auth: 'any', summary: 'Record an audit entry for an LLM call', request: g.auditRequest, response: g.auditResponse, error: agentError },
  { method: 'POST', path: '/api/policies/test', auth: 'any', summary: 'Evaluate policies without recording anything', request: g.policyTestRequest, response: g.policyTestResponse, error: agentError },
  { method: 'GET', path: '/api/clients', auth: 'license-key', summary: 'List clients', response: z.object({ clients: z.array(g.client) }), error: agentError },
  { method: 'POST', path: '/api/clients', auth: 'license-key', summary: 'Create a client; the api_key is returned once', request: g.createClientRequest, response: g.createClientResponse, status: 201, error: agentError },
  { method: 'POST', path: '/api/request', auth: 'any', summary: 'Governed request: LLM call or multi-agent plan', request: g.gatewayRequest, response: anyObject, error: agentError },
  { method: 'POST', path: '/v1/execute', auth: 'any', summary: 'Governed LLM call: pre-check, provider, audit', request: g.executeRequest, response: anyObject, error: agentError },
];

/**
 * The orchestrator's routes that exist today. NB: the plan, registry, dynamic-policy and webhook surfaces of the
 * reference (schemas in ./orchestrator.ts) join this table when their routes are served; the route-table test
 * fails on a documented route the app does not serve.
 */
export const ORCHESTRATOR_ROUTES: RouteDoc[] = [
  { method: 'GET', path: '/health', auth: 'none', summary: 'Liveness of the orchestrator process', response: o.orchestratorHealth, error: envelopeError },
  { method: 'GET', path: '/metrics/prometheus', auth: 'operator', summary: "The process's Prometheus metrics (operator token, or community mode)", response: prometheusText, responseType: 'text/plain', error: envelopeError },
  { method: 'POST', path: '/orchestrator/parallel', auth: 'license-key', summary: 'Run up to 100 queries (Rego decision, then MCP or LLM) on the agent pool, in parallel batches or one by one', request: o.parallelRequest, response: o.parallelResponse, error: envelopeError },
  { method: 'GET', path: '/orchestrator/health', auth: 'none', summary: 'The agent pool, the database and the load balancer; 503 when no agent (or too few) is healthy', response: o.orchestratorHealth, status: 200, error: envelopeError },
  { method: 'GET', path: '/orchestrator/metrics', auth: 'any', summary: "Parallel requests of the caller's organization over a sliding window, speedups, and each pool agent's figures", response: o.orchestratorMetrics, error: envelopeError },
  { method: 'GET', path: '/metrics', auth: 'any', summary: 'The same figures as GET /orchestrator/metrics (the reference clients call this path)', response: o.orchestratorMetrics, error: envelopeError },
  { method: 'POST', path: '/api/v1/agents/validate', auth: 'any', summary: 'Validate an AgentConfig (YAML or JSON); nothing is created', request: anyObject, requestYaml: true, response: validationResult, error: envelopeError },
];
