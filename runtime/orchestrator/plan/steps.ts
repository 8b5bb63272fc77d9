/**
 * The steps that are not LLM calls. A connector-call step goes through the gateway's governed connector path with
 * the caller's identity (gateway-client.ts); a policy-check step asks the plan's policy engine (the pre-flight's)
 * for one named policy's decision on the step's input. Neither reaches an agent or a model.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { A2A_SEND_TOOL } from '../../../api/index.js';
import type { Identity } from '../../auth/identity.js';
import { PolicyInputTooLargeError } from '../../policy/input-size.js';
import { policyClient, requestTypeOf } from '../../policy/caller.js';
import type { PolicyEvaluator } from '../../policy/types.js';
import { GatewayUnreachableError, type ConnectorGateway } from './gateway-client.js';
import type { A2aStep, ConnectorStep, PolicyStep, StepOutcome } from './types.js';

export type StepResult = Pick<StepOutcome, 'status' | 'output' | 'error'>;

export interface StepContext {
  identity: Identity;
  /** `${planId}.${index}`: the id the forwarded identity is bound to (X-Request-ID at the gateway). */
  requestId: string;
  signal: AbortSignal;
  /** Told when a connector call waits for an approval (its id), and when it stops waiting (undefined). */
  awaiting?: (approvalId: string | undefined) => Promise<void>;
}

/** How often a step that waits for an approval asks the gateway about it. */
export const APPROVAL_POLL_MS = 500;

const failed = (code: string, message: string): StepResult => ({ status: 'failed', error: { code, message } });

export async function runConnectorStep(
  step: ConnectorStep,
  gateway: ConnectorGateway | undefined,
  c: StepContext,
): Promise<StepResult> {
  if (!gateway) {
    return failed(
      'SERVICE_UNAVAILABLE',
      `step ${step.id} calls connector ${step.connector}, and no gateway is configured: set STEWARD_GATEWAY_URL (and STEWARD_INTERNAL_SECRET) on the orchestrator`,
    );
  }
  const [path, body] = step.query
    ? ([
        '/mcp/resources/query',
        {
          connector: step.connector,
          statement: step.query.statement,
          ...(isEmpty(step.arguments) ? {} : { params: step.arguments }),
        },
      ] as const)
    : (['/mcp/tools/execute', { connector: step.connector, tool: step.tool!, params: step.arguments }] as const);
  let res;
  try {
    res = await gateway.call(path, body, c.identity, c.requestId, c.signal);
    // A policy asked for a person's approval: the step waits for it in the plan, then makes the call with it.
    const approvalId = parkedApproval(res);
    if (approvalId !== undefined) {
      const waited = await awaitApproval(gateway, approvalId, c);
      if (waited) return waited;
      res = await gateway.call(path, { ...body, approval_id: approvalId }, c.identity, c.requestId, c.signal);
    }
  } catch (err) {
    if (err instanceof GatewayUnreachableError) return failed(err.code, err.message);
    throw err;
  }
  const b = res.body;
  if (res.status >= 400 || b.success !== true) {
    const code = typeof b.code === 'string' ? b.code : 'EXECUTION_ERROR';
    const message = typeof b.error === 'string' ? b.error : `the gateway answered ${res.status}`;
    return failed(code, `connector ${step.connector}: ${message}`);
  }
  const metadata = (b.metadata ?? {}) as { audit_id?: string; truncated?: boolean };
  const output = step.query
    ? {
        rows: b.data,
        row_count: b.row_count,
        ...(b.columns ? { columns: b.columns } : {}),
        truncated: metadata.truncated,
        audit_id: metadata.audit_id,
      }
    : { result: b.result, truncated: metadata.truncated, audit_id: metadata.audit_id };
  return { status: 'completed', output: JSON.stringify(output) };
}

/**
 * A message to a remote A2A agent: the `a2a` connector's one tool through the same governed path as any connector
 * call (approvals included). `text` is the step's message; the output is the agent's task as the tool answers it
 * (`task_id`, `state`, `text`, `artifacts`).
 */
