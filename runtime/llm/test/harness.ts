/**
 * One harness per provider: starts its fake server, builds a provider config pointing the real SDK at it,
 * and reads a recorded wire request back into provider-neutral fields for assertions.
 */
import {
  parseSigV4,
  startFakeAnthropic,
  startFakeBedrock,
  startFakeOllama,
  startFakeOpenAi,
  type FakeServerHandle,
  type RecordedRequest,
} from '../../../testing/llm/index.js';
import type { ProviderConfigInput } from '../config.js';

export interface WireView {
  path: string;
  model: string;
  temperature: unknown;
  maxTokens: unknown;
  system: string | undefined;
  messages: { role: string; content: string }[];
  /** The credential the request presented. */
  credential: string | undefined;
}

/** Tool traffic of a wire request: offered tool names, echoed assistant calls, tool results. */
export interface WireTools {
  tools: string[];
  calls: { name: string; args: unknown }[];
  /** `ref`: the call id the result answers (Ollama: the tool name, as it has no ids). */
  results: { ref: string; content: string }[];
}

export interface Harness {
  type: 'openai' | 'anthropic' | 'aws-bedrock' | 'ollama';
  /** Starts a fake that accepts `goodKey` and a config presenting `presentedKey`. */
  start(presentedKey: string): Promise<{ server: FakeServerHandle; config: ProviderConfigInput }>;
  read(req: RecordedRequest): WireView;
  readTools(req: RecordedRequest): WireTools;
  /** True when the provider's tool calls carry its own ids (Ollama's do not; Steward makes them up). */
  toolCallIds: boolean;
  /** The wire path a completion for `model` goes to. */
  path(model: string): string;
  /** The status the provider answers to bad credentials. */
  badCredentialStatus: number;
  /** The provider's word for "stopped at the token budget". */
  lengthWord: string;
}

export const GOOD_KEY = 'key-good-0123456789';

const text = (content: unknown): string =>
  typeof content === 'string' ? content : (content as { text?: string }[]).map((b) => b.text ?? '').join('');

type Body = Record<string, unknown> & { messages: { role: string; content: unknown }[] };

