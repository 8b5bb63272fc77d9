/**
 * Wire shapes of a pool agent (`steward agent`, port 8090): the work item the orchestrator's pool sends to
 * `POST /v1/work`, the result it gets back, and `GET /v1/stats`. Field names follow runtime/agent/work.ts
 * (camelCase: an internal protocol, not the reference's snake_case parallel surface).
 */
import { z } from 'zod';
import { jsonObject, safeText } from './safe.js';

/** Longest item budget an agent accepts: an hour; the parallel surface's default is 30 s. */
export const MAX_WORK_TIMEOUT_MS = 3_600_000;

export const workItem = z.object({
  requestId: safeText().min(1).max(256),
  queryIndex: z.number().int().min(0),
  query: safeText(),
  policy: safeText().min(1),
  context: jsonObject().optional(),
  mcp: z.object({ connector: safeText(), operation: safeText(), parameters: jsonObject().optional() }).optional(),
  llm: z
    .object({
      provider: safeText().min(1).max(256).optional(),
      model: safeText().min(1).max(256).optional(),
      temperature: z.number().min(0).max(1).optional(),
      max_tokens: z.number().int().min(1).max(1_000_000).optional(),
    })
    .optional(),
  timeoutMs: z.number().int().min(1).max(MAX_WORK_TIMEOUT_MS),
});

/** The provider an agent's LLM step calls (runtime/llm/agent-route.ts). */
export const agentLlmRoute = z.object({
  provider: z.string(),
  model: z.string().optional(),
  fallback: z.boolean(),
  requested: z.string().optional(),
});

export const workResult = z.object({
  status: z.enum(['success', 'error']),
  policyDecision: z.enum(['allow', 'deny']),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  latencyMs: z.number(),
  agentId: z.string(),
  llm: agentLlmRoute.optional(),
});

export const agentStats = z.object({
  agentId: z.string(),
  queriesProcessed: z.number().int(),
  inFlight: z.number().int(),
  maxInFlight: z.number().int(),
  cpuPercent: z.number(),
  memoryMb: z.number(),
  llm: agentLlmRoute.optional(),
});

/** `GET /healthz` and `GET /readyz`. */
export const agentProbe = z.object({
  status: z.enum(['ok', 'not-ready']),
  agentId: z.string(),
  reason: z.string().optional(),
});
