import type { LlmSettings } from '../settings.js';
import { describeProviderConfig, providerConfigSchema } from './config.js';
import { createLlmRouter, type LlmRouter } from './router.js';

/** The router of the configured providers, and their descriptions for the start-up log (no secrets). */
export function llmFromSettings(c: LlmSettings): {
  router: LlmRouter;
  described: ReturnType<typeof describeProviderConfig>[];
} {
  const providers = [...c.providers];
  return {
    router: createLlmRouter(providers, c.defaultProvider ? { defaultProvider: c.defaultProvider } : {}),
    described: providers.map((p) => describeProviderConfig(providerConfigSchema.parse(p))),
  };
}
