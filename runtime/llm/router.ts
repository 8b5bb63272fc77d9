import { providerConfigSchema, type ProviderConfig, type ProviderConfigInput } from './config.js';
import { createEchoProvider } from './echo.js';
import { LlmNotConfiguredError, LlmValidationError } from './errors.js';
import type { LlmProvider, LlmProviderType, LlmRequest, LlmResponse, LlmStream } from './types.js';

/** A provider configuration the router cannot use; `issues` name the config entry and field. */
export class LlmConfigError extends Error {
  constructor(readonly issues: { path: string; message: string }[]) {
    super(`invalid LLM provider configuration: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'LlmConfigError';
  }
}

type Factory = (c: ProviderConfig) => LlmProvider;

/**
 * The SDKs (openai, @anthropic-ai/sdk, the AWS SDK, ollama) load with their provider's first call, not with this
 * module: together they are a few hundred ms of every start, which a gateway without that provider never needs.
 */
const FACTORIES: Record<Exclude<LlmProviderType, 'echo'>, () => Promise<Factory>> = {
  openai: async () => (await import('./openai.js')).createOpenAiProvider,
  anthropic: async () => (await import('./anthropic.js')).createAnthropicProvider,
  'aws-bedrock': async () => (await import('./bedrock.js')).createBedrockProvider,
  ollama: async () => (await import('./ollama.js')).createOllamaProvider,
};

/** Builds one provider from a config entry (validated here). */
export function createProvider(input: ProviderConfigInput): LlmProvider {
  return build(parseProviderConfig(input, 'provider'));
}

/** The provider of a validated entry; its SDK client is made at the first call (`FACTORIES`). */
function build(config: ProviderConfig): LlmProvider {
  if (config.type === 'echo') return createEchoProvider(config);
  const factory = FACTORIES[config.type];
  let loaded: Promise<LlmProvider> | undefined;
  const load = () => (loaded ??= factory().then((create) => create(config)));
  return {
    name: config.name ?? config.type,
    type: config.type,
    defaultModel: config.model,
    complete: async (request) => (await load()).complete(request),
    stream: async (request) => (await load()).stream(request),
    async close() {
      if (loaded) await (await loaded).close();
    },
  };
}

function parseProviderConfig(input: ProviderConfigInput, path: string): ProviderConfig {
  const r = providerConfigSchema.safeParse(input);
  if (!r.success) {
    throw new LlmConfigError(r.error.issues.map((i) => ({ path: [path, ...i.path].join('.'), message: i.message })));
  }
  return r.data;
}

export interface LlmRouterOptions {
  /** Name of the provider used when a call names none. @default the first configured */
  defaultProvider?: string;
}

export interface LlmRouter {
  /** Configured provider names, in configuration order. */
  readonly names: readonly string[];
  readonly defaultName: string | undefined;
  /** True when `get(nameOrType)` would find a provider; without an argument, whether any is configured. */
  hasProvider(nameOrType?: string): boolean;
  /**
   * A provider by configured name, else by type (an AgentConfig names a type such as `openai`): the
   * default provider when it has that type, otherwise the first of that type. No argument: the default.
   * @throws LlmNotConfiguredError
   */
  get(nameOrType?: string): LlmProvider;
  complete(request: LlmRequest & { provider?: string }): Promise<LlmResponse>;
  /** A streamed answer from the named provider (or the default); see {@link LlmProvider.stream}. */
  stream(request: LlmRequest & { provider?: string }): Promise<LlmStream>;
  close(): Promise<void>;
}

export function createLlmRouter(configs: readonly ProviderConfigInput[], options: LlmRouterOptions = {}): LlmRouter {
  const parsed = configs.map((c, i) => parseProviderConfig(c, `providers[${i}]`));
  const seen = new Set<string>();
  parsed.forEach((c, i) => {
    const name = c.name ?? c.type;
    if (seen.has(name))
      throw new LlmConfigError([{ path: `providers[${i}].name`, message: `duplicate provider name "${name}"` }]);
    seen.add(name);
  });
  if (options.defaultProvider !== undefined && !seen.has(options.defaultProvider)) {
    throw new LlmConfigError([
      { path: 'defaultProvider', message: `"${options.defaultProvider}" is not a configured provider name` },
    ]);
  }
  const providers = parsed.map(build);
  const byName = new Map(providers.map((p) => [p.name, p]));
  const defaultProvider = options.defaultProvider !== undefined ? byName.get(options.defaultProvider) : providers[0];
  const names = providers.map((p) => p.name);

  const find = (nameOrType: string | undefined): LlmProvider | undefined => {
    if (nameOrType === undefined) return defaultProvider;
    const exact = byName.get(nameOrType);
    if (exact) return exact;
    if (defaultProvider?.type === nameOrType) return defaultProvider;
    return providers.find((p) => p.type === nameOrType);
  };
  const get = (nameOrType?: string): LlmProvider => {
    const p = find(nameOrType);
    if (!p) throw new LlmNotConfiguredError(nameOrType, names);
    return p;
  };
  return {
    names,
    defaultName: defaultProvider?.name,
    hasProvider: (nameOrType) => find(nameOrType) !== undefined,
    get,
    complete: async (request) => {
      const { provider, rest } = splitProvider(request);
      return get(provider).complete(rest);
    },
    stream: async (request) => {
      const { provider, rest } = splitProvider(request);
      return get(provider).stream(rest);
    },
    async close() {
      await Promise.allSettled(providers.map((p) => p.close()));
    },
  };
}

function splitProvider(request: LlmRequest & { provider?: string }): {
  provider: string | undefined;
  rest: LlmRequest;
} {
  if (typeof request !== 'object' || request === null) throw new LlmValidationError('request', 'must be an object');
  const { provider, ...rest } = request;
  if (provider !== undefined && typeof provider !== 'string')
    throw new LlmValidationError('provider', 'must be a string');
  return { provider, rest };
}
