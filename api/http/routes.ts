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
  error: z.ZodTypeAny;
}

const anyObject = z.record(z.string(), z.unknown());

export const GATEWAY_ROUTES: RouteDoc[] = [
  { method: 'GET', path: '/health', summary: 'Liveness and readiness; unauthenticated and cheap', response: g.gatewayHealth, error: agentError },
  { method: 'POST', path: '/health', summary: 'Health with the license status of X-License-Key', response: g.gatewayHealth, error: agentError },
  { method: 'GET', path: '/metrics', summary: 'Request metrics over a sliding window', response: g.gatewayMetrics, error: agentError },
  { method: 'POST', path: '/api/policy/pre-check', summary: 'Evaluate a query against every enabled policy', request: g.preCheckRequest, response: g.policyDecision, error: agentError },
  { method: 'POST', path: '/api/audit/llm-call', summary: 'Record an audit entry for an LLM call', request: g.auditRequest, response: g.auditResponse, error: agentError },
  { method: 'POST', path: '/api/policies/test', summary: 'Evaluate policies without recording anything', request: g.policyTestRequest, response: g.policyTestResponse, error: agentError },
  { method: 'GET', path: '/api/clients', summary: 'List clients', response: z.object({ clients: z.array(g.client) }), error: agentError },
  { method: 'POST', path: '/api/clients', summary: 'Create a client; the api_key is returned once', request: g.createClientRequest, response: g.createClientResponse, status: 201, error: agentError },
  { method: 'POST', path: '/api/request', summary: 'Governed request: LLM call or multi-agent plan', request: g.gatewayRequest, response: anyObject, error: agentError },
  { method: 'POST', path: '/v1/execute', summary: 'Governed LLM call: pre-check, provider, audit', request: g.executeRequest, response: anyObject, error: agentError },
];

export const ORCHESTRATOR_ROUTES: RouteDoc[] = [
  { method: 'GET', path: '/health', summary: 'Liveness of the orchestrator process', response: o.orchestratorHealth, error: envelopeError },
  { method: 'POST', path: '/api/v1/plan', summary: 'Generate and execute a multi-agent plan', request: o.planRequest, response: o.planResponse, error: envelopeError },
  { method: 'GET', path: '/api/v1/agents', summary: 'List registry agents (filters: domain, capability, type)', response: o.agentList, error: envelopeError },
  { method: 'GET', path: '/api/v1/agents/{agentName}', summary: 'One registry agent in detail', response: o.registryAgent, error: envelopeError },
  { method: 'POST', path: '/api/v1/agents/validate', summary: 'Validate an AgentConfig (YAML or JSON); nothing is created', request: anyObject, requestYaml: true, response: validationResult, error: envelopeError },
  { method: 'GET', path: '/api/v1/policies', summary: 'List dynamic policies', response: z.object({ policies: z.array(o.dynamicPolicy) }), error: envelopeError },
  { method: 'POST', path: '/api/v1/policies', summary: 'Create a dynamic policy', request: o.dynamicPolicy, response: o.dynamicPolicy, status: 201, error: envelopeError },
  { method: 'POST', path: '/api/v1/webhooks', summary: 'Register a webhook (enterprise)', request: o.webhookRegistration, response: o.webhook, status: 201, error: envelopeError },
  { method: 'POST', path: '/orchestrator/parallel', summary: 'Run several queries across the agent pool', request: o.parallelRequest, response: o.parallelResponse, error: envelopeError },
  { method: 'GET', path: '/orchestrator/health', summary: 'Orchestrator and pool health (503 when unhealthy)', response: o.orchestratorHealth, error: envelopeError },
  { method: 'GET', path: '/orchestrator/metrics', summary: 'Orchestrator metrics', response: anyObject, error: envelopeError },
];
