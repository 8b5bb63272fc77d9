/**
 * The gateway's policy engine over folders of manifests, for `steward policy eval` and fixture suites: a FolderSource
 * (read once, not watched) under a RegoPolicyEngine, so that normalisation (`input.normalized`), scopes, priorities,
 * actions and the decision are the gateway's own. Evaluation is inline (no isolation workers), with the CLI's
 * limits instead of the gateway's deadline, so that a slow machine does not turn a case into a fail-closed block.
 */
import { createLogger } from '../../platform/log.js';
import { RegoPolicyEngine } from '../../runtime/policy/engine.js';
import { FolderSource } from '../../runtime/source/index.js';

export interface EngineLimits {
  deadlineMs: number;
  maxSteps: number;
}

/** The default steps of one evaluation: the gateway's (STEWARD_POLICY_MAX_STEPS). */
export const DEFAULT_MAX_STEPS = 1_000_000;

export interface OpenEngine {
  engine: RegoPolicyEngine;
  /**
   * What did not load: documents the source skipped (`file#index field: message`, a missing folder) and Policies
   * that do not compile (`policy name: file:row:col: …`). The gateway would run without them; the CLI refuses.
   */
  problems: string[];
  close(): Promise<void>;
}

/** An engine over the folders (or manifest files), ready: every Policy compiled. */
export async function openEngine(dirs: readonly string[], limits: EngineLimits): Promise<OpenEngine> {
  const source = new FolderSource({ dirs, watch: false });
  await source.ready();
  const engine = new RegoPolicyEngine({
    source,
    log: createLogger({ level: 'silent' }),
    limits,
    isolation: false,
  });
  const problems = [
    ...source.issues().map((i) => `${i.file}#${i.documentIndex} ${i.field}: ${i.message}`),
    ...engine.problems().map((p) => `policy ${p.policy}: ${p.message}`),
  ];
  return {
    engine,
    problems,
    async close() {
      engine.close();
      await source.close();
    },
  };
}
