/**
 * LLM providers behind one interface: OpenAI, Anthropic, AWS Bedrock (Converse), Ollama through their
 * official SDKs, and a clearly labelled `echo` stand-in for development. Config is passed in; nothing here
 * reads the environment.
 */
export type {
  FinishReason,
  LlmMessage,
  LlmProvider,
  LlmProviderType,
  LlmRequest,
  LlmResponse,
  LlmResponseFormat,
  LlmRole,
  LlmStream,
  LlmStreamEvent,
  LlmTool,
  LlmToolCall,
  LlmToolChoice,
  LlmUsage,
} from './types.js';
export {
  DEFAULT_LLM_TIMEOUT_MS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_TEMPERATURE,
  LLM_PROVIDER_TYPES,
  MAX_TOKENS_LIMIT,
  describeProviderConfig,
  providerConfigSchema,
  type ProviderConfig,
  type ProviderConfigInput,
} from './config.js';
export {
  LlmAbortedError,
  LlmError,
  LlmNotConfiguredError,
  LlmProviderError,
  LlmTimeoutError,
  LlmValidationError,
  type LlmProviderErrorCode,
} from './errors.js';
export { MAX_MESSAGES, MAX_TOOLS, TOOL_NAME, normalizeRequest } from './validate.js';
export { ECHO_NOTICE } from './echo.js';
export { LlmConfigError, createLlmRouter, createProvider, type LlmRouter, type LlmRouterOptions } from './router.js';
export { llmFromSettings } from './settings.js';
export {
  routeAgentLlm,
  routeWarning,
  type AgentLlmResolution,
  type AgentLlmRoute,
  type AgentLlmSpec,
} from './agent-route.js';
