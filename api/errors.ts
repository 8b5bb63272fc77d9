/**
 * Error-code catalogues, one per surface. Every failure a user can see carries one of these codes;
 * docs/errors.md lists the same codes and a test keeps the two equal.
 */
export interface ErrorCodeSpec {
  status: number;
  /** One line: when the code is returned. */
  description: string;
  /** Whether a client may retry the same request unchanged. */
  retryable: boolean;
}

const e = (status: number, description: string, retryable = false): ErrorCodeSpec => ({
  status,
  description,
  retryable,
});

/** Agent gateway (port 8080): `/health`, `/api/*`, `/mcp/*`, `/v1/execute`. */
export const GATEWAY_ERRORS = {
  INVALID_JSON: e(400, 'the body is not valid JSON'),
  INVALID_REQUEST: e(400, 'a required field is missing or a field has the wrong type or range'),
  INVALID_PARAMS: e(400, 'connector call: params do not fit the statement (placeholders) or the tool'),
  NO_AGENTS_AVAILABLE: e(400, "/api/request plan: no agent serves the query's domain (the orchestrator's code)"),
  UNAUTHORIZED: e(401, 'no credentials, or credentials that do not match a client or license'),
  INVALID_LICENSE_KEY: e(401, 'Invalid license key: the key is malformed'),
  LICENSE_VALIDATION_FAILED: e(401, 'License validation failed: bad signature, expired, or no matching License'),
  LEGACY_CREDENTIALS_RETIRED: e(401, 'X-Client-ID/X-Client-Secret were used after their sunset date'),
  API_KEY_REVOKED: e(
    401,
    'the API key (or client secret) was revoked with DELETE /api/clients/{id} (details: client_id, revoked_at)',
  ),
  FORBIDDEN: e(403, 'the credentials lack the tenant or permission for this resource'),
  FEATURE_NOT_AVAILABLE: e(403, 'Feature not available in tier'),
  POLICY_VIOLATION: e(
    403,
    'a policy blocked the request (envelope endpoints, connector calls); the message names the policy',
  ),
  APPROVAL_REQUIRED: e(
    403,
    'connector call: a policy requires a person to approve it first; the call is parked (details: approval_id, policies, reasons, approve, expires_at); retry it with approval_id once approved',
  ),
  APPROVER_REQUIRED: e(
    403,
    'answering an approval needs an API key with the approver role, or a license key (POST /api/approvals/{id})',
  ),
  SELF_APPROVAL: e(403, 'the caller of a parked call cannot answer its own approval'),
  INSUFFICIENT_SCOPE: e(
    403,
    "POST /mcp: the OAuth access token's scopes do not grant the tool (WWW-Authenticate names the scopes that would)",
  ),
  OPERATION_NOT_ALLOWED: e(
    403,
    "connector call: the operation or tool is not in the Connector's allowedOperations, or writes on a read-only connector",
  ),
  TOOL_DEFINITION_CHANGED: e(
    403,
    "connector call: the MCP upstream changed the tool's definition (name, description, input schema) since it was approved; approve the new list with the annotation steward.dev/approve-tools (details.reason: CHANGED)",
  ),
  TOOL_NOT_APPROVED: e(
    403,
    'connector call: the MCP tool is held until its definition is approved: new since the list was approved, or its description flagged by the prompt-injection detector (details.reason: NEW_TOOL, SUSPECT_DESCRIPTION)',
  ),
  A2A_CARD_UNVERIFIED: e(
    403,
    "connector call: the a2a connector's Agent Card has no signature that verifies against the trusted keys (options.cardKeys, cardKeysUrl), or could not be read as an A2A card; calls fail closed until it does (details.reason: NO_SIGNATURE, UNKNOWN_KEY, BAD_SIGNATURE, UNREADABLE, KEYS_UNAVAILABLE)",
  ),
  SQL_REFUSED: e(
    403,
    'connector call: the SQL guard refused the statement (details.reason: STACKED_QUERIES, NOT_READ_ONLY, DENIED_FUNCTION, ...)',
  ),
  SSRF_REFUSED: e(
    403,
    "connector call: the destination, or a redirect's, is off the connector's origin or base path, or a private address " +
      '(details.reason: OTHER_ORIGIN, OUTSIDE_BASE_PATH, PRIVATE_ADDRESS, REDIRECT_OFF_ORIGIN, REDIRECT_OUTSIDE_BASE_PATH, ENCODED_PATH)',
  ),
  NOT_FOUND: e(404, 'no such endpoint or resource'),
  CONTEXT_NOT_FOUND: e(404, 'the audit names a context_id that does not exist for this client'),
  CONNECTOR_NOT_FOUND: e(404, "no connector of that name serves the caller's organization"),
  CLIENT_NOT_FOUND: e(404, "no live API client of this id that the caller's organization and tenant reach"),
  APPROVAL_NOT_FOUND: e(404, "no approval of this id in the caller's organization (and tenant)"),
  AUDIT_ENTRY_NOT_FOUND: e(404, "no audit entry of this id in the caller's organization (and tenant)"),
  CONTEXT_EXPIRED: e(410, 'the pre-check context has expired (5 minutes)'),
  METHOD_NOT_ALLOWED: e(405, 'the path exists but not with this method'),
  APPROVAL_NOT_PENDING: e(409, 'the approval was already approved, denied or used, or it has expired'),
  APPROVAL_NOT_USABLE: e(
    409,
    'connector call: the approval_id is not approved, was used, expired, or was given for another call or caller (details.reason)',
  ),
  AUDIT_ALREADY_RECORDED: e(
    409,
    'POST /api/audit/llm-call: the context already has its LLM-call audit entry (one per context)',
  ),
  NOT_ACCEPTABLE: e(
    406,
    'POST /mcp: the Accept header must list application/json and text/event-stream (MCP Streamable HTTP)',
  ),
  REQUEST_TIMEOUT: e(
    408,
    "the request (headers or body) did not arrive within the server's timeout; the connection is closed",
  ),
  PLANNING_TIMEOUT: e(
    408,
    "/api/request plan: the plan did not finish within the orchestrator's plan timeout (STEWARD_PLAN_TIMEOUT_MS)",
  ),
  PAYLOAD_TOO_LARGE: e(413, 'the body exceeds the configured limit'),
  POLICY_INPUT_TOO_LARGE: e(
    413,
    'the text to check (query plus the other strings of the policy input) exceeds STEWARD_POLICY_INPUT_MAX_BYTES',
  ),
  UNSUPPORTED_MEDIA_TYPE: e(415, 'the Content-Type is not JSON (or YAML where accepted)'),
  RATE_LIMITED: e(
    429,
    'the organization exceeded its request limit (or, on LLM calls, its tokens per minute: details.unit tokens); see Retry-After',
    true,
  ),
  BUDGET_EXCEEDED: e(
    429,
    'a Budget with action block cannot hold the LLM call (details: budget, unit, limit, remaining, requested, reset_at); X-Budget-* and Retry-After (the window reset)',
  ),
  HEADERS_TOO_LARGE: e(431, "the request headers exceed the server's limit (16 KiB)"),
  INTERNAL_ERROR: e(500, 'an unexpected error; the log has the request id', true),
  EXECUTION_ERROR: e(500, '/api/request plan: a step failed; the answer carries the plan and details.steps', true),
  CONNECTOR_MISCONFIGURED: e(
    500,
    'the Connector document is invalid or its connection URL (Secret, environment variable) is missing',
  ),
  PROVIDER_ERROR: e(502, "the LLM provider answered with an error (/api/request plan: a step's)", true),
  CONNECTOR_QUERY_FAILED: e(
    502,
    'the system behind the connector answered with an error (syntax, missing table, tool error)',
  ),
  RESULT_TOO_LARGE: e(502, "the connector's answer exceeds its byte cap and cannot be cut"),
  PROVIDER_NOT_CONFIGURED: e(
    503,
    "no LLM provider is configured for this call (or, /api/request plan, for a step's agent)",
  ),
  AGENT_UNAVAILABLE: e(
    503,
    "/api/request plan: no healthy agent of a step's AgentConfig (the orchestrator's code)",
    true,
  ),
  SERVICE_UNAVAILABLE: e(503, 'the gateway is starting or a dependency (database) is down', true),
  AUDIT_FAILED: e(
    503,
    'a streamed answer was sent but its audit entry could not be written: the stream ends with this error; discard the answer',
    true,
  ),
  CONNECTOR_UNAVAILABLE: e(503, 'the system behind the connector cannot be reached', true),
  PROVIDER_TIMEOUT: e(
    504,
    "the LLM provider did not answer within the timeout (/api/request plan: a step's agent)",
    true,
  ),
  CONNECTOR_TIMEOUT: e(504, 'the connector call exceeded its timeout; the query was cancelled on the server', true),
} as const satisfies Record<string, ErrorCodeSpec>;

