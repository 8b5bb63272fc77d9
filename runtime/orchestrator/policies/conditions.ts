/**
 * A policy of conditions (the AxonFlow SDK's shape: `conditions`, all of which must hold, and `actions`) compiled to
 * a Rego module of the decision contract (docs/adr/0012-axonflow-shaped-policies.md). Pure.
 *
 * - No text of the caller's becomes Rego syntax: values and field keys enter the module as JSON literals (JSON is
 *   Rego's string syntax), and operators, fields and actions are checked against fixed lists first.
 * - Each condition binds its field first, so a field the input lacks leaves the rule undefined (the condition is
 *   false), and the operator's type test (`is_string`, `is_number`) does the same for a value of another type. With
 *   strict builtin errors, which every dynamic policy has, a builtin called on the wrong type would fail the
 *   evaluation and so block the request.
 * - Regexes have the engine's RE2 semantics; each is compiled by the engine here, before anything is stored.
 */
import {
  CONDITION_ACTIONS,
  CONDITION_OPERATORS,
  DYNAMIC_POLICY_MAX_REGO_BYTES,
  type ConditionAction,
  type ConditionActionType,
  type ConditionOperator,
  type PolicyCondition,
} from '../../../api/http/orchestrator.js';
import type { JsonValue } from '../../../api/http/safe.js';
import type { FieldIssue } from '../../../api/validate.js';
import { compile, RegoEvalError, RegoError } from '../../../rego/index.js';
import { echo } from '../../http/errors.js';

/** What the compile needs of a policy of conditions. */
export interface ConditionPolicy {
  /** the policy's id: its package is derived from it */
  id: string;
  /** the display name: default messages name it */
  name: string;
  conditions: readonly PolicyCondition[];
  actions: readonly ConditionAction[];
}

export interface CompiledConditions {
  package: string;
  rego: string;
  /** the Policy's `spec.action`: block when an action blocks, else log when one logs, else warn */
  action: ConditionActionType;
}

/** The conditions or actions cannot be compiled; `issues` name every field at fault (`conditions[0].operator`). */
export class ConditionsError extends Error {
  constructor(readonly issues: readonly FieldIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join('; '));
    this.name = 'ConditionsError';
  }
}

/** Largest string value (a regex included) and largest list of `in` / `not_in`. */
export const CONDITION_VALUE_MAX_CHARS = 4096;
export const CONDITION_LIST_MAX = 256;
/** Largest message of an action's config. */
export const ACTION_MESSAGE_MAX_CHARS = 1000;

const CLIENT_KEYS = ['id', 'organization_id', 'tenant_id'];
/** A key under `user.` or `context.`: any name of letters, digits, `_` and `-`, at most 8 levels deep. */
const KEY = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_DEPTH = 8;
const FIELDS_HINT =
  'one of query, request_type, user.<key>, client.id, client.organization_id, client.tenant_id, context.<key>';

/** The Rego reference of an input field, or undefined when the field is not one a condition may read. */
export function fieldRef(field: string): string | undefined {
  if (field === 'query' || field === 'request_type') return `input.${field}`;
  const [root, ...keys] = field.split('.');
  if (root === 'client')
    return keys.length === 1 && CLIENT_KEYS.includes(keys[0]!) ? `input.client.${keys[0]}` : undefined;
  if (root !== 'user' && root !== 'context') return undefined;
  if (keys.length === 0 || keys.length > MAX_DEPTH || !keys.every((k) => KEY.test(k))) return undefined;
  return `input.${root}${keys.map((k) => `[${JSON.stringify(k)}]`).join('')}`;
}

type Scalar = string | number | boolean | null;
const isScalar = (v: JsonValue): v is Scalar => v === null || typeof v !== 'object';

/** A value as a Rego literal, or why the operator cannot take it. */
type ValueCheck = (v: JsonValue) => { literal: string } | { problem: string };

