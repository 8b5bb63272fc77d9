/**
 * The Orchestrator reconciler: gather (cache reads) → desired (pure) → apply (`createOrUpdate`) → judge (pure
 * checks) → status, a merge patch of the fields the operator owns: conditions, observedGeneration, endpoints
 * (the orchestrator runtime owns `status.pool`).
 */
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { Reason, type Condition } from '../../../api/conditions.js';
import type { OrchestratorResource } from '../../../api/resources.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import { Resources, type ResourceName } from '../../../platform/kube/resources.js';
import { patchStatus } from '../../../platform/kube/status.js';
import type { ControllerContext, Reconciler, ReconcileRequest } from '../../manager/types.js';
import { createOrUpdate, deleteOwned } from '../apply.js';
import { secretProblem } from '../checks.js';
import { endpoints, referencedSecrets } from '../env.js';
import { hashOf } from '../hash.js';
import type { ControllerSettings } from '../index.js';
import { INTERNAL_KEYS, names } from '../meta.js';
import { agentConfigs, licenses, orchestrators } from '../parse.js';
import { nodeCap, type NodeCap } from '../pool.js';
import { announce, nextConditions, reportApplyFailure } from '../status.js';
import { readyReplicas } from '../workload.js';
import { orchestratorConditions, type OrchestratorFacts } from './checks.js';
import { desiredConfigMap, desiredInternalSecret, desiredObjects, imageOf, type InternalValues } from './desired.js';

type SecretObject = KubeObject & { data?: Record<string, string> };
type Replicas = { gateway: number; orchestrator: number };

export class OrchestratorReconciler implements Reconciler {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly settings: ControllerSettings,
  ) {}

  async reconcile(req: ReconcileRequest): Promise<void> {
    const { cache, client } = this.ctx;
    const raw = cache.get<KubeObject & { status?: Record<string, unknown> }>(
      Resources.Orchestrator,
      req.namespace,
      req.name,
    );
    if (!raw || raw.metadata.deletionTimestamp) return;
    const o = orchestrators.parse(raw);
    const ns = req.namespace;
    const secret = (name: string) => cache.get<SecretObject>(Resources.Secret, ns, name);

    // Gather: the node cap, O-internal's values (kept once generated), the Secrets hashed into the pods.
    const cap = nodeCap(
      o,
      orchestrators.parseAll(cache.list(Resources.Orchestrator, ns)),
      agentConfigs.parseAll(cache.list(Resources.AgentConfig, ns)),
      licenses.parseAll(cache.list(Resources.License, ns)),
    );
    const replicas = cap?.allocation.orchestrators[o.metadata.name] ?? {
      gateway: o.spec.gateway.replicas,
      orchestrator: o.spec.orchestrator.replicas,
    };
    // NB: a Secret the cache has not seen yet may exist (just created by the previous pass): read it before
    // generating values, or a lagging cache would rotate the installation's shared secrets.
    const internalName = names.internal(o.metadata.name);
    const internal = internalValues(
      secret(internalName) ??
        (await client.tryGet<SecretObject>(Resources.Secret, ns, internalName, { signal: req.signal })),
      this.settings.licenseSigningSecret,
    );
    const configHash = hashOf(
      desiredConfigMap(o).data,
      desiredInternalSecret(o, internal).data,
      referencedSecrets(o).map((n) => [n, secret(n)?.data ?? null]),
    );
    const desired = desiredObjects(
      o,
      { image: imageOf(o, this.settings.defaultImage), replicas, configHash },
      internal,
    );

    // Apply.
    try {
      for (const obj of desired.apply) {
        const ref = Resources[obj.kind as ResourceName];
        const result = await createOrUpdate(client, ref, obj, cache.get(ref, ns, obj.metadata.name), req.signal);
        if (result === 'unchanged') continue;
        req.log.info({ op: result, kind: obj.kind, object: obj.metadata.name }, 'object applied');
        if (result === 'created')
          this.ctx.events.event(raw, 'Normal', Reason.Created, `created ${obj.kind} ${obj.metadata.name}`, req.signal);
        else if (obj.kind === 'Deployment')
          this.ctx.events.event(raw, 'Normal', Reason.Updated, `updated Deployment ${obj.metadata.name}`, req.signal);
      }
      for (const { kind, name } of desired.remove) {
        const ref = Resources[kind as ResourceName];
        if (await deleteOwned(client, ref, cache.get(ref, ns, name), o.metadata.uid, req.signal))
          req.log.info({ op: 'deleted', kind, object: name }, 'object deleted');
      }
    } catch (err) {
      await reportApplyFailure(this.ctx, Resources.Orchestrator, raw, err, req.signal);
      throw err;
    }

    // Judge and write status.
    const before = raw.status?.conditions as Condition[] | undefined;
    const conditions = nextConditions(
      before,
      orchestratorConditions(this.facts(o, raw, replicas, cap)),
      o.metadata.generation,
      this.ctx.now(),
    );
    const written = await patchStatus(
      client,
      Resources.Orchestrator,
      raw,
      { conditions, observedGeneration: o.metadata.generation, endpoints: endpoints(o) },
      { signal: req.signal },
    );
    if (written === 'updated') announce(this.ctx.events, raw, before, conditions, req.signal);
  }

  /** What the checks judge, read from the cache. */
  private facts(
    o: OrchestratorResource,
    raw: KubeObject & { status?: Record<string, unknown> },
    replicas: Replicas,
    cap: NodeCap | undefined,
  ): OrchestratorFacts {
    const { cache } = this.ctx;
    const ns = o.metadata.namespace!;
    const secret = (name: string) => cache.get<SecretObject>(Resources.Secret, ns, name);
    const database = o.spec.database?.secretRef;
    const others = [
      o.spec.redis?.secretRef,
      ...(o.spec.llm?.providers ?? []).map((p) => p.secretRef),
      o.spec.tls ? { name: o.spec.tls.secretName } : undefined,
    ];
    const license = o.spec.licenseRef
      ? licenses.parseAll(cache.list(Resources.License, ns)).find((l) => l.metadata.name === o.spec.licenseRef!.name)
      : undefined;
    const ready = (name: string) => readyReplicas(cache.get(Resources.Deployment, ns, name));
    return {
      communityMode: o.spec.communityMode,
      licenseRef: o.spec.licenseRef?.name,
      license: license ? { valid: license.status?.valid, reason: license.status?.reason } : undefined,
      hasDatabase: database !== undefined,
      databaseProblem: database ? secretProblem(database, secret(database.name)) : undefined,
      secretProblems: others
        .flatMap((ref) => (ref ? [secretProblem(ref, secret(ref.name))] : []))
        .filter((p): p is string => p !== undefined),
      gateway: { wanted: replicas.gateway, ready: ready(names.gateway(o.metadata.name)) },
      orchestrator: { wanted: replicas.orchestrator, ready: ready(names.orchestrator(o.metadata.name)) },
      cap,
      pool: raw.status?.pool as { desired: number; healthy: number } | undefined,
    };
  }
}

