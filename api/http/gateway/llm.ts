/** Steward's own governed LLM requests: `POST /api/request` (an LLM call or a plan) and `POST /v1/execute`. */
import { z } from 'zod';
import { jsonObject, jsonValue, safeText } from '../safe.js';

export const executeRequest = z
  .object({ prompt: safeText().min(1), mode: safeText().default('chat') })
  .catchall(jsonValue);

export const gatewayRequest = z
  .object({
    query: safeText(),
    request_type: safeText().default('chat'),
    context: jsonObject().optional(),
  })
  .catchall(jsonValue);
