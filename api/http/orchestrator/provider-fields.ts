import { z } from 'zod';

/** The provider a plan step or a parallel query called: its agent's, or the default one on a fallback. */
export const providerFields = {
  provider: z.string().optional().describe('the configured provider the agent called'),
  model: z.string().optional().describe('the model it called'),
  fallback: z
    .boolean()
    .optional()
    .describe(
      "true when the agent's AgentConfig names a provider that is not configured, and the default one answered",
    ),
  requested_provider: z.string().optional().describe("the AgentConfig's provider, on a fallback"),
};