const fits = (v: Scalar) => typeof v !== 'string' || v.length <= CONDITION_VALUE_MAX_CHARS;
const scalar: ValueCheck = (v) => {
  if (!isScalar(v)) return { problem: 'must be a string, number, boolean or null' };
  return fits(v)
    ? { literal: JSON.stringify(v) }
    : { problem: `must be at most ${CONDITION_VALUE_MAX_CHARS} characters` };
};
const text: ValueCheck = (v) => {
  if (typeof v !== 'string' || v === '') return { problem: 'must be a non-empty string' };
  if (v.length > CONDITION_VALUE_MAX_CHARS)
    return { problem: `must be at most ${CONDITION_VALUE_MAX_CHARS} characters` };
  return { literal: JSON.stringify(v) };
};
const list: ValueCheck = (v) => {
  if (!Array.isArray(v) || v.length === 0 || v.length > CONDITION_LIST_MAX || !v.every((x) => isScalar(x) && fits(x))) {
    const items = `strings (of at most ${CONDITION_VALUE_MAX_CHARS} characters), numbers, booleans or nulls`;
    return { problem: `must be a list of 1 to ${CONDITION_LIST_MAX} ${items}` };
  }
  return { literal: `[${v.map((x) => JSON.stringify(x)).join(', ')}]` };
};
const number: ValueCheck = (v) =>
  typeof v === 'number' ? { literal: JSON.stringify(v) } : { problem: 'must be a number' };

/**
 * Each operator: the value it takes, and the expressions that test the bound field `x` against the literal `v`.
 * NB: the text operators but `regex` ignore case (`lower` on both sides, by the engine); `equals`, `not_equals`,
 * `in` and `not_in` compare exactly, identifiers being what they compare; `(?i)` makes a regex ignore case.
 */
const OPERATORS: Record<ConditionOperator, { value: ValueCheck; test: (x: string, v: string) => string[] }> = {
  equals: { value: scalar, test: (x, v) => [`${x} == ${v}`] },
  not_equals: { value: scalar, test: (x, v) => [`${x} != ${v}`] },
  contains: { value: text, test: (x, v) => [`is_string(${x})`, `contains(lower(${x}), lower(${v}))`] },
  not_contains: { value: text, test: (x, v) => [`is_string(${x})`, `not contains(lower(${x}), lower(${v}))`] },
  starts_with: { value: text, test: (x, v) => [`is_string(${x})`, `startswith(lower(${x}), lower(${v}))`] },
  ends_with: { value: text, test: (x, v) => [`is_string(${x})`, `endswith(lower(${x}), lower(${v}))`] },
  regex: { value: text, test: (x, v) => [`is_string(${x})`, `regex.match(${v}, ${x})`] },
  in: { value: list, test: (x, v) => [`${x} in ${v}`] },
  not_in: { value: list, test: (x, v) => [`not ${x} in ${v}`] },
  greater_than: { value: number, test: (x, v) => [`is_number(${x})`, `${x} > ${v}`] },
  less_than: { value: number, test: (x, v) => [`is_number(${x})`, `${x} < ${v}`] },
};

const isOperator = (op: string): op is ConditionOperator => (CONDITION_OPERATORS as readonly string[]).includes(op);
const isAction = (type: string): type is ConditionActionType => (CONDITION_ACTIONS as readonly string[]).includes(type);
const quoted = (s: string) => JSON.stringify(echo(s, 100));

/** The package of a policy id: `steward.dynamic.<id>`, `-` as `_` (ids have no `_`), `_` first before a digit. */
export function packageOfId(id: string): string {
  const ident = id.replaceAll('-', '_');
  return `steward.dynamic.${/^[0-9]/.test(ident) ? `_${ident}` : ident}`;
}

/** The message of an action: its config's text (`reason` first for block, `message` first otherwise), or a default. */
function messageOf(
  action: ConditionAction & { type: ConditionActionType },
  at: string,
  name: string,
  issues: FieldIssue[],
): string {
  const keys = action.type === 'block' ? ['reason', 'message'] : ['message', 'reason'];
  for (const key of keys) {
    const v = action.config?.[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '' || v.length > ACTION_MESSAGE_MAX_CHARS) {
      issues.push({
        field: `${at}.config.${key}`,
        message: `must be a string of 1 to ${ACTION_MESSAGE_MAX_CHARS} characters`,
      });
      return '';
    }
    return v;
  }
  return action.type === 'block'
    ? `blocked by policy ${JSON.stringify(name)}`
    : `policy ${JSON.stringify(name)} matched`;
}

