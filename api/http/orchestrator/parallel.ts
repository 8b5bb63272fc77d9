/** `POST /orchestrator/parallel`: up to 100 queries on the agent pool, their limits and the answer. */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { jsonObject, safeText } from '../safe.js';
import { providerFields } from './provider-fields.js';

/** Most queries one parallel request carries (docs/orchestrator-parallel.md, Limits). */
export const PARALLEL_MAX_QUERIES = 100;
/** Longest query text, characters. */
export const PARALLEL_MAX_QUERY_CHARS = 32 * 1024;
/** Largest policy text of one query, UTF-8 bytes: compiling Rego runs on the orchestrator's event loop (~2 ms per KiB). */
export const PARALLEL_MAX_POLICY_BYTES = 32 * 1024;
/** Largest sum of the distinct policy texts of one request, UTF-8 bytes (the same policy repeated counts once). */
export const PARALLEL_MAX_DISTINCT_POLICY_BYTES = 128 * 1024;
/** Largest `timeout_ms`; the whole request ends this long after it started, too. */
export const PARALLEL_MAX_TIMEOUT_MS = 120_000;
export const PARALLEL_DEFAULT_TIMEOUT_MS = 30_000;

export const parallelQuery = z.object({
  query: safeText().min(1).max(PARALLEL_MAX_QUERY_CHARS),
  policy: safeText().min(1),
  mcp: z
    .object({
      connector: safeText().min(1).max(256),
      operation: safeText().min(1).max(256),
      parameters: jsonObject().optional(),
    })
    .optional(),
  llm: z
    .object({
      // NB: the reference lists aws-bedrock, openai and anthropic; any provider the agents configure is accepted
      // (ollama, echo), and an agent without it answers that query PROVIDER_NOT_CONFIGURED.
      provider: safeText().min(1).max(64).optional(),
      model: safeText().min(1).max(256).optional(),
      temperature: z.number().min(0).max(1).default(0.7),
      max_tokens: z.number().int().min(1).max(1_000_000).default(500),
    })
    .optional(),
  context: jsonObject().optional(),
});

export const parallelRequest = z.object({
  queries: z.array(parallelQuery).min(1).max(PARALLEL_MAX_QUERIES),
  execution_mode: z.enum(['parallel', 'sequential']).default('parallel'),
  timeout_ms: z.number().int().min(1).max(PARALLEL_MAX_TIMEOUT_MS).default(PARALLEL_DEFAULT_TIMEOUT_MS),
});

export const parallelResult = z.object({
  query_index: z.number().int(),
  status: z.enum(['success', 'error']),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  metadata: z.object({
    latency_ms: z.number(),
    agent_latency_ms: z
      .number()
      .optional()
      .describe("the agent's own time; latency_ms less the dispatch and the transport"),
    policy_decision: z.enum(['allow', 'deny']),
    agent_id: z.string(),
    request_id: z.string(),
    timestamp: timestamp.optional(),
    ...providerFields,
    warnings: z
      .array(z.string())
      .optional()
      .describe(
        "the query's governed call's warnings (policies in warn mode); the response's `Warning` header has them all",
      ),
  }),
});

export const parallelResponse = z.object({
  results: z.array(parallelResult),
  execution_summary: z.object({
    total_queries: z.number().int(),
    successful: z.number().int(),
    failed: z.number().int(),
    total_time_ms: z.number(),
    parallel_speedup: z.string(),
    agent_utilization: z.record(z.string(), z.number().int()),
  }),
  request_id: z.string(),
});
