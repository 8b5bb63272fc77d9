import { z } from 'zod';
import { timestamp } from './common.js';
import { int32, jsonObject, jsonValue, safeText } from './safe.js';

export const licenseStatusBody = z.object({
  valid: z.boolean(),
  tier: z.string(),
  maxNodes: z.number().int(),
  expiresAt: timestamp,
  organization_id: z.string().optional(),
  reason: z.string().optional(),
});

export const gatewayHealth = z.object({
  service: z.string(),
  status: z.enum(['healthy', 'degraded', 'starting']),
  timestamp,
  version: z.string(),
  mode: z.enum(['community', 'licensed']).optional(),
  warnings: z.array(z.string()).optional(),
  license: licenseStatusBody.optional(),
});

/** GET /healthz (liveness) and GET /readyz (readiness: 503 with the reasons while not ready). */
export const gatewayProbe = z.object({
  status: z.enum(['ok', 'not-ready']),
  reason: z.string().optional().describe('why the gateway is not ready'),
});

export const preCheckRequest = z
  .object({
    client_id: safeText().min(1),
    user_token: safeText().min(1),
    query: safeText(),
    context: jsonObject().optional(),
    data_sources: z.array(jsonValue).optional(),
  })
  .catchall(jsonValue);

export const policyDecision = z.object({
  context_id: z.string(),
  approved: z.boolean(),
  policies: z.array(z.string()),
  block_reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  expires_at: timestamp,
});

/** The reference's and the SDKs' audit fields; both spellings are accepted. */
export const auditRequest = z
  .object({
    client_id: safeText().optional(),
    user_token: safeText().optional(),
    context_id: safeText().min(1),
    prompt: safeText().optional(),
    response: safeText().optional(),
    response_summary: safeText().optional(),
    provider: safeText().optional(),
    model: safeText().optional(),
    latency_ms: z.number().min(0).max(86_400_000).optional(),
    tokens: z.object({ prompt: int32(), completion: int32() }).partial().optional(),
    token_usage: z
      .object({ prompt_tokens: int32(), completion_tokens: int32(), total_tokens: int32() })
      .partial()
      .optional(),
    metadata: jsonObject().optional(),
  })
  .catchall(jsonValue);

export const auditResponse = z.object({
  success: z.literal(true),
  audit_id: z.string(),
  recorded: z.boolean(),
  timestamp,
});

export const policyTestRequest = z.object({ query: safeText(), context: jsonObject().optional() });
export const policyTestResponse = z.object({
  approved: z.boolean(),
  triggered_policies: z.array(z.string()),
  block_reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  evaluation_time_ms: z.number(),
});

export const client = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  tenant_id: z.string().optional().describe('the tenant the key is bound to; absent: organization-wide'),
  created_at: timestamp,
});
export const createClientRequest = z.object({
  name: safeText().min(1).max(128),
  description: safeText().max(1024).optional(),
});
export const createClientResponse = client.extend({ api_key: z.string() });

export const revokeClientResponse = z.object({ success: z.literal(true), id: z.string(), revoked_at: z.string() });

export const gatewayMetrics = z.object({
  agent_metrics: z.object({
    total_requests: z.number().int(),
    success_requests: z.number().int(),
    failed_requests: z.number().int(),
    blocked_requests: z.number().int(),
    avg_latency_ms: z.number(),
    p50_ms: z.number(),
    p95_ms: z.number(),
    p99_ms: z.number(),
    rps: z.number(),
    success_rate: z.number(),
    uptime_seconds: z.number(),
  }),
  health: z.object({ status: z.string(), healthy: z.boolean() }),
  timestamp,
});

export const executeRequest = z
  .object({ prompt: safeText().min(1), mode: safeText().default('chat') })
  .catchall(jsonValue);

export const gatewayRequest = z
  .object({
    query: safeText(),
    request_type: safeText().default('chat'),
    context: jsonObject().optional(),
  })
  .catchall(jsonValue);

// MCP connectors (`/mcp/*`, `/api/v1/connectors/refresh`): the reference's shapes plus what the SDKs send.

const connectorName = safeText().min(1).max(253);
const healthStatus = z.enum(['healthy', 'unhealthy', 'unknown']);

export const connectorInfo = z.object({
  name: z.string(),
  type: z.string(),
  status: healthStatus,
  last_health_check: timestamp.nullable(),
  latency_ms: z.number().nullable().optional(),
  allowed_operations: z.array(z.string()).optional(),
});
export const connectorList = z.object({ connectors: z.array(connectorInfo), count: z.number().int() });

