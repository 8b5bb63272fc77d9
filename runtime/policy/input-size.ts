/**
 * The size of a policy input's text: the query and the request type plus every string (keys included) in the user,
 * context, mcp and llm documents. Policies scan text, so text is what their cost grows with.
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
  return measureInput(input, codeUnits);
}

/** UTF-8 bytes of the input's text. */
export function textBytes(input: PolicyInput): number {
  return measureInput(input, Buffer.byteLength);
}

type Length = (s: string) => number;

const codeUnits: Length = (s) => s.length;

function measureInput(input: PolicyInput, len: Length): number {
  // NB: request_type may come from a body (/api/request, a pre-check); client comes from the credential
  return (
    len(input.query) +
    len(input.request_type ?? '') +
    measure(input.user, len) +
    measure(input.context, len) +
    measure(input.mcp, len) +
    measure(input.llm, len)
  );
}

/** The text (strings and keys) of a document; deeply nested ones by their JSON text (an over-estimate), not by recursion. */
function measure(x: unknown, len: Length, depth = 0): number {
  if (typeof x === 'string') return len(x);
  if (x === null || typeof x !== 'object') return 0;
  if (depth > 64) return Buffer.byteLength(JSON.stringify(x) ?? '');
  let n = 0;
  if (Array.isArray(x)) for (const v of x) n += measure(v, len, depth + 1);
  else for (const k in x) n += len(k) + measure((x as Record<string, unknown>)[k], len, depth + 1);
  return n;
}
