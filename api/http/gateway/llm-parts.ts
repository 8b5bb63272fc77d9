/** Pieces the LLM request schemas share (OpenAI's and Anthropic's shapes alike); not part of the contract's surface. */
import { z } from 'zod';
import { jsonObject } from '../safe.js';

export const tokenBudget = z.number().int().min(1).max(1_000_000);

/** A tool's name, as both OpenAI and Anthropic accept it. */
export const toolName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'a tool name is 1 to 64 letters, digits, _ or -' });
/** A JSON Schema object (tool parameters, response formats); its content is the provider's to judge. */
export const jsonSchemaObject = jsonObject();
/** At most 128 tools per request, as at OpenAI. */
export const MAX_TOOLS = 128;
