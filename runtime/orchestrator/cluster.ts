/**
 * The orchestrator's cluster parts (docs/cluster-mode.md): the Kubernetes client, the declarative state from the
 * API server over the built-in policy pack (STEWARD_SOURCE=kubernetes), the pool agents from EndpointSlices
 * (STEWARD_AGENT_DISCOVERY=kubernetes) and the writer of the pool's status. Absent both settings, the orchestrator
 * has no cluster parts.
 */
import { hostname } from 'node:os';
import type { KubeClient } from '../../platform/kube/index.js';
import { connectKube } from '../cluster/connect.js';
import type { Logger } from '../../platform/log.js';
import { PoolStatusWriter } from '../cluster/pool-status.js';
import type { OrchestratorProcessSettings } from '../settings.js';
import { KubernetesSource, withBuiltinPack, type DeclarativeSource } from '../source/index.js';
import { EndpointSliceSource, type AgentPool } from './pool/index.js';

export interface OrchestratorCluster {
  client: KubeClient;
  /** STEWARD_SOURCE=kubernetes: the five kinds from the API server (the objects, and the namespace's Secrets). */
  kubeSource?: KubernetesSource;
  /** STEWARD_SOURCE=kubernetes: what the orchestrator reads, `kubeSource` over the built-in policy pack unless disabled. */
  source?: DeclarativeSource;
  /** STEWARD_AGENT_DISCOVERY=kubernetes: the pool's members. The pool owns it (closes it). */
  discovery?: EndpointSliceSource;
  /** Why the cluster parts are not ready (GET /readyz). */
  notReady(): string[];
  /** Starts writing the pool's status (discovery only; the replica holding the Lease writes). */
  reportPool(pool: AgentPool): void;
  /** Stops the status writer (giving the Lease up), the source and the client. */
  close(): Promise<void>;
}

export async function openOrchestratorCluster(
  config: Pick<OrchestratorProcessSettings, 'cluster' | 'manifests' | 'agents'>,
  log: Logger,
): Promise<OrchestratorCluster | undefined> {
  const fromSource = config.cluster.source === 'kubernetes';
  const discovering = config.agents.discovery === 'kubernetes';
  if (!fromSource && !discovering) return undefined;
  const client = await connectKube(config.cluster, 'orchestrator');
  const namespace = config.cluster.namespace;
  const kubeSource = fromSource
    ? new KubernetesSource({ client, namespace, log: log.child({ component: 'source' }) })
    : undefined;
  const source =
    kubeSource &&
    withBuiltinPack(kubeSource, {
      enabled: config.manifests.builtinPolicyPack,
      log: log.child({ component: 'source' }),
    });
  const discovery = discovering
    ? new EndpointSliceSource({
        client,
        namespace,
        // NB: the config schema requires the name with STEWARD_AGENT_DISCOVERY=kubernetes.
        orchestrator: config.cluster.orchestratorName!,
        token: config.agents.token,
        log: log.child({ module: 'pool-discovery' }),
      })
    : undefined;
  let writer: PoolStatusWriter | undefined;
  return {
    client,
    kubeSource,
    source,
    discovery,
    notReady: () => [
      ...(kubeSource && !kubeSource.synced ? ['the Kubernetes informers have not listed yet'] : []),
      ...(discovery && !discovery.synced ? ['the pool discovery has not listed the EndpointSlices yet'] : []),
    ],
    reportPool(pool) {
      if (!discovery || writer) return;
      writer = new PoolStatusWriter({
        client,
        namespace,
        orchestrator: config.cluster.orchestratorName!,
        identity: config.cluster.podName ?? hostname(),
        pool,
        selection: discovery,
        minIntervalMs: config.cluster.statusMinIntervalMs,
        log: log.child({ module: 'pool-status' }),
      }).start();
    },
    async close() {
      await writer?.stop();
      await source?.close();
      await discovery?.close();
      await client.close();
    },
  };
}
