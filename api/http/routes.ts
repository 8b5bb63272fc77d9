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
  {
    method: 'GET',
    path: '/health',
    auth: 'none',
    summary: 'Liveness and readiness; unauthenticated and cheap',
    response: g.gatewayHealth,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/health',
    auth: 'none',
    summary: 'Health with the license status of X-License-Key',
    response: g.gatewayHealth,
    error: agentError,
  },
  {
    method: 'GET',
    path: '/healthz',
    auth: 'none',
    summary: 'Liveness probe: the process serves',
    response: g.gatewayProbe,
    error: agentError,
  },
  {
    method: 'GET',
    path: '/readyz',
    auth: 'none',
    summary: 'Readiness probe: informers synced, database reachable, not draining; 503 with the reason otherwise',
    response: g.gatewayProbe,
    error: agentError,
  },
  {
    method: 'GET',
    path: '/metrics',
    auth: 'any',
    summary: "Request metrics of the caller's organization over a sliding window",
    response: g.gatewayMetrics,
    error: agentError,
  },
  {
    method: 'GET',
    path: '/metrics/prometheus',
    auth: 'operator',
    summary: "The process's Prometheus metrics (operator token, or community mode)",
    response: prometheusText,
    responseType: 'text/plain',
    error: agentError,
  },
  {
    method: 'POST',
    path: '/api/policy/pre-check',
    auth: 'any',
    summary: 'Evaluate a query against every enabled policy',
    request: g.preCheckRequest,
    response: g.policyDecision,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/api/audit/llm-call',
    auth: 'any',
    summary: 'Record an audit entry for an LLM call',
    request: g.auditRequest,
    response: g.auditResponse,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/api/policies/test',
    auth: 'any',
    summary: 'Evaluate policies without recording anything',
    request: g.policyTestRequest,
    response: g.policyTestResponse,
    error: agentError,
  },
  {
    method: 'GET',
    path: '/api/clients',
    auth: 'license-key',
    summary: 'List clients',
    response: z.object({ clients: z.array(g.client) }),
    error: agentError,
  },
  {
    method: 'POST',
    path: '/api/clients',
    auth: 'license-key',
    summary: 'Create a client; the api_key is returned once',
    request: g.createClientRequest,
    response: g.createClientResponse,
    status: 201,
    error: agentError,
  },
  {
    method: 'DELETE',
    path: '/api/clients/{id}',
    auth: 'license-key',
    summary: "Revoke a client's API key, at once on every replica (audited)",
    response: g.revokeClientResponse,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/api/request',
    auth: 'any',
    summary: 'Governed request: LLM call or multi-agent plan',
    request: g.gatewayRequest,
    response: anyObject,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/v1/execute',
    auth: 'any',
    summary: 'Governed LLM call: pre-check, provider, audit',
    request: g.executeRequest,
    response: anyObject,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/v1/chat/completions',
    auth: 'any',
    summary:
      "OpenAI-compatible governed chat completion (docs/llm-proxy.md): policies on every user and system message, provider, audit; `stream: true` answers text/event-stream; errors in OpenAI's shape",
    request: g.chatCompletionRequest,
    response: g.chatCompletion,
    error: g.openAiError,
  },
  {
    method: 'GET',
    path: '/v1/models',
    auth: 'any',
    summary: "The configured providers' models in OpenAI's list shape (`provider/model` ids)",
    response: g.modelList,
    error: g.openAiError,
  },
  {
    method: 'POST',
    path: '/v1/messages',
    auth: 'any',
    summary:
      "Anthropic-compatible governed message (docs/llm-proxy.md); `stream: true` answers text/event-stream; errors in Anthropic's shape",
    request: g.anthropicMessagesRequest,
    response: g.anthropicMessage,
    error: g.anthropicError,
  },
  {
    method: 'GET',
    path: '/mcp/connectors',
    auth: 'any',
    summary: "The connectors that serve the caller's organization, with their last health check",
    response: g.connectorList,
    error: agentError,
  },
  {
    method: 'GET',
    path: '/mcp/connectors/{name}/health',
    auth: 'any',
    summary: 'Check one connector now',
    response: g.connectorHealth,
    error: agentError,
  },
  {
    method: 'GET',
    path: '/mcp/health',
    auth: 'any',
    summary: "Check every connector of the caller's organization now",
    response: g.connectorsHealth,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/mcp/resources/query',
    auth: 'any',
    summary: 'Governed query on a connector: tenancy, allowedOperations, SQL or SSRF guard, policy, limits, audit',
    request: g.mcpQueryRequest,
    response: g.mcpQueryResponse,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/mcp/tools/execute',
    auth: 'any',
    summary: "Governed call of a connector's tool (the same governance as a query)",
    request: g.mcpToolRequest,
    response: g.mcpToolResponse,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/api/v1/connectors/refresh',
    auth: 'license-key',
    summary: 'Reload every Connector from the source',
    response: g.connectorRefreshResponse,
    error: agentError,
  },
  {
    method: 'POST',
    path: '/mcp',
    auth: 'any',
    summary:
      'Steward as an MCP server (Streamable HTTP, stateless, JSON answers): tools/list and tools/call over the governed connectors',
    request: g.mcpJsonRpc,
    response: anyObject,
    error: agentError,
  },
  {
    method: 'GET',
    path: '/mcp',
    auth: 'any',
    summary: 'No server-sent stream on the stateless MCP endpoint: 405 METHOD_NOT_ALLOWED',
    response: anyObject,
    error: agentError,
  },
  {
    method: 'DELETE',
    path: '/mcp',
    auth: 'any',
    summary: 'No session to end on the stateless MCP endpoint: 405 METHOD_NOT_ALLOWED',
    response: anyObject,
    error: agentError,
  },
];