/** The Rego module of a policy of conditions, with every regex compiled by the engine; throws ConditionsError. */
export function compileConditions(policy: ConditionPolicy): CompiledConditions {
  const issues: FieldIssue[] = [];
  const body: string[] = [];
  const regexes: { at: string; literal: string }[] = [];
  policy.conditions.forEach((c, i) => {
    const at = `conditions[${i}]`;
    const ref = fieldRef(c.field);
    if (ref === undefined)
      issues.push({ field: `${at}.field`, message: `unknown field ${quoted(c.field)}; ${FIELDS_HINT}` });
    if (!isOperator(c.operator)) {
      issues.push({
        field: `${at}.operator`,
        message: `unknown operator ${quoted(c.operator)}; one of ${CONDITION_OPERATORS.join(', ')}`,
      });
      return;
    }
    const op = OPERATORS[c.operator];
    const value = op.value(c.value);
    if ('problem' in value)
      issues.push({ field: `${at}.value`, message: `${c.operator} takes a value that ${value.problem}` });
    if (ref === undefined || 'problem' in value) return;
    if (c.operator === 'regex') regexes.push({ at: `${at}.value`, literal: value.literal });
    // NB: the field and operator are checked words here, safe in a comment; values stay in literals
    body.push(
      `\t# ${at}: ${c.field} ${c.operator}`,
      `\tx${i} := ${ref}`,
      ...op.test(`x${i}`, value.literal).map((e) => `\t${e}`),
    );
  });
  const messages: { type: ConditionActionType; message: string }[] = [];
  policy.actions.forEach((a, i) => {
    const at = `actions[${i}]`;
    if (!isAction(a.type)) {
      issues.push({
        field: `${at}.type`,
        message: `unknown action ${quoted(a.type)}; one of ${CONDITION_ACTIONS.join(', ')}`,
      });
      return;
    }
    messages.push({ type: a.type, message: messageOf({ ...a, type: a.type }, at, policy.name, issues) });
  });
  if (issues.length) throw new ConditionsError(issues);

  const types = new Set(messages.map((m) => m.type));
  const action: ConditionActionType = types.has('block') ? 'block' : types.has('log') ? 'log' : 'warn';
  // NB: a log action is a deny of a Policy whose action is log (the engine records it without blocking); beside a
  // block it adds nothing (a blocked request is recorded anyway), and its deny would block.
  const rules = messages
    .filter((m) => !(m.type === 'log' && action === 'block'))
    .map(
      (m) =>
        `${m.type === 'warn' ? 'warn' : 'deny'} contains msg if {\n\tmatched\n\tmsg := ${JSON.stringify(m.message)}\n}`,
    );
  const pkg = packageOfId(policy.id);
  const rego = [
    '# Generated by Steward from the conditions and actions of a dynamic policy (POST /api/v1/policies).',
    '# Change them through the API: this text is compiled from them again on every change.',
    `package ${pkg}`,
    '',
    '# every condition holds',
    `matched if {\n${body.join('\n')}\n}`,
    '',
    rules.join('\n\n'),
    '',
  ].join('\n');
  if (Buffer.byteLength(rego) > DYNAMIC_POLICY_MAX_REGO_BYTES) {
    const limit = `${DYNAMIC_POLICY_MAX_REGO_BYTES / 1024} KiB`;
    throw new ConditionsError([
      { field: 'conditions', message: `the Rego compiled from them exceeds ${limit}, the limit of a policy's Rego` },
    ]);
  }
  checkRegexes(policy.id, rego, regexes);
  return { package: pkg, rego, action };
}

/** Compiles the module with the engine and each regex with the engine's RE2: a bad one is a ConditionsError naming it. */
function checkRegexes(id: string, rego: string, regexes: readonly { at: string; literal: string }[]): void {
  if (regexes.length === 0) return;
  const prepared = compile([{ name: `${id}.rego`, source: rego, regoVersion: 'v1' }]);
  const issues: FieldIssue[] = [];
  for (const r of regexes) {
    try {
      prepared.query(`regex.match(${r.literal}, "")`, { strict: true });
    } catch (err) {
      if (!(err instanceof RegoError)) throw err;
      const detail = err instanceof RegoEvalError ? err.detail.replace(/^regex\.match: /, '') : err.message;
      issues.push({ field: r.at, message: `invalid regex: ${echo(detail, 300)}` });
    }
  }
  if (issues.length) throw new ConditionsError(issues);
}
