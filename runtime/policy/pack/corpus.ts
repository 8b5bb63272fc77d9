/**
 * The labelled corpus (corpus/*.jsonl) and the accuracy measurement over it. One line per example:
 * `{"text": "...", "labels": ["pii", ...] | [], "note": "...", "surface"?: "mcp"}`; an `mcp` example
 * is sent as an MCP statement, every other one as a pre-check query. A chat example gives
 * `"messages": ["...", {"role": "user", "content": "...", "name"?: "..."}]` instead of `text` (and may give
 * `"user"`, the OpenAI `user` field): it is sent as a chat completion's input (`input.llm.messages`). `"via":
 * "base64"` marks an example whose finding is hidden in base64.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PolicySet } from '../../../rego/index.js';
import { withNormalized } from '../normalized-input.js';
import type { PolicyInput } from '../types.js';

export const CORPUS_DIR = fileURLToPath(new URL('./corpus/', import.meta.url));

/** The pack's policies by the label the corpus uses (the Policy's spec.type). */
export const POLICY_BY_LABEL = {
  pii: 'builtin-pii',
  sql_injection: 'builtin-sql-injection',
  dangerous_sql: 'builtin-dangerous-sql',
  prompt_injection: 'builtin-prompt-injection',
  secrets: 'builtin-secrets',
} as const;
export type Label = keyof typeof POLICY_BY_LABEL;
export const LABELS = Object.keys(POLICY_BY_LABEL) as Label[];

/** One turn of a chat example. */
export interface ExampleMessage {
  role: string;
  content: string;
  name?: string;
}

export interface Example {
  /** The text; for a chat example, its messages' contents joined by line breaks (as `input.query` is). */
  text: string;
  labels: Label[];
  note: string;
  surface?: 'mcp';
  /** A chat example's turns. */
  messages?: ExampleMessage[];
  /** The chat's end-user id (OpenAI `user`). */
  user?: string;
  /**
   * `"base64"`: what the labels name is in text the example hides in base64, which the pack decodes
   * (`input.normalized.decoded`) and output redaction, which masks characters of the answer, does not.
   */
  via?: 'base64';
  /** file:line, for failure messages */
  at: string;
}

/** Reads every corpus file; a malformed line is an error naming it. */
export function readCorpus(dir: string = CORPUS_DIR): Example[] {
  const out: Example[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.trim() === '') return;
        const at = `${file}:${i + 1}`;
        const row = JSON.parse(line) as Partial<Omit<Example, 'messages'>> & { messages?: unknown };
        const labels = row.labels;
        const messages = row.messages === undefined ? undefined : messagesOf(row.messages, at);
        const text = messages ? messages.map((m) => m.content).join('\n') : row.text;
        if (typeof text !== 'string' || typeof row.note !== 'string' || !Array.isArray(labels)) {
          throw new Error(`${at}: expected {text | messages, labels, note}`);
        }
        for (const l of labels) if (!(l in POLICY_BY_LABEL)) throw new Error(`${at}: unknown label ${String(l)}`);
        if (row.surface !== undefined && row.surface !== 'mcp')
          throw new Error(`${at}: surface must be "mcp" when set`);
        if (row.user !== undefined && typeof row.user !== 'string') throw new Error(`${at}: user must be a string`);
        if (row.via !== undefined && row.via !== 'base64') throw new Error(`${at}: via must be "base64" when set`);
        out.push({
          text,
          labels,
          note: row.note,
          at,
          ...(row.surface ? { surface: row.surface } : {}),
          ...(messages ? { messages } : {}),
          ...(row.user !== undefined ? { user: row.user } : {}),
          ...(row.via ? { via: row.via } : {}),
        });
      });
  }
  return out;
}

/** `messages` of a line: strings are user turns. */
function messagesOf(raw: unknown, at: string): ExampleMessage[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new Error(`${at}: messages must be a non-empty array`);
  return raw.map((m, i) => {
    if (typeof m === 'string') return { role: 'user', content: m };
    const o = m as Partial<ExampleMessage>;
    if (typeof o !== 'object' || o === null || typeof o.content !== 'string') {
      throw new Error(`${at}: messages[${i}] needs a content string`);
    }
    const role = typeof o.role === 'string' ? o.role : 'user';
    return { role, content: o.content, ...(typeof o.name === 'string' ? { name: o.name } : {}) };
  });
}

/**
 * The input document the policy engine evaluates for this example: as the gateway builds it (a chat example as the
 * chat routes do), with the normalized copies the engine adds.
 */
export function inputFor(ex: Example): PolicyInput {
  const input: PolicyInput = {
    query: ex.text,
    surface: ex.messages ? 'llm' : (ex.surface ?? 'pre-check'),
    client_id: 'corpus',
    user: { id: 'corpus-user' },
    context: {},
  };
  if (ex.surface === 'mcp') input.mcp = { statement: ex.text };
  if (ex.messages) {
    input.llm = {
      provider: 'corpus',
      model: 'corpus',
      messages: ex.messages,
      ...(ex.user !== undefined ? { user: ex.user } : {}),
    };
  }
  return withNormalized(input);
}

export interface Score {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  falsePositiveRate: number;
  /** examples the policy got wrong, as `FP|FN file:line text` */
  errors: string[];
}

/** A policy "fires" on an example when it produces any deny or warn message. */
export function measure(set: PolicySet, corpus: readonly Example[]): Record<Label, Score> {
  const scores = Object.fromEntries(
    LABELS.map((l) => [
      l,
      { tp: 0, fp: 0, fn: 0, tn: 0, precision: 0, recall: 0, falsePositiveRate: 0, errors: [] as string[] },
    ]),
  ) as Record<Label, Score>;
  for (const ex of corpus) {
    const result = set.evaluate(inputFor(ex), { deadlineMs: 10_000 });
    for (const label of LABELS) {
      const d = result.decisions.find((x) => x.name === POLICY_BY_LABEL[label]);
      if (!d) throw new Error(`policy ${POLICY_BY_LABEL[label]} was not evaluated`);
      if (d.error) throw new Error(`${ex.at}: ${d.name} failed: ${d.error.message}`);
      const fired = d.deny.length > 0 || d.warn.length > 0;
      const wanted = ex.labels.includes(label);
      const s = scores[label];
      if (fired && wanted) s.tp++;
      else if (fired) {
        s.fp++;
        s.errors.push(`FP ${ex.at} ${JSON.stringify(ex.text.slice(0, 120))} -> ${[...d.deny, ...d.warn].join(', ')}`);
      } else if (wanted) {
        s.fn++;
        s.errors.push(`FN ${ex.at} ${JSON.stringify(ex.text.slice(0, 120))}`);
      } else s.tn++;
    }
  }
  for (const s of Object.values(scores)) {
    s.precision = s.tp + s.fp === 0 ? 1 : s.tp / (s.tp + s.fp);
    s.recall = s.tp + s.fn === 0 ? 1 : s.tp / (s.tp + s.fn);
    s.falsePositiveRate = s.fp + s.tn === 0 ? 0 : s.fp / (s.fp + s.tn);
  }
  return scores;
}

/** Markdown table of the scores (the one in docs/policy-pack.md). */
export function scoreTable(scores: Record<Label, Score>): string {
  const rows = LABELS.map((l) => {
    const s = scores[l];
    return `| ${l} | ${s.tp + s.fn} | ${s.fp + s.tn} | ${s.precision.toFixed(3)} | ${s.recall.toFixed(3)} | ${s.falsePositiveRate.toFixed(4)} |`;
  });
  return [
    '| policy | positives | negatives | precision | recall | false-positive rate |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