export const harnesses: Harness[] = [
  {
    type: 'openai',
    async start(key) {
      const server = await startFakeOpenAi({ apiKey: GOOD_KEY });
      return { server, config: { type: 'openai', model: 'gpt-4o', endpoint: server.baseURL, apiKey: key } };
    },
    read(req) {
      const b = req.body as Body;
      const system = b.messages.filter((m) => m.role === 'system').map((m) => text(m.content));
      return {
        path: req.path,
        model: b.model as string,
        temperature: b.temperature,
        maxTokens: b.max_completion_tokens,
        system: system.length ? system.join('\n\n') : undefined,
        messages: b.messages
          .filter((m) => m.role !== 'system')
          .map((m) => ({ role: m.role, content: text(m.content) })),
        credential: req.headers.authorization?.replace(/^Bearer /, ''),
      };
    },
    readTools(req) {
      const b = req.body as Body & { tools?: { function: { name: string } }[] };
      const m = b.messages as {
        role: string;
        content: unknown;
        tool_calls?: { function: { name: string; arguments: string } }[];
        tool_call_id?: string;
      }[];
      return {
        tools: (b.tools ?? []).map((t) => t.function.name),
        calls: m
          .flatMap((x) => x.tool_calls ?? [])
          .map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) })),
        results: m.filter((x) => x.role === 'tool').map((x) => ({ ref: x.tool_call_id!, content: text(x.content) })),
      };
    },
    toolCallIds: true,
    path: () => '/v1/chat/completions',
    badCredentialStatus: 401,
    lengthWord: 'length',
  },
  {
    type: 'anthropic',
    async start(key) {
      const server = await startFakeAnthropic({ apiKey: GOOD_KEY });
      return {
        server,
        config: { type: 'anthropic', model: 'claude-haiku-4-5', endpoint: server.baseURL, apiKey: key },
      };
    },
    read(req) {
      const b = req.body as Body;
      return {
        path: req.path,
        model: b.model as string,
        temperature: b.temperature,
        maxTokens: b.max_tokens,
        system: typeof b.system === 'string' ? b.system : undefined,
        messages: b.messages.map((m) => ({ role: m.role, content: text(m.content) })),
        credential: req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, ''),
      };
    },
    readTools(req) {
      const b = req.body as Body & { tools?: { name: string }[] };
      const blocks = b.messages.flatMap((m) =>
        Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : [],
      );
      return {
        tools: (b.tools ?? []).map((t) => t.name),
        calls: blocks.filter((x) => x.type === 'tool_use').map((x) => ({ name: x.name as string, args: x.input })),
        results: blocks
          .filter((x) => x.type === 'tool_result')
          .map((x) => ({ ref: x.tool_use_id as string, content: text(x.content) })),
      };
    },
    toolCallIds: true,
    path: () => '/v1/messages',
    badCredentialStatus: 401,
    lengthWord: 'max_tokens',
  },
  {
    type: 'aws-bedrock',
    async start(key) {
      const server = await startFakeBedrock({ accessKeyId: GOOD_KEY });
      return {
        server,
        config: {
          type: 'aws-bedrock',
          model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
          region: 'eu-west-1',
          endpoint: server.endpoint,
          awsCredentials: { accessKeyId: key, secretAccessKey: 'secret-not-checked' },
        },
      };
    },
    read(req) {
      const b = req.body as Body & {
        system?: { text: string }[];
        inferenceConfig?: { temperature?: number; maxTokens?: number };
      };
      return {
        path: req.path,
        model: decodeURIComponent(/^\/model\/([^/]+)\/converse$/.exec(req.path)?.[1] ?? ''),
        temperature: b.inferenceConfig?.temperature,
        maxTokens: b.inferenceConfig?.maxTokens,
        system: b.system ? b.system.map((s) => s.text).join('') : undefined,
        messages: b.messages.map((m) => ({ role: m.role, content: text(m.content) })),
        credential: parseSigV4(req.headers.authorization)?.accessKeyId,
      };
    },
    readTools(req) {
      const b = req.body as Body & { toolConfig?: { tools: { toolSpec: { name: string } }[] } };
      const blocks = b.messages.flatMap((m) => m.content as Record<string, Record<string, unknown> | undefined>[]);
      return {
        tools: (b.toolConfig?.tools ?? []).map((t) => t.toolSpec.name),
        calls: blocks.flatMap((x) => (x.toolUse ? [{ name: x.toolUse.name as string, args: x.toolUse.input }] : [])),
        results: blocks.flatMap((x) =>
          x.toolResult ? [{ ref: x.toolResult.toolUseId as string, content: text(x.toolResult.content) }] : [],
        ),
      };
    },
    toolCallIds: true,
    // Bedrock refuses unknown credentials with 403 UnrecognizedClientException, never 401.
    path: (model) => `/model/${encodeURIComponent(model)}/converse`,
    badCredentialStatus: 403,
    lengthWord: 'max_tokens',
  },
  {
    type: 'ollama',
    async start(key) {
      const server = await startFakeOllama({ bearerToken: GOOD_KEY });
      return { server, config: { type: 'ollama', model: 'llama3.2', endpoint: server.host, apiKey: key } };
    },
    read(req) {
      const b = req.body as Body & { options?: { temperature?: number; num_predict?: number } };
      const system = b.messages.filter((m) => m.role === 'system').map((m) => text(m.content));
      return {
        path: req.path,
        model: b.model as string,
        temperature: b.options?.temperature,
        maxTokens: b.options?.num_predict,
        system: system.length ? system.join('\n\n') : undefined,
        messages: b.messages
          .filter((m) => m.role !== 'system')
          .map((m) => ({ role: m.role, content: text(m.content) })),
        credential: req.headers.authorization?.replace(/^Bearer /, ''),
      };
    },
    readTools(req) {
      const b = req.body as Body & { tools?: { function: { name: string } }[] };
      const m = b.messages as {
        role: string;
        content: string;
        tool_calls?: { function: { name: string; arguments: unknown } }[];
        tool_name?: string;
      }[];
      return {
        tools: (b.tools ?? []).map((t) => t.function.name),
        calls: m.flatMap((x) => x.tool_calls ?? []).map((c) => ({ name: c.function.name, args: c.function.arguments })),
        results: m.filter((x) => x.role === 'tool').map((x) => ({ ref: x.tool_name!, content: x.content })),
      };
    },
    toolCallIds: false,
    path: () => '/api/chat',
    badCredentialStatus: 401,
    lengthWord: 'length',
  },
];