export function runA2aStep(
  step: A2aStep,
  gateway: ConnectorGateway | undefined,
  c: StepContext & { text: string },
): Promise<StepResult> {
  const params = { text: c.text, ...(step.data ? { data: step.data } : {}) };
  return runConnectorStep({ ...step, type: 'connector-call', tool: A2A_SEND_TOOL, arguments: params }, gateway, c);
}

/** The approval a parked call names (the gateway's 403 APPROVAL_REQUIRED), if it is one. */
function parkedApproval(res: { status: number; body: Record<string, unknown> }): string | undefined {
  if (res.status !== 403 || res.body.code !== 'APPROVAL_REQUIRED') return undefined;
  const id = (res.body.details as { approval_id?: unknown } | undefined)?.approval_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Waits until the approval is answered: undefined once approved (the caller makes the call with it), else the
 * step's result: failed when it was denied or expired, `awaiting_approval` when the plan ended first.
 */
async function awaitApproval(gateway: ConnectorGateway, id: string, c: StepContext): Promise<StepResult | undefined> {
  await c.awaiting?.(id);
  try {
    for (;;) {
      try {
        await delay(APPROVAL_POLL_MS, undefined, { signal: c.signal });
      } catch {
        return {
          status: 'awaiting_approval',
          error: { code: 'APPROVAL_REQUIRED', message: `approval ${id} was not answered before the plan ended` },
        };
      }
      const res = await gateway.approval(id, c.identity, c.requestId, c.signal);
      const state = res.body.state;
      if (state === 'approved') return undefined;
      if (state !== 'pending') {
        const code = typeof res.body.code === 'string' ? res.body.code : 'APPROVAL_NOT_USABLE';
        return failed(code, `approval ${id} is ${typeof state === 'string' ? state : `unreadable (${res.status})`}`);
      }
    }
  } finally {
    await c.awaiting?.(undefined);
  }
}

/**
 * The named policy's decision: the policy set of the scope is evaluated on the input (surface `plan`), and the
 * step's result is whether that policy blocked it. A deny is a result, not a failure; a policy that is not in
 * force for the caller fails the step (POLICY_NOT_FOUND).
 */
export async function runPolicyStep(
  step: PolicyStep,
  policies: PolicyEvaluator,
  c: StepContext & { query: string },
): Promise<StepResult> {
  const { identity } = c;
  let evaluation;
  try {
    evaluation = await policies.evaluate(
      {
        query: step.input.query ?? c.query,
        user: step.input.user,
        context: step.input.context,
        mcp: step.input.mcp,
        llm: step.input.llm,
        surface: 'plan',
        client_id: identity.clientId ?? identity.organizationId,
        client: policyClient(identity),
        request_type: requestTypeOf('plan'),
      },
      { surface: 'plan', organizationId: identity.organizationId, tenantId: identity.tenantId },
    );
  } catch (err) {
    if (err instanceof PolicyInputTooLargeError) return failed('INVALID_REQUEST', `step ${step.id}: ${err.message}`);
    throw err;
  }
  if (!evaluation.evaluated.includes(step.policy)) {
    return failed(
      'POLICY_NOT_FOUND',
      `step ${step.id}: no policy ${step.policy} applies to this organization on the plan surface`,
    );
  }
  const prefix = `${step.policy}:`;
  const own = evaluation.blockReason?.startsWith(prefix) === true;
  const warnings = evaluation.warnings.filter((w) => w.startsWith(prefix)).map((w) => w.slice(prefix.length).trim());
  // NB: the engine keeps the first block's reason only; a policy that blocked after another one is read from
  // `triggered`: without warnings of its own it blocked; with warnings, in an evaluation another policy blocked, it
  // may have blocked too, and is read as deny (fail closed).
  const blocked =
    own || (evaluation.triggered.includes(step.policy) && (warnings.length === 0 || !evaluation.approved));
  const decision = {
    policy: step.policy,
    decision: blocked ? 'deny' : 'allow',
    ...(own ? { reason: evaluation.blockReason!.slice(prefix.length).trim() } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
  return { status: 'completed', output: JSON.stringify(decision) };
}

const isEmpty = (v: Record<string, unknown> | unknown[]) =>
  Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0;
