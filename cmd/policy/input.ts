/**
 * One policy input as the gateway builds it (runtime/governed/input-check.ts): the document a fixture case or
 * `steward policy eval --input` gives, with the fields a surface always sets filled in when absent.
 */
import { LLM_OUTPUT_SURFACE, policySurface } from '../../api/index.js';
import { policyClient, requestTypeOf } from '../../runtime/policy/caller.js';
import type { PolicyEvaluation, PolicyInput, PolicyScope } from '../../runtime/policy/types.js';
import { PolicyCliError } from './errors.js';

/** The caller's organization and tenant: which scoped policies apply, and `input.client`. */
export interface CallerScope {
  organization?: string;
  tenant?: string;
}

/**
 * `surface` defaults to `pre-check`, `context` to `{}`, `request_type` to the surface's (not on `llm_output`), and
 * `client` to the scope's organization and tenant when one is named. `where` prefixes the error of an input that
 * is not an object with a string `query`, or names an unknown surface.
 */
export function policyInputOf(
  raw: unknown,
  caller: CallerScope,
  where: string,
): { input: PolicyInput; scope: PolicyScope } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new PolicyCliError(`${where}: the input must be a JSON object (the policy input document)`);
  const doc = raw as Record<string, unknown>;
  if (typeof doc.query !== 'string') throw new PolicyCliError(`${where}: input.query must be a string`);
  const surface = policySurface.safeParse(doc.surface ?? 'pre-check');
  if (!surface.success)
    throw new PolicyCliError(`${where}: input.surface must be one of ${policySurface.options.join(', ')}`);
  const input = { ...doc, surface: surface.data, context: doc.context ?? {} } as PolicyInput;
  if (input.request_type === undefined && surface.data !== LLM_OUTPUT_SURFACE)
    input.request_type = requestTypeOf(surface.data);
  if (input.client === undefined && caller.organization !== undefined && surface.data !== LLM_OUTPUT_SURFACE)
    input.client = policyClient({ organizationId: caller.organization, tenantId: caller.tenant });
  return {
    input,
    scope: {
      surface: surface.data,
      ...(caller.organization === undefined ? {} : { organizationId: caller.organization }),
      ...(caller.tenant === undefined ? {} : { tenantId: caller.tenant }),
    },
  };
}

/** A fixture case's word for an evaluation: blocked, approved with warnings, or approved without. */
export type DecisionWord = 'allow' | 'warn' | 'block';

export function decisionWord(e: Pick<PolicyEvaluation, 'approved' | 'warnings'>): DecisionWord {
  return !e.approved ? 'block' : e.warnings.length ? 'warn' : 'allow';
}

/** `builtin-pii, builtin-secrets` or `none`. */
export const listOrNone = (items: readonly string[]) => (items.length ? items.join(', ') : 'none');