export const connectorHealth = z.object({
  name: z.string(),
  type: z.string(),
  healthy: z.boolean(),
  status: healthStatus,
  latency_ms: z.number(),
  last_check: timestamp,
  error: z.string().optional(),
});
export const connectorsHealth = z.object({
  healthy: z.boolean(),
  total_connectors: z.number().int(),
  healthy_count: z.number().int(),
  unhealthy_count: z.number().int(),
  timestamp,
  connectors: z.array(connectorHealth),
});

/** Per-call limits; they can only tighten the connector's (`timeoutMs`, `maxRows`, `redact`, snake_case too). */
export const connectorCallOptions = jsonObject();

/** The reference sends `query` and `params`, the SDKs `statement` and `options`: one of query or statement. */
export const mcpQueryRequest = z
  .object({
    connector: connectorName,
    query: safeText().optional(),
    statement: safeText().optional(),
    params: z.union([z.array(jsonValue), jsonObject()]).optional(),
    options: connectorCallOptions.optional(),
    user_token: safeText().optional(),
    client_id: safeText().optional(),
  })
  .catchall(jsonValue);

export const mcpToolRequest = z
  .object({
    connector: connectorName,
    tool: safeText().min(1).max(256),
    params: jsonObject().optional(),
    options: connectorCallOptions.optional(),
    user_token: safeText().optional(),
    client_id: safeText().optional(),
  })
  .catchall(jsonValue);

/** What every governed connector answer carries besides the data. */
export const connectorCallMetadata = z.object({
  audit_id: z.string(),
  connector: z.string(),
  type: z.string(),
  operation: z.string(),
  statement_hash: z.string().optional(),
  policies_evaluated: z.array(z.string()),
  warnings: z.array(z.string()).optional(),
  redactions: z.record(z.string(), z.number()).optional(),
  truncated: z.boolean(),
});

export const mcpQueryResponse = z.object({
  success: z.literal(true),
  data: z.array(z.record(z.string(), z.unknown())),
  row_count: z.number().int(),
  execution_time_ms: z.number(),
  columns: z.array(z.string()).optional(),
  affected_rows: z.number().int().optional(),
  metadata: connectorCallMetadata,
});

export const mcpToolResponse = z.object({
  success: z.literal(true),
  result: z.unknown(),
  execution_time_ms: z.number(),
  metadata: connectorCallMetadata,
});

export const connectorRefreshResponse = z.object({
  success: z.boolean(),
  refreshed_count: z.number().int(),
  message: z.string(),
});

/** A JSON-RPC 2.0 message (or batch) of the MCP Streamable HTTP transport. */
export const mcpJsonRpc = z.union([jsonObject(), z.array(jsonObject())]);

/** A text content part; other part types (images, audio, files) are refused by the route with 400. */
const contentParts = z
  .array(z.object({ type: safeText().max(64), text: safeText().optional() }).catchall(jsonValue))
  .max(1000);
const tokenBudget = z.number().int().min(1).max(1_000_000);

/** A tool's name, as both OpenAI and Anthropic accept it. */
const toolName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'a tool name is 1 to 64 letters, digits, _ or -' });
/** A JSON Schema object (tool parameters, response formats); its content is the provider's to judge. */
const jsonSchemaObject = jsonObject();
/** At most 128 tools per request, as at OpenAI. */
const MAX_TOOLS = 128;

const openAiToolCall = z
  .object({
    id: safeText().min(1).max(256),
    type: z.literal('function'),
    function: z.object({ name: toolName, arguments: safeText().max(1_048_576) }).catchall(jsonValue),
  })
  .catchall(jsonValue);

/**
 * `POST /v1/chat/completions`: OpenAI's Chat Completions request. Fields Steward does not use (top_p, seed, …)
 * are accepted and ignored; `n` other than 1, the legacy `functions`/`function_call` and `function` messages are
 * refused with 400 (docs/llm-proxy.md).
 */
