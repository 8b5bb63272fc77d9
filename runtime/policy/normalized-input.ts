/**
 * `input.normalized` (docs/adr/0009-normalized-policy-input.md): the texts of a policy input the built-in pack
 * reads, normalized by runtime/text, the conversation joined, and base64 runs decoded. Built in one place, the
 * engine's evaluate path (ScopePlan.evaluate, plan.ts), so that every surface (pre-check, /v1/execute,
 * /api/request, the chat endpoints, MCP, plan, parallel) gets the same copies without building them.
 */
import { decodeBase64Runs, hiddenTagText, normalize } from '../text/index.js';
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
  const c: Collected = { texts: [], hidden: [], params: 0 };
  add(c, input.query);
  let joined = false;
  const llm = input.llm;
  if (llm) {
    add(c, llm.prompt);
    add(c, llm.user);
    if (Array.isArray(llm.messages)) {
      c.contents = [];
      c.users = [];
      for (const m of llm.messages as unknown[]) if (isObject(m)) joined = addMessage(c, m) || joined;
    }
    if (isObject(llm.output)) addCalls(c, llm.output.tool_calls);
  }
  if (input.mcp) {
    add(c, input.mcp.statement);
    add(c, input.mcp.query);
    // A tool's arguments and a statement's $n values reach the system as much as the statement does.
    addLeaves(c, input.mcp.params, 0);
  }
  const { texts, contents, users } = c;
  // NB: normalization is per code point, so the normalized contents joined are the joined contents normalized
  const conversation = contents && (contents.length > 1 || joined) ? contents.join('') : undefined;
  // The user turns alone, each trimmed at the seams: a value split between them around assistant turns ("401",
  // "ok, go on", "73") or with a line break at the split ("287-65-", "\n1942") reads whole. NB: one more text
  // (NormalizedTexts has no field of its own for it), only where it differs from the conversation.
  if (users && users.length > 1) {
    const user = users.map((u) => u.trim()).join('');
    if (user !== conversation) texts.push(user);
  }
  const sources = conversation === undefined ? texts : [...texts, conversation];
  // the text hidden in Unicode tag characters (dropped from the normalized texts) is read as decoded text
  const hidden = c.hidden.map(normalize);
  const decoded = decodeBase64Runs(hidden.length === 0 ? sources : [...sources, ...hidden]);
  if (hidden.length > 0) decoded.unshift(...hidden);
  return conversation === undefined ? { texts, decoded } : { texts, conversation, decoded };
}

/** What `normalizedTexts` gathers: the texts, the message contents (and the user turns') and tag-hidden text. */
interface Collected {
  texts: string[];
  contents?: string[];
  users?: string[];
  hidden: string[];
  /** argument strings read so far (MAX_PARAM_STRINGS) */
  params: number;
}

/**
 * A message's content (a string, or text parts joined with nothing between them), name and tool-call arguments;
 * its content also joins `contents` (and `users` for a user turn). True when its content had several text parts.
 */
function addMessage(c: Collected, m: Record<string, unknown>): boolean {
  const content = m.content;
  let parts: string[] | undefined;
  if (typeof content === 'string') parts = [content];
  else if (Array.isArray(content)) {
    parts = [];
    for (const p of content as unknown[]) if (isObject(p) && typeof p.text === 'string') parts.push(p.text);
  }
  if (parts) {
    const normalized = parts.map((p) => add(c, p)!);
    const joined = normalized.join('');
    c.contents!.push(joined);
    if (m.role === 'user') c.users!.push(joined);
  }
  add(c, m.name);
  addCalls(c, m.tool_calls);
  return parts !== undefined && parts.length > 1;
}

/** Tool calls' arguments, as `policyMessages` writes them (`{name, arguments}`) or as OpenAI does (`{function}`). */
function addCalls(c: Collected, calls: unknown): void {
  if (!Array.isArray(calls)) return;
  for (const call of calls as unknown[]) {
    if (!isObject(call)) continue;
    add(c, call.arguments);
    if (isObject(call.function)) add(c, call.function.arguments);
  }
}

/** A string field: its normalized text joins `texts` (and is returned), the text its tag characters hide `hidden`. */
/** Depth and count bounds of the argument strings read (the input's size limit bounds their length). */
const MAX_PARAM_DEPTH = 16;
const MAX_PARAM_STRINGS = 1024;

/** Every string of a JSON-like value (values and keys), within the bounds. */
function addLeaves(c: Collected, value: unknown, depth: number): void {
  if (typeof value === 'string') {
    if (c.params < MAX_PARAM_STRINGS) {
      c.params++;
      add(c, value);
    }
    return;
  }
  if (depth >= MAX_PARAM_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) addLeaves(c, v, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    addLeaves(c, k, depth + 1);
    addLeaves(c, v, depth + 1);
  }
}

function add(c: Collected, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const n = normalize(value);
  c.texts.push(n);
  for (const h of hiddenTagText(value)) c.hidden.push(h);
  return n;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
