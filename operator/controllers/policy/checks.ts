/**
 * The Policy's conditions: `Compiled` (the Rego compiles, or the wasm bundle is there: wasm.ts) and `Ready` (every
 * running gateway pod has loaded the current generation), plus the pruning of `status.byPod`. Pure.
 */
import { ConditionType, Reason, type ConditionInput } from '../../../api/conditions.js';
import type { PolicyPodStatus, PolicySpec } from '../../../api/policy.js';
import { wasmProblem, type ConfigMapFacts } from './wasm.js';

/** How many pod names a message lists before "and N more". */
const MAX_LISTED = 10;

/**
 * `Compiled` from the spec and the compile error (undefined: compiled). A wasm bundle is not compiled by the
 * operator: it only has to be there (its ConfigMap and key, when `configMap` was gathered) and look like one.
 */
export function compiledCondition(
  spec: Pick<PolicySpec, 'rego' | 'wasm'> & Partial<Pick<PolicySpec, 'action' | 'redact'>>,
  module: string,
  error: string | undefined,
  configMap?: ConfigMapFacts,
): ConditionInput {
  const failed = (message: string): ConditionInput => ({
    type: ConditionType.Compiled,
    status: 'False',
    reason: Reason.CompileFailed,
    message,
  });
  // A redact policy has no code: its rule is the detectors it names (validated with the spec).
  if (spec.action === 'redact') {
    return {
      type: ConditionType.Compiled,
      status: 'True',
      reason: Reason.CompileSucceeded,
      message: `redacts ${spec.redact?.kinds.join(', ') ?? 'nothing'} (detectors, nothing to compile)`,
    };
  }
  if (spec.rego !== undefined) {
    if (error !== undefined) return failed(error);
    return {
      type: ConditionType.Compiled,
      status: 'True',
      reason: Reason.CompileSucceeded,
      message: `${module} compiled`,
    };
  }
  if (spec.wasm) {
    const problem = wasmProblem(spec.wasm, configMap);
    if (problem) return { type: ConditionType.Compiled, status: 'False', ...problem };
    const ref = spec.wasm.bundleBase64 === undefined ? spec.wasm.configMapRef : undefined;
    return {
      type: ConditionType.Compiled,
      status: 'True',
      reason: Reason.CompileSucceeded,
      message: ref
        ? `wasm bundle present in ConfigMap ${ref.name} key ${ref.key} (loaded by the gateways, not compiled by the operator)`
        : 'wasm bundle present (not compiled by the operator)',
    };
  }
  return failed('spec.rego or spec.wasm is required');
}

/** Entries of pods that still exist; undefined stays undefined (no list is added). */
export function prunedByPod(
  byPod: readonly PolicyPodStatus[] | undefined,
  existingPods: ReadonlySet<string>,
): PolicyPodStatus[] | undefined {
  return byPod?.filter((e) => existingPods.has(e.pod));
}

/**
 * `Ready`: False with the reason of `Compiled` when that is not True (CompileFailed, ConfigMapMissing); True (Loaded) when every running gateway
 * pod reports the current generation loaded; RolloutPending, naming the pods still behind, otherwise.
 */
export function readyCondition(
  compiled: ConditionInput,
  generation: number,
  gatewayPods: readonly string[],
  byPod: readonly PolicyPodStatus[] | undefined,
): ConditionInput {
  if (compiled.status !== 'True')
    return {
      type: ConditionType.Ready,
      status: 'False',
      reason: compiled.reason,
      message: compiled.message ?? '',
    };
  const entries = new Map((byPod ?? []).map((e) => [e.pod, e]));
  const pending = [...gatewayPods].sort().filter((p) => {
    const e = entries.get(p);
    return !(e && e.loaded && e.observedGeneration === generation);
  });
  if (!pending.length) {
    const message = gatewayPods.length
      ? `${gatewayPods.length} gateway pods evaluate generation ${generation}`
      : 'no gateway pods are running';
    return { type: ConditionType.Ready, status: 'True', reason: Reason.Loaded, message };
  }
  const listed = pending.slice(0, MAX_LISTED).map((p) => {
    const error = entries.get(p)?.error;
    return error ? `${p} (${error.split('\n')[0]})` : p;
  });
  const more = pending.length > MAX_LISTED ? ` and ${pending.length - MAX_LISTED} more` : '';
  return {
    type: ConditionType.Ready,
    status: 'False',
    reason: Reason.RolloutPending,
    message: `${pending.length}/${gatewayPods.length} gateway pods have not loaded generation ${generation}: ${listed.join(', ')}${more}`,
  };
}
