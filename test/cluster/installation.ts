/**
 * The set-up the end-to-end cluster suites share: a temp PostgreSQL database, a License key, the test cluster with
 * workloads (pods run as processes of this checkout), the CRDs applied with the real kubectl, and `steward operator`
 * as a process. `close()` stops it all and checks that no process is left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { issueLicenseKey } from '../../api/licensekey.js';
import { createTempDatabase } from '../../testing/pgdb.js';
import { livePids, startTestCluster, type TestCluster } from '../../testing/kube/index.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { projectNode, REPO_ROOT } from '../../testing/kube/kubelet/images.js';

const BASE_DB = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface OperatorInstallation {
  cluster: TestCluster;
  kubectl: Kubectl;
  db: { url: string; drop(): Promise<void> };
  /** An ENT License key signed with the operator's signing secret, valid for a year. */
  licenseKey: string;
  /** What the operator process wrote so far (stdout and stderr). */
  operatorLog(): string;
  close(): Promise<void>;
}

export async function startOperatorInstallation(signingSecret: string): Promise<OperatorInstallation> {
  const db = await createTempDatabase(BASE_DB);
  const licenseKey = issueLicenseKey({
    tier: 'ENT',
    expiresAt: new Date(Date.now() + 365 * 86_400_000),
    secret: signingSecret,
  });
  const cluster = await startTestCluster({ crds: 'crds/', tls: true, workloads: { backoffBaseMs: 1000 } });
  const kubectl = new Kubectl(cluster.kubeconfig);
  await kubectl.ok(['apply', '-f', join(REPO_ROOT, 'crds')]);
  let log = '';
  const operator: ChildProcess = spawn(projectNode(), [join(REPO_ROOT, 'bin/steward.mjs'), 'operator'], {
    env: {
      PATH: process.env.PATH,
      STEWARD_KUBECONFIG: cluster.kubeconfig,
      STEWARD_LICENSE_SIGNING_SECRET: signingSecret,
      STEWARD_PROBE_PORT: '0',
      STEWARD_PROBE_HOST: '127.0.0.1',
      STEWARD_DEFAULT_IMAGE: 'ghcr.io/steward-dev/steward:0.1.0',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  operator.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  operator.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  return {
    cluster,
    kubectl,
    db,
    licenseKey,
    operatorLog: () => log,
    async close() {
      if (operator.exitCode === null) {
        operator.kill('SIGTERM');
        await new Promise((r) => operator.once('exit', r));
      }
      await cluster.close();
      kubectl.dispose();
      await db.drop();
      expect(livePids()).toEqual([]);
    },
  };
}