/**
 * The orchestrator's routes that exist today. NB: the plan, registry, dynamic-policy and webhook surfaces of the
 * reference (schemas in ./orchestrator.ts) join this table when their routes are served; the route-table test
 * fails on a documented route the app does not serve.
 */
export const ORCHESTRATOR_ROUTES: RouteDoc[] = [
  {
    method: 'GET',
    path: '/health',
    auth: 'none',
    summary: 'Liveness of the orchestrator process',
    response: o.orchestratorHealth,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/healthz',
    auth: 'none',
    summary: 'Liveness probe: the process serves',
    response: o.orchestratorProbe,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/readyz',
    auth: 'none',
    summary:
      'Readiness probe: informers synced, database reachable, pool discovery synced, not draining; 503 with the reason otherwise',
    response: o.orchestratorProbe,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/metrics/prometheus',
    auth: 'operator',
    summary: "The process's Prometheus metrics (operator token, or community mode)",
    response: prometheusText,
    responseType: 'text/plain',
    error: envelopeError,
  },
  {
    method: 'POST',
    path: '/orchestrator/parallel',
    auth: 'license-key',
    summary:
      'Run up to 100 queries (Rego decision, then MCP or LLM) on the agent pool, in parallel batches or one by one',
    request: o.parallelRequest,
    response: o.parallelResponse,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/orchestrator/health',
    auth: 'none',
    summary: 'The agent pool, the database and the load balancer; 503 when no agent (or too few) is healthy',
    response: o.orchestratorHealth,
    status: 200,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/orchestrator/metrics',
    auth: 'any',
    summary:
      "Parallel requests of the caller's organization over a sliding window, speedups, and each pool agent's figures",
    response: o.orchestratorMetrics,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/metrics',
    auth: 'any',
    summary: 'The same figures as GET /orchestrator/metrics (the reference clients call this path)',
    response: o.orchestratorMetrics,
    error: envelopeError,
  },
  {
    method: 'POST',
    path: '/api/v1/agents/validate',
    auth: 'any',
    summary:
      'Validate an AgentConfig (YAML or JSON, steward.dev/v1alpha1 or axonflow.io/v1 in both layouts); nothing is created',
    request: anyObject,
    requestYaml: true,
    response: validationResult,
    error: envelopeError,
  },
  {
    method: 'POST',
    path: '/api/v1/plan',
    auth: 'any',
    summary: 'Plan a query over the registry agents and run it in the same call (DAG on the agent pool)',
    request: o.planRequest,
    response: o.planResponse,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/api/v1/plan/{id}',
    auth: 'any',
    summary: "One plan of the caller's organization (and tenant); others' plans are 404",
    response: o.planRecord,
    error: envelopeError,
  },
  {
    method: 'POST',
    path: '/api/v1/plan/{id}/cancel',
    auth: 'any',
    summary: 'Cancel a running plan: its steps are aborted',
    response: o.planCancelResponse,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/api/v1/agents',
    auth: 'any',
    summary: 'The agent registry; query filters domain, capability, type; pagination page, page_size',
    response: o.agentList,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/api/v1/agents/{name}',
    auth: 'any',
    summary: 'One registry agent with llm, source and metadata; 404 AGENT_NOT_FOUND',
    response: o.registryAgent,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/api/v1/policies',
    auth: 'any',
    summary: "The organization's dynamic policies: {policies, pagination}, or a bare array when X-Tenant-ID is sent",
    response: o.policyList,
    error: envelopeError,
  },
  {
    method: 'POST',
    path: '/api/v1/policies',
    auth: 'any',
    summary:
      'Create a dynamic policy of the organization from Rego, or from conditions and actions (compiled to Rego); the Rego compiles first (400 with line:column)',
    request: o.dynamicPolicyCreate,
    response: o.storedPolicy,
    status: 201,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/api/v1/policies/{name}',
    auth: 'any',
    summary: 'One dynamic policy of the organization, by id',
    response: o.storedPolicy,
    error: envelopeError,
  },
  {
    method: 'PUT',
    path: '/api/v1/policies/{name}',
    auth: 'any',
    summary: 'Change a dynamic policy of the organization (the fields sent)',
    request: o.dynamicPolicyUpdate,
    response: o.storedPolicy,
    error: envelopeError,
  },
  {
    method: 'DELETE',
    path: '/api/v1/policies/{name}',
    auth: 'any',
    summary: 'Delete a dynamic policy of the organization',
    response: anyObject,
    error: envelopeError,
  },
  {
    method: 'POST',
    path: '/api/v1/webhooks',
    auth: 'any',
    summary: 'Register a webhook for plan events (Enterprise, Enterprise Plus)',
    request: o.webhookRegistration,
    response: o.webhook,
    status: 201,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/api/v1/webhooks',
    auth: 'any',
    summary: "The organization's webhook registrations (Enterprise, Enterprise Plus)",
    response: o.webhookList,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/api/v1/webhooks/{id}',
    auth: 'any',
    summary: 'One webhook registration',
    response: o.webhook,
    error: envelopeError,
  },
  {
    method: 'PUT',
    path: '/api/v1/webhooks/{id}',
    auth: 'any',
    summary: 'Change a webhook registration (the fields sent)',
    request: o.webhookUpdate,
    response: o.webhook,
    error: envelopeError,
  },
  {
    method: 'DELETE',
    path: '/api/v1/webhooks/{id}',
    auth: 'any',
    summary: 'Delete a webhook registration and its deliveries',
    response: anyObject,
    error: envelopeError,
  },
  {
    method: 'GET',
    path: '/api/v1/webhooks/{id}/deliveries',
    auth: 'any',
    summary: "A registration's latest 100 deliveries, each with every attempt",
    response: o.webhookDeliveries,
    error: envelopeError,
  },
];
