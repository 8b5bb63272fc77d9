/**
 * The decision contract (DESIGN.md): a policy module's `deny` (messages), `warn` (messages) and
 * `allow` (boolean). Blocked when any deny message exists, or when the module defines `allow` and
 * it is not true for this input. Any evaluation error fails closed (blocked, with the error).
 */
import type { EvalOptions, PreparedPolicy } from './engine.js';
import { RegoError, RegoLimitError, type LimitKind } from './errors.js';
import { RObject, RSet, toJSONText, type Value } from './value.js';

export interface DecisionLimits {
  /** wall-clock budget for the evaluation @default 100 */
  deadlineMs?: number;
  /** expression-evaluation budget @default 1_000_000 */
  maxSteps?: number;
}

export interface DecisionError {
  /** OPA/Steward error code, e.g. eval_conflict_error, eval_cancel_error */
  code: string;
  message: string;
  /** which limit stopped the evaluation, when a limit did (code eval_cancel_error) */
  kind?: LimitKind;
}

export interface Decision {
  /** the package the decision came from, e.g. `steward.pii` */
  package: string;
  blocked: boolean;
  /** deny messages in OPA's sorted order (non-string messages as JSON text) */
  deny: readonly string[];
  warn: readonly string[];
  /** the value of `allow`: undefined when the module does not define it or it was undefined */
  allow: boolean | undefined;
  /**
   * The reasons of `require_approval` (a set of messages, like `deny`): the call may go ahead once a person approves
   * it. Absent when the rule is undefined or empty. Not a block: the caller decides what approval means.
   */
  approval?: readonly string[];
  /** set when evaluation failed (the decision is then blocked: fail closed) */
  error?: DecisionError;
  durationMs: number;
}

export const DEFAULT_DECISION_LIMITS: Required<DecisionLimits> = { deadlineMs: 200, maxSteps: 1_000_000 };

/** No messages: shared by every decision without any (most of them), never written to. */
const NO_MESSAGES: readonly string[] = Object.freeze([]);

function messages(v: Value | undefined, pkg: string, rule: string): readonly string[] {
  if (v === undefined || v === false || v === null) return NO_MESSAGES;
  const items =
    v instanceof RSet
      ? v.valuesView()
      : Array.isArray(v)
        ? v
        : v instanceof RObject
          ? v.keys()
          : v === true
            ? [`${pkg}.${rule}`]
            : [v];
  return items.map((m) => (typeof m === 'string' ? m : toJSONText(m)));
}

function normalizePackage(pkg: string): string {
  return pkg.startsWith('data.') ? pkg.slice(5) : pkg;
}

function toDecisionError(e: unknown): DecisionError {
  if (e instanceof RegoLimitError) return { code: e.code, message: e.message, kind: e.kind };
  return e instanceof RegoError
    ? { code: e.code, message: e.message }
    : { code: 'internal_error', message: e instanceof Error ? e.message : String(e) };
}

/** The refs of a package's decision, in evaluation order: deny, warn, allow, require_approval. */
export function decisionRefs(pkg: string): [string, string, string, string] {
  const base = `data.${normalizePackage(pkg)}`;
  return [`${base}.deny`, `${base}.warn`, `${base}.allow`, `${base}.require_approval`];
}

/** How many refs one package's decision reads (decisionRefs). */
export const DECISION_REFS = 4;

type Settled = { value: Value | undefined } | { error: unknown };

function valueOf(x: Settled): Value | undefined {
  return (x as { value: Value | undefined }).value;
}

/**
 * Builds a Decision from the settled values of decisionRefs(pkg), in that order, starting at `at`.
 * `allowDefined` (whether the package defines allow) may be passed when the caller knows it.
 */
export function decisionFrom(
  prepared: PreparedPolicy,
  pkg: string,
  settled: readonly Settled[],
  durationMs: number,
  at = 0,
  allowDefined?: boolean,
): Decision {
  const name = normalizePackage(pkg);
  for (let i = at; i < at + DECISION_REFS; i++) {
    const x = settled[i]!;
    if ('error' in x)
      return {
        package: name,
        blocked: true,
        deny: NO_MESSAGES,
        warn: NO_MESSAGES,
        allow: undefined,
        error: toDecisionError(x.error),
        durationMs,
      };
  }
  const denyMsgs = messages(valueOf(settled[at]!), name, 'deny');
  const warnMsgs = messages(valueOf(settled[at + 1]!), name, 'warn');
  const allow = valueOf(settled[at + 2]!);
  const approval = messages(valueOf(settled[at + 3]!), name, 'require_approval');
  allowDefined ??= prepared.defines(`data.${name}.allow`);
  const blocked = denyMsgs.length > 0 || (allowDefined && allow !== true);
  const d: Decision = {
    package: name,
    blocked,
    deny: denyMsgs,
    warn: warnMsgs,
    allow: allow === undefined ? undefined : allow === true,
    durationMs,
  };
  if (approval.length) d.approval = approval;
  return d;
}

/**
 * Evaluates one package's decision. `input` is the input document
 * `{query, surface, client_id, user, context, mcp?, llm?}` (plain JSON or a Value).
 */
export function decide(
  prepared: PreparedPolicy,
  pkg: string,
  input: unknown,
  limits: DecisionLimits = {},
  extra: Omit<EvalOptions, 'input'> = {},
): Decision {
  const t0 = performance.now();
  try {
    const settled = prepared.evalRefsSettled(decisionRefs(pkg), {
      ...extra,
      input,
      deadlineMs: limits.deadlineMs ?? DEFAULT_DECISION_LIMITS.deadlineMs,
      maxSteps: limits.maxSteps ?? DEFAULT_DECISION_LIMITS.maxSteps,
    });
    return decisionFrom(prepared, pkg, settled, performance.now() - t0);
  } catch (e) {
    // NB: input conversion errors land here; fail closed like any evaluation error.
    return {
      package: normalizePackage(pkg),
      blocked: true,
      deny: NO_MESSAGES,
      warn: NO_MESSAGES,
      allow: undefined,
      error: toDecisionError(e),
      durationMs: performance.now() - t0,
    };
  }
}