/** Orchestrator plan surface (`/api/v1/*`), from the service reference. */
export const PLAN_ERRORS = {
  INVALID_REQUEST: e(400, 'request body invalid'),
  NO_AGENTS_AVAILABLE: e(400, 'no agent matches the query or domain'),
  UNAUTHORIZED: e(401, 'invalid or missing authentication'),
  FORBIDDEN: e(403, 'insufficient permissions'),
  FEATURE_NOT_AVAILABLE: e(403, 'Feature not available in tier (webhooks need Enterprise or Enterprise Plus)'),
  POLICY_VIOLATION: e(
    403,
    "the plan pre-flight: a policy blocked a step (details: policy, step, agent, block_reason), and no step ran; or a step's answer was blocked (details: step, agent, block_reason)",
  ),
  AGENT_NOT_FOUND: e(404, 'agent not found'),
  POLICY_NOT_FOUND: e(404, "no dynamic policy of this id in the caller's organization"),
  WEBHOOK_NOT_FOUND: e(404, "no webhook registration of this id in the caller's organization"),
  NOT_FOUND: e(404, 'no such endpoint or resource'),
  PLANNING_TIMEOUT: e(408, 'planning or execution exceeded the timeout'),
  REQUEST_TIMEOUT: e(
    408,
    "the request (headers or body) did not arrive within the server's timeout; the connection is closed",
  ),
  POLICY_EXISTS: e(
    409,
    "a dynamic policy of this id already exists in the organization (a Rego policy's id is its name, a policy of conditions' the slug of its name; details: id); PUT changes it",
  ),
  POLICY_PACKAGE_CONFLICT: e(
    409,
    "the policy's Rego package equals, or nests in or around, the package of a policy it shares a scope with (the built-in pack's steward.* included)",
  ),
  PAYLOAD_TOO_LARGE: e(413, 'the body exceeds the configured limit'),
  UNSUPPORTED_MEDIA_TYPE: e(415, 'the Content-Type is not JSON (or YAML where accepted)'),
  RATE_LIMITED: e(429, 'rate limit exceeded', true),
  BUDGET_EXCEEDED: e(429, "a step's LLM call was refused by a Budget with action block (details.steps)"),
  HEADERS_TOO_LARGE: e(431, "the request headers exceed the server's limit (16 KiB)"),
  INTERNAL_ERROR: e(500, 'an unexpected error; the log has the request id', true),
  PLANNING_ERROR: e(500, 'internal planning error', true),
  EXECUTION_ERROR: e(500, "plan execution failed for a reason of Steward's own (details.steps)", true),
  PROVIDER_ERROR: e(
    502,
    "a step's LLM provider answered with an error (details.steps); the answer carries the plan",
    true,
  ),
  // NB: first of its status: another surface's 503 becomes this one here (runtime/http/errors.ts, inSurface)
  SERVICE_UNAVAILABLE: e(503, 'planning engine not initialized', true),
  PROVIDER_NOT_CONFIGURED: e(
    503,
    "a step's agent has no LLM provider: none is configured, or its AgentConfig sets spec.llm.fallback: false",
  ),
  AGENT_UNAVAILABLE: e(503, "no healthy agent of a step's AgentConfig (details.steps)", true),
  PROVIDER_TIMEOUT: e(
    504,
    "a step's agent did not answer within its timeout (spec.timeout), waiting on its LLM provider",
    true,
  ),
} as const satisfies Record<string, ErrorCodeSpec>;

