/**
 * The License reconciler: reads the key from `spec.keySecretRef`, verifies it, and writes the whole status
 * (the operator is its only writer); asks to run again when a valid key expires, so `valid` turns false then.
 */
import type { Condition } from '../../../api/conditions.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import { Resources } from '../../../platform/kube/resources.js';
import { patchStatus } from '../../../platform/kube/status.js';
import type { ControllerContext, Reconciler, ReconcileRequest, ReconcileResult } from '../../manager/types.js';
import { secretProblem } from '../checks.js';
import type { ControllerSettings } from '../index.js';
import { licenses } from '../parse.js';
import { announce, nextConditions } from '../status.js';
import { readyCondition, requeueAfterMs, verdict, type KeyLookup } from './verify.js';

export class LicenseReconciler implements Reconciler {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly settings: ControllerSettings,
  ) {}

  async reconcile(req: ReconcileRequest): Promise<ReconcileResult | void> {
    const raw = this.ctx.cache.get<KubeObject & { status?: Record<string, unknown> }>(
      Resources.License,
      req.namespace,
      req.name,
    );
    if (!raw || raw.metadata.deletionTimestamp) return;
    const l = licenses.parse(raw);
    const now = this.ctx.now();
    const v = verdict(this.lookup(req.namespace, l.spec.keySecretRef), this.settings.licenseSigningSecret, now);
    const before = l.status?.conditions as Condition[] | undefined;
    const conditions = nextConditions(before, [readyCondition(v)], l.metadata.generation, now);
    const written = await patchStatus(
      this.ctx.client,
      Resources.License,
      raw,
      { ...v, conditions, observedGeneration: l.metadata.generation },
      { signal: req.signal },
    );
    if (written === 'updated') announce(this.ctx.events, raw, before, conditions, req.signal);
    const after = requeueAfterMs(v, now);
    return after === undefined ? undefined : { requeueAfterMs: after };
  }

  private lookup(namespace: string, ref: { name: string; key: string } | undefined): KeyLookup {
    if (!ref) return { problem: 'spec.keySecretRef is required in a cluster (keyFromEnv is for standalone)' };
    const secret = this.ctx.cache.get<KubeObject & { data?: Record<string, string> }>(
      Resources.Secret,
      namespace,
      ref.name,
    );
    const problem = secretProblem(ref, secret);
    if (problem) return { problem };
    return { key: Buffer.from(secret!.data![ref.key]!, 'base64').toString('utf8') };
  }
}