export const chatCompletionRequest = z
  .object({
    /** `provider/model`, a configured provider's name or type (its configured model), or a model of the default provider. */
    model: safeText().min(1).max(256),
    messages: z
      .array(
        z
          .object({
            role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
            content: z.union([safeText(), contentParts]).nullable().optional(),
            name: safeText().max(256).optional(),
            /** Assistant turns: the calls the model made. */
            tool_calls: z.array(openAiToolCall).max(MAX_TOOLS).nullable().optional(),
            /** Tool turns: the call this is the result of. */
            tool_call_id: safeText().min(1).max(256).optional(),
          })
          .catchall(jsonValue),
      )
      .min(1)
      .max(1000),
    /** Steward's range is 0 to 1 (OpenAI's goes to 2). */
    temperature: z.number().min(0).max(1).nullable().optional(),
    max_tokens: tokenBudget.nullable().optional(),
    max_completion_tokens: tokenBudget.nullable().optional(),
    /** The answer as server-sent events (`chat.completion.chunk`s, then `data: [DONE]`). */
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).catchall(jsonValue).nullable().optional(),
    tools: z
      .array(
        z
          .object({
            type: z.literal('function'),
            function: z
              .object({
                name: toolName,
                description: safeText().max(16_384).optional(),
                parameters: jsonSchemaObject.optional(),
                strict: z.boolean().nullable().optional(),
              })
              .catchall(jsonValue),
          })
          .catchall(jsonValue),
      )
      .max(MAX_TOOLS)
      .nullable()
      .optional(),
    tool_choice: z
      .union([
        z.enum(['none', 'auto', 'required']),
        z
          .object({ type: z.literal('function'), function: z.object({ name: toolName }).catchall(jsonValue) })
          .catchall(jsonValue),
      ])
      .nullable()
      .optional(),
    response_format: z
      .union([
        z.object({ type: z.enum(['text', 'json_object']) }).catchall(jsonValue),
        z
          .object({
            type: z.literal('json_schema'),
            json_schema: z
              .object({
                name: toolName,
                description: safeText().max(16_384).optional(),
                schema: jsonSchemaObject.optional(),
                strict: z.boolean().nullable().optional(),
              })
              .catchall(jsonValue),
          })
          .catchall(jsonValue),
      ])
      .nullable()
      .optional(),
    user: safeText().max(256).optional(),
  })
  .catchall(jsonValue);

export const chatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        refusal: z.null(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              type: z.literal('function'),
              function: z.object({ name: z.string(), arguments: z.string() }),
            }),
          )
          .optional(),
      }),
      logprobs: z.null(),
      finish_reason: z.enum(['stop', 'length', 'content_filter', 'tool_calls']),
    }),
  ),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
});

export const modelList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() }),
  ),
});

/** OpenAI's error body; `code` is Steward's code in lower case (`policy_violation`), `details` Steward's context. */
export const openAiError = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string(),
    details: jsonObject().optional(),
  }),
  request_id: z.string(),
});

/** Text, tool_use and tool_result blocks; image, document and other blocks are refused by the route with 400. */
const anthropicBlock = z
  .object({
    type: safeText().max(64),
    text: safeText().optional(),
    /** tool_use */
    id: safeText().max(256).optional(),
    name: toolName.optional(),
    input: jsonValue.optional(),
    /** tool_result */
    tool_use_id: safeText().max(256).optional(),
    content: z
      .union([
        safeText(),
        z.array(z.object({ type: safeText().max(64), text: safeText().optional() }).catchall(jsonValue)).max(1000),
      ])
      .optional(),
    is_error: z.boolean().optional(),
  })
  .catchall(jsonValue);
const anthropicContent = z.union([safeText(), z.array(anthropicBlock).max(1000)]);

/** `POST /v1/messages`: Anthropic's Messages request, tools included (docs/llm-proxy.md). */
export const anthropicMessagesRequest = z
  .object({
    model: safeText().min(1).max(256),
    max_tokens: tokenBudget,
    system: anthropicContent.optional(),
    messages: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: anthropicContent }).catchall(jsonValue))
      .min(1)
      .max(1000),
    temperature: z.number().min(0).max(1).optional(),
    stream: z.boolean().optional(),
    tools: z
      .array(
        z
          .object({ name: toolName, description: safeText().max(16_384).optional(), input_schema: jsonSchemaObject })
          .catchall(jsonValue),
      )
      .max(MAX_TOOLS)
      .optional(),
    tool_choice: z
      .object({
        type: z.enum(['auto', 'any', 'tool', 'none']),
        name: toolName.optional(),
        disable_parallel_tool_use: z.boolean().optional(),
      })
      .catchall(jsonValue)
      .optional(),
  })
  .catchall(jsonValue);

export const anthropicMessage = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(
    z.union([
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
    ]),
  ),
  stop_reason: z.enum(['end_turn', 'max_tokens', 'refusal', 'tool_use']),
  stop_sequence: z.null(),
  usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
});

/** Anthropic's error body; `error.code` is Steward's code, an addition the SDK ignores. */
export const anthropicError = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string(), code: z.string(), details: jsonObject().optional() }),
  request_id: z.string(),
});
