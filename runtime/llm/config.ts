import { z } from 'zod';

export const LLM_PROVIDER_TYPES = ['openai', 'anthropic', 'aws-bedrock', 'ollama', 'echo'] as const;

/** The reference's LLM defaults (service reference, Limits). */
export const DEFAULT_TEMPERATURE = 0.7;
export const DEFAULT_MAX_TOKENS = 500;
export const DEFAULT_LLM_TIMEOUT_MS = 30_000;
/** Upper bound on a completion budget; larger values are a typo, not a request. */
export const MAX_TOKENS_LIMIT = 1_000_000;

/**
 * One configured provider. The API key comes from a Secret or the environment through the caller's config
 * parsing; this module never reads the environment and never logs the key (see {@link describeProviderConfig}).
 */
export const providerConfigSchema = z
  .object({
    /** Name the router picks the provider by. @default the type */
    name: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9_.]{0,61}[a-z0-9])?$/, 'must be a lowercase name such as openai or bedrock-eu')
      .optional(),
    type: z.enum(LLM_PROVIDER_TYPES),
    /** Model used when a request names none, e.g. `gpt-4o`, `claude-sonnet-4-6`, a Bedrock model id, `llama3.2`. */
    model: z.string().min(1).max(256),
    /**
     * Base URL of the API. OpenAI: up to and including `/v1`; Anthropic: without `/v1`; Bedrock: the runtime
     * endpoint; Ollama: the host (`http://127.0.0.1:11434`). Absent: the provider's public endpoint.
     */
    endpoint: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
      .optional(),
    /** OpenAI/Anthropic API key (required), Bedrock API key (bearer), or a bearer token for a proxied Ollama. */
    apiKey: z.string().min(1).optional(),
    /** AWS region for Bedrock, e.g. `us-east-1`. */
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as us-east-1')
      .optional(),
    /** Static AWS credentials for Bedrock. Absent (and no apiKey): the AWS default chain (IRSA, instance role). */
    awsCredentials: z
      .object({
        accessKeyId: z.string().min(1),
        secretAccessKey: z.string().min(1),
        sessionToken: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    /**
     * Deadline of one call, retries included; for a streamed call, the deadline until the provider accepts it
     * and then of each gap between two events. @default 30s
     */
    timeoutMs: z.number().int().min(1).max(600_000).default(DEFAULT_LLM_TIMEOUT_MS),
    /** Retries on 429/5xx/connection errors, inside the same deadline (streams: only before acceptance). @default 0 */
    maxRetries: z.number().int().min(0).max(5).default(0),
  })
  .strict()
  .superRefine((c, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if ((c.type === 'openai' || c.type === 'anthropic') && !c.apiKey) issue('apiKey', `required for ${c.type}`);
    if (c.type === 'aws-bedrock' && !c.region) issue('region', 'required for aws-bedrock');
    if (c.type !== 'aws-bedrock' && c.region) issue('region', 'only aws-bedrock takes a region');
    if (c.type !== 'aws-bedrock' && c.awsCredentials) issue('awsCredentials', 'only aws-bedrock takes AWS credentials');
    if (c.type === 'aws-bedrock' && c.apiKey && c.awsCredentials) {
      issue('apiKey', 'give either a Bedrock API key or AWS credentials, not both');
    }
    if (c.type === 'echo' && (c.endpoint || c.apiKey)) issue('type', 'the echo provider takes no endpoint or key');
  });

export type ProviderConfigInput = z.input<typeof providerConfigSchema>;
export type ProviderConfig = z.output<typeof providerConfigSchema>;

/** The config with secrets removed, safe to log or return from an API. */
export function describeProviderConfig(c: ProviderConfig): Record<string, unknown> {
  return {
    name: c.name ?? c.type,
    type: c.type,
    model: c.model,
    endpoint: c.endpoint,
    region: c.region,
    credentials: c.apiKey
      ? 'api-key'
      : c.awsCredentials
        ? 'aws-static'
        : c.type === 'aws-bedrock'
          ? 'aws-default-chain'
          : 'none',
    timeoutMs: c.timeoutMs,
    maxRetries: c.maxRetries,
  };
}
