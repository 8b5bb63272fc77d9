/** The Anthropic-compatible surface (docs/llm-proxy.md): `POST /v1/messages` and its errors. */
import { z } from 'zod';
import { jsonObject, jsonValue, safeText } from '../safe.js';
import { MAX_TOOLS, jsonSchemaObject, tokenBudget, toolName } from './llm-parts.js';

/** Text, tool_use and tool_result blocks; image, document and other blocks are refused by the route with 400. */
const anthropicBlock = z
  .object({
    type: safeText().max(64),
    text: safeText().optional(),
    /** tool_use */
    id: safeText().max(256).optional(),
    name: toolName.optional(),
    input: jsonValue.optional(),
    /** tool_result */
    tool_use_id: safeText().max(256).optional(),
    content: z
      .union([
        safeText(),
        z.array(z.object({ type: safeText().max(64), text: safeText().optional() }).catchall(jsonValue)).max(1000),
      ])
      .optional(),
    is_error: z.boolean().optional(),
  })
  .catchall(jsonValue);
const anthropicContent = z.union([safeText(), z.array(anthropicBlock).max(1000)]);

/** `POST /v1/messages`: Anthropic's Messages request, tools included (docs/llm-proxy.md). */
export const anthropicMessagesRequest = z
  .object({
    model: safeText().min(1).max(256),
    max_tokens: tokenBudget,
    system: anthropicContent.optional(),
    messages: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: anthropicContent }).catchall(jsonValue))
      .min(1)
      .max(1000),
    temperature: z.number().min(0).max(1).optional(),
    stream: z.boolean().optional(),
    tools: z
      .array(
        z
          .object({ name: toolName, description: safeText().max(16_384).optional(), input_schema: jsonSchemaObject })
          .catchall(jsonValue),
      )
      .max(MAX_TOOLS)
      .optional(),
    tool_choice: z
      .object({
        type: z.enum(['auto', 'any', 'tool', 'none']),
        name: toolName.optional(),
        disable_parallel_tool_use: z.boolean().optional(),
      })
      .catchall(jsonValue)
      .optional(),
  })
  .catchall(jsonValue);

export const anthropicMessage = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(
    z.union([
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
    ]),
  ),
  stop_reason: z.enum(['end_turn', 'max_tokens', 'refusal', 'tool_use']),
  stop_sequence: z.null(),
  usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
});

/** Anthropic's error body; `error.code` is Steward's code, an addition the SDK ignores. */
export const anthropicError = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string(), code: z.string(), details: jsonObject().optional() }),
  request_id: z.string(),
});