/** The values of `O-internal`: kept when present, generated (32 random bytes, hex) when missing. */
export function internalValues(
  existing: { data?: Record<string, string> } | undefined,
  licenseSigningSecret: string | undefined,
): InternalValues {
  const read = (key: string) => {
    const v = existing?.data?.[key];
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
  };
  const fresh = () => randomBytes(32).toString('hex');
  const audit = auditKeyPair(read(INTERNAL_KEYS.auditSigningKey), read(INTERNAL_KEYS.auditPublicKey));
  return {
    internalSecret: read(INTERNAL_KEYS.internalSecret) || fresh(),
    agentToken: read(INTERNAL_KEYS.agentToken) || fresh(),
    ...(licenseSigningSecret ? { licenseSigningSecret } : {}),
    auditSigningKey: audit.privateKey,
    auditPublicKey: audit.publicKey,
    a2aCardKey: read(INTERNAL_KEYS.a2aCardKey) || ed25519Pair().privateKey,
  };
}

/** The audit signing key pair: kept when present, generated (Ed25519, PEM) when missing or half there. */
function auditKeyPair(
  privateKey: string | undefined,
  publicKey: string | undefined,
): { privateKey: string; publicKey: string } {
  if (privateKey && publicKey) return { privateKey, publicKey };
  if (privateKey)
    return { privateKey, publicKey: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString() };
  return ed25519Pair();
}

/** A new Ed25519 key pair, PEM (PKCS#8 private, SPKI public). */
function ed25519Pair(): { privateKey: string; publicKey: string } {
  const pair = generateKeyPairSync('ed25519');
  return {
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
