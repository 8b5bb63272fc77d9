/**
 * A RegoPolicyEngine over a temporary folder of Policy manifests, inline only (no isolation workers), for the
 * engine's tests; `closeEngine` in afterEach removes everything.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../../platform/log.js';
import { FolderSource } from '../../source/index.js';
import { RegoPolicyEngine, type PolicyEngineOptions } from '../engine.js';
import type { PolicyEvaluation, PolicyScope } from '../types.js';

/** A Policy manifest: `spec` fields beside its Rego. */
export const policy = (name: string, spec: Record<string, unknown>, rego: string) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec: ${JSON.stringify({ type: 'custom', ...spec, rego })}\n---\n`;

let dir: string | undefined;
let source: FolderSource | undefined;
let engine: RegoPolicyEngine | undefined;

/** An engine over these manifests; limits 1 s / 1,000,000 steps unless `options` say otherwise. */
export async function startEngine(yaml: string, options: Partial<PolicyEngineOptions> = {}): Promise<RegoPolicyEngine> {
  dir = await mkdtemp(join(tmpdir(), 'steward-engine-'));
  await writeFile(join(dir, 'p.yaml'), yaml);
  source = new FolderSource({ dirs: [dir], watch: false });
  await source.ready();
  engine = new RegoPolicyEngine({
    source,
    log: createLogger({ level: 'silent' }),
    limits: { deadlineMs: 1000, maxSteps: 1_000_000 },
    isolation: false,
    ...options,
  });
  return engine;
}

/** A Policy manifest of any spec (a wasm policy, which has no Rego). */
export const policyOf = (name: string, spec: Record<string, unknown>) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec: ${JSON.stringify({ type: 'custom', ...spec })}\n---\n`;

/** The folder of the engine started last (to write more manifests, then `engineSource().reload()`). */
export function engineDir(): string {
  if (!dir) throw new Error('no engine started');
  return dir;
}

/** The manifest source of the engine started last (to apply changes). */
export function engineSource(): FolderSource {
  if (!source) throw new Error('no engine started');
  return source;
}

export async function closeEngine(): Promise<void> {
  engine?.close();
  await source?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  engine = source = dir = undefined;
}

/** Evaluates a short query, which must stay on the inline (synchronous) path. */
export function ask(
  e: RegoPolicyEngine,
  query: string,
  scope: PolicyScope = { surface: 'pre-check' },
): PolicyEvaluation {
  const outcome = e.evaluate({ query, surface: scope.surface, context: {} }, scope);
  if (outcome instanceof Promise) throw new Error('a short query was not evaluated inline');
  return outcome;
}
