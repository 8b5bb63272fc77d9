import { describe, expect, it } from 'vitest';
import { describeProviderConfig, providerConfigSchema } from './config.js';

describe('providerConfigSchema', () => {
  it('applies the 30 s timeout and no retries by default', () => {
    const c = providerConfigSchema.parse({ type: 'openai', model: 'gpt-4o', apiKey: 'sk-1' });
    expect(c.timeoutMs).toBe(30_000);
    expect(c.maxRetries).toBe(0);
  });

  it.each([
    { name: 'openai without an API key', input: { type: 'openai', model: 'm' }, path: 'apiKey' },
    { name: 'anthropic without an API key', input: { type: 'anthropic', model: 'm' }, path: 'apiKey' },
    { name: 'aws-bedrock without a region', input: { type: 'aws-bedrock', model: 'm' }, path: 'region' },
    { name: 'a malformed region', input: { type: 'aws-bedrock', model: 'm', region: 'mars' }, path: 'region' },
    {
      name: 'a region on openai',
      input: { type: 'openai', model: 'm', apiKey: 'k', region: 'us-east-1' },
      path: 'region',
    },
    {
      name: 'a Bedrock API key together with AWS credentials',
      input: {
        type: 'aws-bedrock',
        model: 'm',
        region: 'us-east-1',
        apiKey: 'k',
        awsCredentials: { accessKeyId: 'a', secretAccessKey: 's' },
      },
      path: 'apiKey',
    },
    { name: 'an unknown type', input: { type: 'gemini', model: 'm' }, path: 'type' },
    { name: 'an empty model', input: { type: 'ollama', model: '' }, path: 'model' },
    { name: 'a non-http endpoint', input: { type: 'ollama', model: 'm', endpoint: 'ftp://x' }, path: 'endpoint' },
    { name: 'a zero timeout', input: { type: 'ollama', model: 'm', timeoutMs: 0 }, path: 'timeoutMs' },
    { name: 'too many retries', input: { type: 'ollama', model: 'm', maxRetries: 9 }, path: 'maxRetries' },
    {
      name: 'an echo provider with an endpoint',
      input: { type: 'echo', model: 'echo', endpoint: 'http://x' },
      path: 'type',
    },
    { name: 'an unknown field', input: { type: 'ollama', model: 'm', temperature: 0.2 }, path: '' },
  ])('rejects $name', ({ input, path }) => {
    const r = providerConfigSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  it('accepts Bedrock with only a region (the AWS default credential chain)', () => {
    expect(
      providerConfigSchema.safeParse({ type: 'aws-bedrock', model: 'amazon.nova-lite-v1:0', region: 'eu-central-1' })
        .success,
    ).toBe(true);
  });
});

describe('describeProviderConfig', () => {
  it('leaves secrets out and says which kind of credential is in use', () => {
    const c = providerConfigSchema.parse({
      type: 'aws-bedrock',
      model: 'm',
      region: 'us-east-1',
      awsCredentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'very-secret', sessionToken: 'tok-secret' },
    });
    const text = JSON.stringify(describeProviderConfig(c));
    expect(text).not.toMatch(/very-secret|tok-secret|AKIAEXAMPLE/);
    expect(describeProviderConfig(c).credentials).toBe('aws-static');
    const k = providerConfigSchema.parse({ type: 'openai', model: 'm', apiKey: 'sk-secret-123' });
    expect(JSON.stringify(describeProviderConfig(k))).not.toContain('sk-secret-123');
    expect(describeProviderConfig(k)).toMatchObject({ name: 'openai', credentials: 'api-key' });
  });
});
