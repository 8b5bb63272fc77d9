/** The OpenAI-compatible surface (docs/llm-proxy.md): `POST /v1/chat/completions`, `GET /v1/models`, errors. */
import { z } from 'zod';
import { jsonObject, jsonValue, safeText } from '../safe.js';
import { MAX_TOOLS, jsonSchemaObject, tokenBudget, toolName } from './llm-parts.js';

/** A text content part; other part types (images, audio, files) are refused by the route with 400. */
const contentParts = z
  .array(z.object({ type: safeText().max(64), text: safeText().optional() }).catchall(jsonValue))
  .max(1000);

const openAiToolCall = z
  .object({
    id: safeText().min(1).max(256),
    type: z.literal('function'),
    function: z.object({ name: toolName, arguments: safeText().max(1_048_576) }).catchall(jsonValue),
  })
  .catchall(jsonValue);

/**
 * `POST /v1/chat/completions`: OpenAI's Chat Completions request. Fields Steward does not use (top_p, seed, …)
 * are accepted and ignored; `n` other than 1, the legacy `functions`/`function_call` and `function` messages are
 * refused with 400 (docs/llm-proxy.md).
 */
export const chatCompletionRequest = z
  .object({
    /** `provider/model`, a configured provider's name or type (its configured model), or a model of the default provider. */
    model: safeText().min(1).max(256),
    messages: z
      .array(
        z
          .object({
            role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
            content: z.union([safeText(), contentParts]).nullable().optional(),
            name: safeText().max(256).optional(),
            /** Assistant turns: the calls the model made. */
            tool_calls: z.array(openAiToolCall).max(MAX_TOOLS).nullable().optional(),
            /** Tool turns: the call this is the result of. */
            tool_call_id: safeText().min(1).max(256).optional(),
          })
          .catchall(jsonValue),
      )
      .min(1)
      .max(1000),
    /** Steward's range is 0 to 1 (OpenAI's goes to 2). */
    temperature: z.number().min(0).max(1).nullable().optional(),
    max_tokens: tokenBudget.nullable().optional(),
    max_completion_tokens: tokenBudget.nullable().optional(),
    /** The answer as server-sent events (`chat.completion.chunk`s, then `data: [DONE]`). */
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).catchall(jsonValue).nullable().optional(),
    tools: z
      .array(
        z
          .object({
            type: z.literal('function'),
            function: z
              .object({
                name: toolName,
                description: safeText().max(16_384).optional(),
                parameters: jsonSchemaObject.optional(),
                strict: z.boolean().nullable().optional(),
              })
              .catchall(jsonValue),
          })
          .catchall(jsonValue),
      )
      .max(MAX_TOOLS)
      .nullable()
      .optional(),
    tool_choice: z
      .union([
        z.enum(['none', 'auto', 'required']),
        z
          .object({ type: z.literal('function'), function: z.object({ name: toolName }).catchall(jsonValue) })
          .catchall(jsonValue),
      ])
      .nullable()
      .optional(),
    response_format: z
      .union([
        z.object({ type: z.enum(['text', 'json_object']) }).catchall(jsonValue),
        z
          .object({
            type: z.literal('json_schema'),
            json_schema: z
              .object({
                name: toolName,
                description: safeText().max(16_384).optional(),
                schema: jsonSchemaObject.optional(),
                strict: z.boolean().nullable().optional(),
              })
              .catchall(jsonValue),
          })
          .catchall(jsonValue),
      ])
      .nullable()
      .optional(),
    user: safeText().max(256).optional(),
  })
  .catchall(jsonValue);

export const chatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        refusal: z.null(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              type: z.literal('function'),
              function: z.object({ name: z.string(), arguments: z.string() }),
            }),
          )
          .optional(),
      }),
      logprobs: z.null(),
      finish_reason: z.enum(['stop', 'length', 'content_filter', 'tool_calls']),
    }),
  ),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
});

export const modelList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() }),
  ),
});

/** OpenAI's error body; `code` is Steward's code in lower case (`policy_violation`), `details` Steward's context. */
export const openAiError = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string(),
    details: jsonObject().optional(),
  }),
  request_id: z.string(),
});
