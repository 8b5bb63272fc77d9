/** The agent registry (`/api/v1/agents`). */
import { z } from 'zod';
import { timestamp } from '../common.js';

export const registryAgent = z.object({
  name: z.string(),
  domain: z.string(),
  type: z.enum(['specialist', 'coordinator']),
  description: z.string(),
  capabilities: z.array(z.string()),
  source: z.string(),
  llm: z.object({ provider: z.string(), model: z.string() }).optional(),
  metadata: z.object({ createdAt: timestamp, updatedAt: timestamp }).optional(),
});

export const agentList = z.object({ agents: z.array(registryAgent), total: z.number().int() });
