/** Messages between the policy engine and its isolation workers (structured-cloned). */
import type { DecisionLimits } from '../../../rego/index.js';
import type { PlanEntry, PlanResult } from '../plan.js';
import type { PolicyInput } from '../types.js';

export type ToWorker =
  /** Compile these plans (by content key); plans of other keys are dropped. Answered by `loaded`. */
  | { t: 'load'; generation: number; plans: [key: string, entries: PlanEntry[]][] }
  | { t: 'eval'; id: number; key: string; input: PolicyInput; limits: Required<DecisionLimits> };

export type FromWorker =
  | { t: 'loaded'; generation: number }
  | { t: 'result'; id: number; result: PlanResult }
  /** The evaluation threw (or its plan is unknown): the engine blocks with class engine exception. */
  | { t: 'failed'; id: number; message: string };