/** Orchestrator parallel surface (`/orchestrator/*`), from the service reference. */
export const PARALLEL_ERRORS = {
  INVALID_REQUEST: e(400, 'invalid query format or policy compile failure (details: query_index, field, reason)'),
  UNAUTHORIZED: e(401, "missing or invalid X-License-Key, or an X-Organization-ID that is not the key's organization"),
  FORBIDDEN: e(
    403,
    'the credential is not an organization license key (API keys and client secrets do not grant this surface)',
  ),
  POLICY_VIOLATION: e(
    403,
    "a query's result only: the organization's policies blocked the query (it never reached an agent) or its answer; the message names the policy",
  ),
  NOT_FOUND: e(404, 'no such endpoint'),
  REQUEST_TIMEOUT: e(
    408,
    "the request (headers or body) did not arrive within the server's timeout; the connection is closed",
  ),
  PAYLOAD_TOO_LARGE: e(413, 'the body exceeds the configured limit'),
  UNSUPPORTED_MEDIA_TYPE: e(415, 'the Content-Type is not application/json'),
  RATE_LIMIT_EXCEEDED: e(429, 'organization rate limit exceeded (details: limit, period, reset_at)'),
  BUDGET_EXCEEDED: e(429, "a query's result only: a Budget with action block refused the query's LLM call"),
  HEADERS_TOO_LARGE: e(431, "the request headers exceed the server's limit (16 KiB)"),
  INTERNAL_ERROR: e(500, 'an unexpected error; the log has the request id', true),
  PARALLEL_EXECUTION_FAILED: e(500, 'parallel execution error', true),
  AGENT_COMMUNICATION_ERROR: e(502, 'an agent cannot be reached', true),
  ORCHESTRATOR_UNAVAILABLE: e(503, 'all agents unhealthy', true),
  INSUFFICIENT_AGENTS: e(
    503,
    'too few healthy agents (details: required_agents, available_agents, healthy_agents, unhealthy_agents)',
    true,
  ),
  QUERY_TIMEOUT: e(504, 'query exceeded timeout', true),
} as const satisfies Record<string, ErrorCodeSpec>;

