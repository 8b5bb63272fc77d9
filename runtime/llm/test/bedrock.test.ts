import { afterEach, describe, expect, it } from 'vitest';
import { parseSigV4, startFakeBedrock, type FakeBedrockServer } from '../../../testing/llm/index.js';
import { LlmProviderError } from '../errors.js';
import { createProvider } from '../router.js';
import type { LlmProvider } from '../types.js';

describe('aws-bedrock provider credentials', () => {
  let server: FakeBedrockServer | undefined;
  let provider: LlmProvider | undefined;
  afterEach(async () => {
    await provider?.close();
    await server?.close();
  });

  it('signs with SigV4 scoped to the configured region and the bedrock service', async () => {
    server = await startFakeBedrock({ accessKeyId: 'AKIDEXAMPLE' });
    provider = createProvider({
      type: 'aws-bedrock',
      model: 'amazon.nova-lite-v1:0',
      region: 'ap-southeast-2',
      endpoint: server.endpoint,
      awsCredentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' },
    });
    await provider.complete({ prompt: 'hi' });
    const req = server.lastRequest();
    expect(req.path).toBe('/model/amazon.nova-lite-v1%3A0/converse');
    expect(parseSigV4(req.headers.authorization)).toMatchObject({
      accessKeyId: 'AKIDEXAMPLE',
      region: 'ap-southeast-2',
      service: 'bedrock',
    });
    expect(req.headers['x-amz-security-token']).toBe('session');
  });

  it('sends a Bedrock API key as a bearer token instead of signing', async () => {
    server = await startFakeBedrock({ bearerToken: 'bedrock-api-key-1' });
    provider = createProvider({
      type: 'aws-bedrock',
      model: 'amazon.nova-lite-v1:0',
      region: 'us-east-1',
      endpoint: server.endpoint,
      apiKey: 'bedrock-api-key-1',
    });
    const res = await provider.complete({ prompt: 'hi' });
    expect(res.text).toContain('reply to: hi');
    expect(server.lastRequest().headers.authorization).toBe('Bearer bedrock-api-key-1');
  });

  it('merges consecutive user turns, which Converse would refuse', async () => {
    server = await startFakeBedrock({});
    provider = createProvider({
      type: 'aws-bedrock',
      model: 'm',
      region: 'us-east-1',
      endpoint: server.endpoint,
      awsCredentials: { accessKeyId: 'a', secretAccessKey: 's' },
    });
    await provider.complete({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
      ],
    });
    const body = server.lastRequest().body as { messages: { role: string; content: { text: string }[] }[] };
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'one\n\ntwo' }] }]);
  });

  it('maps a throttling exception to RATE_LIMITED', async () => {
    server = await startFakeBedrock({});
    provider = createProvider({
      type: 'aws-bedrock',
      model: 'm',
      region: 'us-east-1',
      endpoint: server.endpoint,
      awsCredentials: { accessKeyId: 'a', secretAccessKey: 's' },
    });
    server.enqueue({ kind: 'error', status: 429, message: 'Too many requests, please wait before trying again.' });
    const err = (await provider.complete({ prompt: 'hi' }).catch((e: unknown) => e)) as LlmProviderError;
    expect(err).toBeInstanceOf(LlmProviderError);
    expect(err.code).toBe('RATE_LIMITED');
    expect((err.cause as Error).name).toBe('ThrottlingException');
  });
});
