/**
 * Fake LLM provider servers for tests: each listens on 127.0.0.1 on a free port, speaks the provider's real
 * wire protocol, records every request and answers from a queue of scenarios (reply, error status, hang,
 * malformed). A reply may be streamed (SSE, NDJSON or AWS event stream, as the request asks) in scripted
 * chunks, carry tool calls, leave out usage or stall midway; `clientAborts` / `waitForClientAborts()` show a
 * client closing the connection before the answer ended. Point the real SDK at `baseURL` / `endpoint` / `host`.
 * Imported only by tests and dev tooling.
 */
export type { FakeServerHandle, Pacing, RecordedRequest, Scenario, ScriptedToolCall } from './server.js';
export { startFakeOpenAi, type FakeOpenAiOptions, type FakeOpenAiServer } from './openai.js';
export { startFakeAnthropic, type FakeAnthropicOptions, type FakeAnthropicServer } from './anthropic.js';
export {
  parseSigV4,
  startFakeBedrock,
  type FakeBedrockOptions,
  type FakeBedrockServer,
  type SigV4Authorization,
} from './bedrock.js';
export { startFakeOllama, type FakeOllamaOptions, type FakeOllamaServer } from './ollama.js';
