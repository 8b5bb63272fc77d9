/**
 * `input.normalized` (docs/adr/0009-normalized-policy-input.md): the texts of a policy input the built-in pack
 * reads, normalized by runtime/text, the conversation joined, and base64 runs decoded. Built in one place, the
 * engine's evaluate path (ScopePlan.evaluate, plan.ts), so that every surface (pre-check, /v1/execute,
 * /api/request, the chat endpoints, MCP, plan, parallel) gets the same copies without building them.
 */
import { decodeBase64Runs, normalize } from '../text/index.js';
import type { NormalizedTexts, PolicyInput } from './types.js';

/** The input with `normalized` (re)computed. */
export function withNormalized(input: PolicyInput): PolicyInput {
  return { ...input, normalized: normalizedTexts(input) };
}

/** The input without a `normalized` of the caller's: only the engine's copies reach a policy. */
export function withoutNormalized(input: PolicyInput): PolicyInput {
  if (input.normalized === undefined) return input;
  const { normalized: _dropped, ...rest } = input;
  return rest;
}

export function normalizedTexts(input: PolicyInput): NormalizedTexts {
  const texts: string[] = [];
  add(texts, input.query);
  let contents: string[] | undefined;
  const llm = input.llm;
  if (llm) {
    add(texts, llm.prompt);
    add(texts, llm.user);
    if (Array.isArray(llm.messages)) {
      contents = [];
      for (const m of llm.messages as unknown[]) if (isObject(m)) addMessage(texts, contents, m);
    }
    if (isObject(llm.output)) addCalls(texts, llm.output.tool_calls);
  }
  if (input.mcp) {
    add(texts, input.mcp.statement);
    add(texts, input.mcp.query);
  }
  // NB: normalization is per code point, so the normalized contents joined are the joined contents normalized
  const conversation = contents && contents.length > 1 ? contents.join('') : undefined;
  const decoded = decodeBase64Runs(conversation === undefined ? texts : [...texts, conversation]);
  return conversation === undefined ? { texts, decoded } : { texts, conversation, decoded };
}

/** A message's content (a string, or text parts), name and tool-call arguments; its content also joins `contents`. */
function addMessage(texts: string[], contents: string[], m: Record<string, unknown>): void {
  const content = m.content;
  if (typeof content === 'string') {
    const n = normalize(content);
    texts.push(n);
    contents.push(n);
  } else if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const p of content as unknown[]) if (isObject(p) && typeof p.text === 'string') parts.push(normalize(p.text));
    texts.push(...parts);
    contents.push(parts.join(''));
  }
  add(texts, m.name);
  addCalls(texts, m.tool_calls);
}

/** Tool calls' arguments, as `policyMessages` writes them (`{name, arguments}`) or as OpenAI does (`{function}`). */
function addCalls(texts: string[], calls: unknown): void {
  if (!Array.isArray(calls)) return;
  for (const c of calls as unknown[]) {
    if (!isObject(c)) continue;
    add(texts, c.arguments);
    if (isObject(c.function)) add(texts, c.function.arguments);
  }
}

function add(texts: string[], value: unknown): void {
  if (typeof value === 'string') texts.push(normalize(value));
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
