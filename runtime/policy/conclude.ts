/**
 * From a plan's decisions to the evaluation callers see: which policies blocked, warned or only logged, and the
 * block reason of the first that blocked. A failed policy blocks whatever its action, and is counted.
 */
import type { Logger } from '../../platform/log.js';
import { describeFailure } from './failure.js';
import type { PolicyFailureLog } from './failures.js';
import type { PlanResult } from './plan.js';
import type { PolicyEvaluation } from './types.js';

export function conclude(result: PlanResult, failureLog: PolicyFailureLog, log: Logger): PolicyEvaluation {
  const triggered: string[] = [];
  const warnings: string[] = [];
  const logged: string[] = [];
  let blockReason: string | undefined;
  const evaluated: string[] = [];
  let failed: { policy: string; class: string; error: string }[] | undefined;
  for (const d of result.decisions) {
    const name = policyName(d.name);
    evaluated.push(name);
    if (d.failure) {
      // A failure blocks whatever the action: the action says what a deny does, and this is no deny.
      failureLog.record(name, d.failure.class);
      (failed ??= []).push({ policy: name, class: d.failure.class, error: d.failure.message });
      triggered.push(name);
      blockReason ??= `${name}: evaluation failed (${describeFailure(d.failure.class)})`;
      continue;
    }
    for (const w of d.warn) warnings.push(`${name}: ${w}`);
    if (!d.blocked) {
      if (d.warn.length) triggered.push(name);
      continue;
    }
    const messages = d.deny.length ? d.deny : ['not allowed by policy'];
    if (d.action === 'block') {
      triggered.push(name);
      blockReason ??= `${name}: ${messages[0]}`;
    } else if (d.action === 'warn') {
      triggered.push(name);
      for (const m of messages) warnings.push(`${name}: ${m}`);
    } else {
      logged.push(name);
    }
  }
  if (failed) log.error({ failures: failed }, 'policy evaluation failed; failing closed');
  return {
    approved: blockReason === undefined,
    triggered: triggered.length > 1 ? [...new Set(triggered)] : triggered,
    blockReason,
    warnings,
    logged,
    evaluated,
    evaluationMs: result.durationMs,
  };
}

/** Modules are named `<policy>.rego` (or `.wasm`) so that compile errors read `<policy>.rego:3:7`. */
export function policyName(module: string): string {
  return module.endsWith('.rego') || module.endsWith('.wasm') ? module.slice(0, -5) : module;
}