/** Pool agent (`steward agent`, port 8090): `/v1/work`, `/v1/stats`, probes. Internal: the orchestrator's pool calls it. */
export const AGENT_ERRORS = {
  INVALID_REQUEST: e(400, 'the body is not JSON or not a work item (details: fields)'),
  UNAUTHORIZED: e(401, 'no or wrong `Authorization: Bearer` token (STEWARD_AGENT_TOKEN) on /v1/work or /v1/stats'),
  NOT_FOUND: e(404, 'no such endpoint'),
  REQUEST_TIMEOUT: e(
    408,
    "the request (headers or body) did not arrive within the server's timeout; the connection is closed",
  ),
  PAYLOAD_TOO_LARGE: e(413, 'the body exceeds STEWARD_BODY_LIMIT_BYTES'),
  UNSUPPORTED_MEDIA_TYPE: e(415, 'the Content-Type is not application/json'),
  AGENT_BUSY: e(429, 'the agent already runs STEWARD_AGENT_MAX_IN_FLIGHT items; send the item to another agent', true),
  HEADERS_TOO_LARGE: e(431, "the request headers exceed the server's limit (16 KiB)"),
  INTERNAL_ERROR: e(500, 'an unexpected error; the log has the request id', true),
  AGENT_CLOSING: e(503, 'the agent is shutting down and takes no new work', true),
} as const satisfies Record<string, ErrorCodeSpec>;

export const ERROR_CATALOGUES = {
  gateway: GATEWAY_ERRORS,
  plan: PLAN_ERRORS,
  parallel: PARALLEL_ERRORS,
  agent: AGENT_ERRORS,
} as const;

export type Surface = keyof typeof ERROR_CATALOGUES;
export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;
export type PlanErrorCode = keyof typeof PLAN_ERRORS;
export type ParallelErrorCode = keyof typeof PARALLEL_ERRORS;
export type AgentErrorCode = keyof typeof AGENT_ERRORS;
export type ErrorCode = GatewayErrorCode | PlanErrorCode | ParallelErrorCode | AgentErrorCode;

/** The codes of one surface's catalogue; for a surface not known statically, the codes every catalogue has. */
export type SurfaceErrorCode<S extends Surface> = keyof (typeof ERROR_CATALOGUES)[S] & string;
