/** `GET /api/v1/pool`: the orchestrator's agent pool as it is now (runtime/orchestrator/pool). */
import { z } from 'zod';
import { timestamp } from '../common.js';

export const poolFigures = z.object({
  desired: z.number().int().describe("members the pool should have (the selected AgentConfigs' replicas)"),
  available: z.number().int(),
  healthy: z.number().int(),
  unhealthy: z.number().int(),
});

export const poolMember = z.object({
  id: z.string(),
  agent_config: z.string().optional().describe('namespace/name of its AgentConfig'),
  kind: z.string().describe('in-process, or remote (a pool-agent pod)'),
  health: z.enum(['starting', 'healthy', 'unhealthy']),
  draining: z.boolean(),
  in_flight: z.number().int(),
  max_in_flight: z.number().int(),
  queries_processed: z.number().int(),
  last_error: z.string().optional(),
});

export const poolView = z.object({
  pool: poolFigures,
  members: z.array(poolMember),
  generated_at: timestamp,
});
