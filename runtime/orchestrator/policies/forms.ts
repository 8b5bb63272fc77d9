/**
 * The two forms of a dynamic policy's body, judged before anything is written
 * (docs/adr/0012-axonflow-shaped-policies.md): `rego` (Steward's), or `conditions` and `actions` (the AxonFlow
 * SDK's), compiled to Rego here. A body with both, or neither, is a 400. Either way the Rego compiles before it is
 * stored: a 400 names the line and column, or the condition at fault.
 */
import { conditionPolicy, dynamicPolicy, dynamicPolicyUpdate } from '../../../api/http/orchestrator.js';
import type { PolicyResource } from '../../../api/index.js';
import { parseBody } from '../../gateway/validation.js';
import { ApiError, echo } from '../../http/errors.js';
import { compileError } from '../../policy/module.js';
import { compileConditions, ConditionsError, type ConditionPolicy } from './conditions.js';
import { conditionsOf, NAME_ANNOTATION, policyIdOf, policyIdOfDocument, type DynamicPolicyInput } from './document.js';

/** The tenants a write gets for the tenants it asks for (runtime/auth/scope.ts `tenantsForWrite`, bound to the caller). */
export type TenantsForWrite = (requested: readonly string[] | undefined) => string[] | undefined;

const invalid = (message: string, details?: Record<string, unknown>) =>
  new ApiError('plan', 'INVALID_REQUEST', message, details);
/** A 400 naming one field. */
const invalidField = (message: string, field: string, problem: string) =>
  invalid(message, { fields: [{ field, message: problem }] });

/** 400 with the compile error rendered as `<id>.rego:<line>:<column>`, or nothing when the Rego compiles. */
export function checkRego(id: string, rego: string, regoVersion: 'v0' | 'v1' | undefined): void {
  const message = compileError({ name: `${id}.rego`, source: rego, regoVersion: regoVersion ?? 'v1' });
  if (message === undefined) return;
  const at = /\.rego:(\d+):(\d+)/.exec(message);
  throw invalid(`rego does not compile: ${echo(message, 600)}`, {
    fields: [{ field: 'rego', message: echo(message.split('\n')[0]!, 300) }],
    ...(at ? { line: Number(at[1]), column: Number(at[2]) } : {}),
  });
}

/** Which form a body (or a change) is written in; the caller decides for a body naming neither. */
function formOf(body: unknown): 'rego' | 'conditions' | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const rego = b.rego !== undefined;
  const conditions = b.conditions !== undefined || b.actions !== undefined;
  if (rego && conditions) {
    throw invalidField(
      'a policy is written either as rego or as conditions and actions, not both',
      'rego',
      'not with conditions and actions',
    );
  }
  return rego ? 'rego' : conditions ? 'conditions' : undefined;
}

/** The Rego of a policy of conditions (400 naming the condition or action at fault), checked like any Rego. */
function compiled(policy: ConditionPolicy) {
  try {
    const out = compileConditions(policy);
    checkRego(policy.id, out.rego, 'v1');
    return out;
  } catch (err) {
    if (!(err instanceof ConditionsError)) throw err;
    throw invalid(err.message, { fields: err.issues });
  }
}

/** `POST /api/v1/policies`: the policy the body describes, its Rego compiled; tenants as the caller may write them. */
export function createInput(body: unknown, tenantsFor: TenantsForWrite): DynamicPolicyInput {
  const form = formOf(body);
  if (form === undefined && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    throw invalidField(
      'missing required field(s): rego, or conditions and actions',
      'rego',
      'or conditions and actions',
    );
  }
  if (form !== 'conditions') {
    const b = parseBody(dynamicPolicy, body);
    checkRego(b.name, b.rego, b.regoVersion);
    return { ...b, id: b.name, scope: { ...b.scope, tenants: tenantsFor(b.scope?.tenants) } };
  }
  const b = parseBody(conditionPolicy, body);
  const id = policyIdOf(b.name);
  if (id === '')
    throw invalidField(
      'name: must contain a letter or a digit (a-z, 0-9): the policy id is derived from it',
      'name',
      'no letter or digit',
    );
  const { conditions, actions, ...rest } = b;
  const out = compiled({ id, name: b.name, conditions, actions });
  return {
    ...rest,
    id,
    action: out.action,
    rego: out.rego,
    regoVersion: 'v1',
    conditions: { conditions, actions },
    scope: { ...b.scope, tenants: tenantsFor(b.scope?.tenants) },
  };
}

/**
 * `PUT /api/v1/policies/{id}`: the stored policy with the fields sent. `rego` makes it a Rego policy; `conditions`
 * or `actions` a policy of conditions (from a Rego policy: both); a policy of conditions stays one otherwise. Its
 * tenants change only when the body names new ones, which the caller's scope must allow.
 */
export function updateInput(existing: PolicyResource, body: unknown, tenantsFor: TenantsForWrite): DynamicPolicyInput {
  const form = formOf(body);
  const patch = parseBody(dynamicPolicyUpdate, body);
  const s = existing.spec;
  const stored = conditionsOf(existing);
  const id = policyIdOfDocument(existing);
  const base = {
    id,
    name: existing.metadata.annotations?.[NAME_ANNOTATION] ?? id,
    type: patch.type ?? s.type,
    priority: patch.priority ?? s.priority,
    enabled: patch.enabled ?? s.enabled,
    description: patch.description ?? s.description,
    scope: {
      surfaces: patch.scope ? patch.scope.surfaces : s.scope?.surfaces,
      tenants: patch.scope?.tenants !== undefined ? tenantsFor(patch.scope.tenants) : s.scope?.tenants,
    },
  };
  if (form === 'conditions' || (form === undefined && stored !== undefined)) {
    if (patch.action !== undefined || patch.regoVersion !== undefined) {
      const field = patch.action !== undefined ? 'action' : 'regoVersion';
      throw invalidField(
        'action and regoVersion belong to Rego policies: a policy of conditions takes its action from actions',
        field,
        'not with conditions',
      );
    }
    const conditions = patch.conditions ?? stored?.conditions;
    const actions = patch.actions ?? stored?.actions;
    if (conditions === undefined || actions === undefined) {
      const field = conditions === undefined ? 'conditions' : 'actions';
      throw invalidField(
        'conditions and actions go together: a Rego policy becomes one of conditions with both',
        field,
        'missing',
      );
    }
    const out = compiled({ id, name: base.name, conditions, actions });
    return { ...base, action: out.action, rego: out.rego, regoVersion: 'v1', conditions: { conditions, actions } };
  }
  const merged: DynamicPolicyInput = {
    ...base,
    // NB: this API writes Rego policies only; a redact policy (no Rego) is not one of its documents
    action: patch.action ?? (s.action === 'redact' ? 'block' : s.action),
    rego: patch.rego ?? s.rego ?? '',
    regoVersion: patch.regoVersion ?? s.regoVersion,
  };
  checkRego(id, merged.rego, merged.regoVersion);
  return merged;
}
