/**
 * `useTestCluster()`: the set-up the Kubernetes tests share, as vitest hooks of the file (or `describe`) it is
 * called in — a test cluster and a real `KubeClient` on it started before the tests, closed after them, and the
 * cluster put back to its starting state before each test. Not exported from `index.ts`: it imports vitest.
 *
 * ```ts
 * const kube = useTestCluster({ crds: 'crds/', client: 'informer-test' });
 * it('...', async () => { await kube.client.create(...); kube.cluster.faults.inject(...); });
 * ```
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { KubeClient } from '../../platform/kube/client.js';
import { startTestCluster, type TestCluster, type TestClusterOptions } from './cluster.js';

export interface TestClusterFixtureOptions extends TestClusterOptions {
  /** A KubeClient on the cluster with this User-Agent (what the request log shows); false: none. @default kube-test */
  client?: string | false;
  /** Before each test: `cluster.reset()` (the objects of the start, no faults, an empty request log). @default true */
  resetBeforeEach?: boolean;
}

export interface TestClusterFixture {
  /** The cluster; read it inside hooks and tests (it starts in `beforeAll`). */
  readonly cluster: TestCluster;
  /** The client; read it inside hooks and tests. */
  readonly client: KubeClient;
}

export function useTestCluster(opts: TestClusterFixtureOptions = {}): TestClusterFixture {
  const { client: userAgent = 'kube-test', resetBeforeEach = true, ...clusterOptions } = opts;
  let cluster: TestCluster | undefined;
  let client: KubeClient | undefined;
  beforeAll(async () => {
    cluster = await startTestCluster(clusterOptions);
    if (userAgent !== false) client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.close();
  });
  if (resetBeforeEach) beforeEach(() => cluster?.reset());
  return {
    get cluster() {
      if (!cluster) throw new Error('the test cluster starts in beforeAll: read it inside hooks and tests');
      return cluster;
    },
    get client() {
      if (!client)
        throw new Error(
          userAgent === false ? 'useTestCluster({ client: false }) makes no client' : 'the client starts in beforeAll',
        );
      return client;
    },
  };
}
