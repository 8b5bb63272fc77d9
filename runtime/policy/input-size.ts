/**
 * The size of a policy input's text: the query plus every string (keys included) in the user, context, mcp
 * and llm documents. Policies scan text, so text is what their cost grows with.
 */
import type { PolicyInput } from './types.js';

/** The input's text exceeds the configured maximum; the gateway answers 413 POLICY_INPUT_TOO_LARGE. */
export class PolicyInputTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`the text to check is ${bytes} bytes; the limit is ${maxBytes} bytes (STEWARD_POLICY_INPUT_MAX_BYTES)`);
    this.name = 'PolicyInputTooLargeError';
  }
}

/** UTF-16 code units of the input's text: cheap, and at most a third of its UTF-8 bytes' upper bound. */
export function textUnits(input: PolicyInput): number {
  return input.query.length + units(input.user) + units(input.context) + units(input.mcp) + units(input.llm);
}

/** UTF-8 bytes of the input's text. */
export function textBytes(input: PolicyInput): number {
  return Buffer.byteLength(input.query) + bytes(input.user) + bytes(input.context) + bytes(input.mcp) + bytes(input.llm);
}

function units(x: unknown, depth = 0): number {
  if (typeof x === 'string') return x.length;
  if (x === null || typeof x !== 'object') return 0;
  if (depth > 64) return deep(x);
  let n = 0;
  if (Array.isArray(x)) for (const v of x) n += units(v, depth + 1);
  else for (const k in x) n += k.length + units((x as Record<string, unknown>)[k], depth + 1);
  return n;
}

function bytes(x: unknown, depth = 0): number {
  if (typeof x === 'string') return Buffer.byteLength(x);
  if (x === null || typeof x !== 'object') return 0;
  if (depth > 64) return deep(x);
  let n = 0;
  if (Array.isArray(x)) for (const v of x) n += bytes(v, depth + 1);
  else for (const k in x) n += Buffer.byteLength(k) + bytes((x as Record<string, unknown>)[k], depth + 1);
  return n;
}

/** Deeply nested documents are measured by their JSON text (an over-estimate), not by recursion. */
function deep(x: object): number {
  return Buffer.byteLength(JSON.stringify(x) ?? '');
}
