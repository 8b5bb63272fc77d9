/**
 * Shared by the operator's end-to-end tests (convergence, lifecycle): the real operator with all five
 * controllers against the test cluster with simulated pods, manifests written as YAML for the real kubectl, and
 * a wait with a generous deadline (these tests must not depend on the machine's speed).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { API_VERSION } from '../../api/constants.js';
import { issueLicenseKey } from '../../api/licensekey.js';
import type { LicenseTier } from '../../api/license.js';
import { operatorSettings } from '../../cmd/config/operator-env.js';
import type { OperatorSettings } from '../settings.js';
import type { KubeObject } from '../../platform/kube/client.js';
import { startTestCluster, type TestCluster } from '../../testing/kube/index.js';
import { eventually as waitFor } from '../../testing/eventually.js';

export const SIGNING_SECRET = 'operator-e2e-signing-secret-0123456789';

/** `eventually` with the minute these installations may take on a busy machine. */
export const eventually = <T>(check: () => T | Promise<T>, timeoutMs = 60_000): Promise<T> => waitFor(check, timeoutMs);

export function startSimulatedCluster(): Promise<TestCluster> {
  return startTestCluster({ crds: 'crds/', workloads: { kubeletMode: 'simulated' } });
}

/** The operator's settings for tests: probes on a free local port, short Lease timings. */
export function operatorConfig(cluster: TestCluster, extra: Record<string, string> = {}): OperatorSettings {
  return operatorSettings({
    STEWARD_KUBECONFIG: cluster.kubeconfig,
    STEWARD_PROBE_PORT: '0',
    STEWARD_PROBE_HOST: '127.0.0.1',
    STEWARD_LICENSE_SIGNING_SECRET: SIGNING_SECRET,
    STEWARD_LEASE_DURATION_MS: '2000',
    STEWARD_LEASE_RENEW_DEADLINE_MS: '1500',
    STEWARD_LEASE_RETRY_PERIOD_MS: '200',
    ...extra,
  });
}

export function licenseKey(tier: LicenseTier, expiresAt: Date, secret = SIGNING_SECRET): string {
  return issueLicenseKey({ tier, expiresAt, secret });
}

export const DAY_MS = 24 * 3_600_000;

/** Manifest builders: plain objects for kubectl (as YAML). */
export const m = {
  namespace: (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
  secret: (ns: string, name: string, stringData: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    type: 'Opaque',
    stringData,
  }),
  license: (ns: string, name: string, secret: string): KubeObject => ({
    apiVersion: API_VERSION,
    kind: 'License',
    metadata: { name, namespace: ns },
    spec: { organizationId: 'acme', keySecretRef: { name: secret, key: 'key' } },
  }),
  orchestrator: (
    ns: string,
    name: string,
    o: {
      license?: string;
      communityMode?: boolean;
      database?: string;
      gateway?: number;
      orchestrator?: number;
      pool?: Record<string, string>;
    },
  ): KubeObject => ({
    apiVersion: API_VERSION,
    kind: 'Orchestrator',
    metadata: { name, namespace: ns },
    spec: {
      ...(o.license ? { licenseRef: { name: o.license } } : {}),
      ...(o.communityMode ? { communityMode: true } : {}),
      ...(o.database ? { database: { secretRef: { name: o.database, key: 'url' } } } : {}),
      gateway: { replicas: o.gateway ?? 1 },
      orchestrator: { replicas: o.orchestrator ?? 1 },
      ...(o.pool ? { agentPool: { selector: { matchLabels: o.pool } } } : {}),
    },
  }),
  agent: (ns: string, name: string, replicas: number, labels: Record<string, string>): KubeObject => ({
    apiVersion: API_VERSION,
    kind: 'AgentConfig',
    metadata: { name, namespace: ns, labels },
    spec: { type: 'specialist', domain: 'travel', llm: { provider: 'openai', model: 'gpt-4o-mini' }, replicas },
  }),
  policy: (ns: string, name: string, rego: string): KubeObject => ({
    apiVersion: API_VERSION,
    kind: 'Policy',
    metadata: { name, namespace: ns },
    spec: { type: 'custom', rego },
  }),
  connector: (ns: string, name: string, secret: string): KubeObject => ({
    apiVersion: API_VERSION,
    kind: 'Connector',
    metadata: { name, namespace: ns },
    spec: { type: 'postgres', connection: { secretRef: { name: secret, key: 'url' } } },
  }),
};

export const GOOD_REGO =
  'package steward.custom\n\ndeny contains msg if {\n  input.query == "drop table"\n  msg := "no"\n}\n';
/** Does not parse: the comparison has no right-hand side (the error is at line 5, column 1). */
export const BAD_REGO = 'package steward.custom\n\ndeny contains msg if {\n  input.query ==\n}\n';

/** A temporary folder of manifests; `write` gives the path of a multi-document YAML file for `kubectl apply -f`. */
export class ManifestDir {
  readonly dir = mkdtempSync(join(tmpdir(), 'operator-e2e-'));
  private n = 0;

  write(name: string, objects: KubeObject[]): string {
    const path = join(this.dir, `${String(++this.n).padStart(2, '0')}-${name}.yaml`);
    writeFileSync(path, objects.map((o) => stringify(o)).join('---\n'));
    return path;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
