/**
 * The labelled corpus (corpus/*.jsonl) and the accuracy measurement over it. One line per example:
 * `{"text": "...", "labels": ["pii", ...] | [], "note": "...", "surface"?: "mcp"}`; an `mcp` example
 * is sent as an MCP statement, every other one as a pre-check query.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PolicySet } from '../../../rego/index.js';

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

export interface Example {
  text: string;
  labels: Label[];
  note: string;
  surface?: 'mcp';
  /** file:line, for failure messages */
  at: string;
}

/** Reads every corpus file; a malformed line is an error naming it. */
export function readCorpus(dir: string = CORPUS_DIR): Example[] {
  const out: Example[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.trim() === '') return;
        const at = `${file}:${i + 1}`;
        const row = JSON.parse(line) as Partial<Example>;
        const labels = row.labels;
        if (typeof row.text !== 'string' || typeof row.note !== 'string' || !Array.isArray(labels)) {
          throw new Error(`${at}: expected {text, labels, note}`);
        }
        for (const l of labels) if (!(l in POLICY_BY_LABEL)) throw new Error(`${at}: unknown label ${String(l)}`);
        if (row.surface !== undefined && row.surface !== 'mcp') throw new Error(`${at}: surface must be "mcp" when set`);
        out.push({ text: row.text, labels, note: row.note, at, ...(row.surface ? { surface: row.surface } : {}) });
      });
  }
  return out;
}

/** The input document the gateway would build for this example. */
export function inputFor(ex: Example): Record<string, unknown> {
  const input: Record<string, unknown> = {
    query: ex.text,
    surface: ex.surface ?? 'pre-check',
    client_id: 'corpus',
    user: { id: 'corpus-user' },
    context: {},
  };
  if (ex.surface === 'mcp') input.mcp = { statement: ex.text };
  return input;
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
    LABELS.map((l) => [l, { tp: 0, fp: 0, fn: 0, tn: 0, precision: 0, recall: 0, falsePositiveRate: 0, errors: [] as string[] }]),
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
  return ['| policy | positives | negatives | precision | recall | false-positive rate |', '|---|---|---|---|---|---|', ...rows].join('\n');
}
