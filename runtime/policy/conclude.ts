/**
 * From a plan's decisions to the evaluation callers see: which policies blocked, warned or only logged, and the
 * block reason of the first that blocked. A Policy's mode (`spec.enforcementAction`) says whether its action is
 * carried out: `warn` turns a block into a warning the caller sees, `audit` only records what it would have done;
 * an exception (PolicyException) exempts the call from a policy. A failed enforced policy blocks whatever its action,
 * and is counted; a failed policy that is not enforced is recorded, never blocks.
 */
import type { PolicyMode } from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import { describeFailure } from './failure.js';
import type { PolicyFailureLog } from './failures.js';
import type { PlanDecision, PlanResult } from './plan.js';
import type { PolicyEvaluation, PolicyResult } from './types.js';

/** What conclude needs to know of each policy besides its decision. */
export interface ConcludeContext {
  failureLog: PolicyFailureLog;
  log: Logger;
  /** The policy's mode. */
  modeOf(policy: string): PolicyMode;
  /** The policy it shadows (`spec.shadowOf`), if any. */
  shadowOf(policy: string): string | undefined;
  /** The exception exempting this call from the policy, by name; undefined when none applies. */
  exemptionOf?(policy: string): string | undefined;
}

export function conclude(result: PlanResult, ctx: ConcludeContext): PolicyEvaluation {
  const out = new Conclusion();
  for (const d of result.decisions) out.add(d, ctx);
  if (out.failed) ctx.log.error({ failures: out.failed }, 'policy evaluation failed');
  return out.evaluation(result.durationMs);
}

class Conclusion {
  readonly triggered: string[] = [];
  readonly warnings: string[] = [];
  readonly logged: string[] = [];
  readonly evaluated: string[] = [];
  readonly results: PolicyResult[] = [];
  approvals: { policy: string; reasons: readonly string[] }[] | undefined;
  blockReason: string | undefined;
  failed: { policy: string; class: string; error: string }[] | undefined;

  add(d: PlanDecision, ctx: ConcludeContext): void {
    const name = policyName(d.name);
    this.evaluated.push(name);
    const messages = d.failure ? [] : d.blocked ? (d.deny.length ? d.deny : ['not allowed by policy']) : d.warn;
    if (d.approval && !d.failure && !d.blocked) this.approval(name, d.approval, ctx);
    if (!d.failure && !d.blocked && d.warn.length === 0) return;
    // What the policy does when it is carried out: a failure blocks whatever the action; a warn rule warns.
    const would = d.failure ? 'block' : d.blocked ? d.action : 'warn';
    const mode = ctx.modeOf(name);
    const shadowOf = ctx.shadowOf(name);
    const exception = ctx.exemptionOf?.(name);
    const record = (decision: PolicyResult['decision']) =>
      this.results.push({
        policy: name,
        mode,
        would,
        decision,
        ...(exception ? { exception } : {}),
        ...(shadowOf ? { shadowOf } : {}),
      });
    if (d.failure) {
      ctx.failureLog.record(name, d.failure.class);
      (this.failed ??= []).push({ policy: name, class: d.failure.class, error: d.failure.message });
    }
    if (exception) return void record('exempted');
    if (would === 'log') {
      this.logged.push(name);
      return void record('log');
    }
    if (mode === 'audit') return void record('audit');
    const text = d.failure ? [`evaluation failed (${describeFailure(d.failure.class)})`] : messages;
    if (mode === 'warn' || would === 'warn') {
      this.triggered.push(name);
      for (const m of text) this.warnings.push(`${name}: ${m}`);
      return void record('warn');
    }
    this.triggered.push(name);
    this.blockReason ??= `${name}: ${text[0]}`;
    record('block');
  }

  /**
   * A `require_approval` of a policy that did not block: parked when enforced; under warn mode a warning (the call
   * goes ahead); under audit mode or an exception, nothing.
   */
  private approval(name: string, reasons: readonly string[], ctx: ConcludeContext): void {
    if (ctx.exemptionOf?.(name)) return;
    const mode = ctx.modeOf(name);
    if (mode === 'enforce') (this.approvals ??= []).push({ policy: name, reasons });
    else if (mode === 'warn') for (const r of reasons) this.warnings.push(`${name}: approval would be required: ${r}`);
  }

  evaluation(durationMs: number): PolicyEvaluation {
    return {
      ...(this.approvals ? { approvals: this.approvals } : {}),
      approved: this.blockReason === undefined,
      triggered: this.triggered.length > 1 ? [...new Set(this.triggered)] : this.triggered,
      blockReason: this.blockReason,
      warnings: this.warnings,
      logged: this.logged,
      evaluated: this.evaluated,
      results: this.results,
      evaluationMs: durationMs,
    };
  }
}

/** Modules are named `<policy>.rego` (or `.wasm`) so that compile errors read `<policy>.rego:3:7`. */
export function policyName(module: string): string {
  return module.endsWith('.rego') || module.endsWith('.wasm') ? module.slice(0, -5) : module;
}
