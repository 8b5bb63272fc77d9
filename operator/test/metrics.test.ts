/**
 * `GET /metrics` on the operator's probe port, scraped over a real socket from two replicas behind one Lease and
 * read with a real text-format parser: reconciles, work queues, API requests and informers move on the leader;
 * the standby serves the same families with `steward_operator_leader 0`, and takes over the 1 when the leader goes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../platform/kube/client.js';
import { Resources } from '../../platform/kube/resources.js';
import { startTestCluster, type TestCluster } from '../../testing/kube/index.js';
import { parseExposition, type Exposition } from '../../testing/prometheus-text.js';
import { fastLeaseConfig } from './fixtures.js';
import { startOperator, type RunningOperator } from '../main.js';
import type { ControllerContext, ControllerSpec } from '../manager/types.js';
import { configMap, copyController, eventually, silent } from '../manager/test/helpers.js';

let cluster: TestCluster;
let client: KubeClient;

beforeAll(async () => {
  cluster = await startTestCluster({ crds: 'crds/' });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'metrics-test' });
});
afterAll(async () => {
  await client?.close();
  await cluster?.close();
});

const config = (identity: string) => fastLeaseConfig(cluster.kubeconfig, identity);

/** The copy controller, asking to run again in a minute for ConfigMaps named `requeue-*`. */
const controllers = (ctx: ControllerContext): ControllerSpec[] => {
  const copy = copyController(ctx);
  return [
    {
      ...copy,
      reconciler: {
        async reconcile(req) {
          await copy.reconciler.reconcile(req);
          return req.name.startsWith('requeue-') ? { requeueAfterMs: 60_000 } : undefined;
        },
      },
    },
  ];
};

async function scrape(op: RunningOperator): Promise<{ contentType: string | null; m: Exposition }> {
  const res = await fetch(`${op.probeUrl}/metrics`);
  expect(res.status).toBe(200);
  return { contentType: res.headers.get('content-type'), m: parseExposition(await res.text()) };
}

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

const value = (m: Exposition, name: string, labels: Record<string, string> = {}) =>
  m.find(name, labels).reduce((n, s) => n + s.value, 0);

describe('GET /metrics on the probe port', () => {
  it('counts reconciles, queue adds, retries and API requests on the leader, and says who leads on both replicas', async () => {
    const a = await startOperator(config('metrics-a'), { log: silent, controllers, backoffBaseDelayMs: 5 });
    let b: RunningOperator | undefined;
    try {
      await eventually(() => expect(a.manager.leading).toBe(true));
      b = await startOperator(config('metrics-b'), { log: silent, controllers });
      await eventually(() => expect(b!.manager.ready).toBe(true));

      const before = (await scrape(a)).m;
      expect(value(before, 'steward_operator_leader')).toBe(1);
      // One failed read of a Secret: one reconcile fails and is retried with back-off.
      cluster.faults.inject({ verb: 'get', resource: 'secrets', status: 500, times: 1 });
      for (const name of ['plain-1', 'plain-2', 'requeue-1'])
        await client.create(Resources.ConfigMap, configMap(name, { name }));
      // NB: read from the store, not through the API: a GET of ours could take the injected 500.
      await eventually(() =>
        expect(
          ['plain-1', 'plain-2', 'requeue-1'].filter((n) => !cluster.store.tryGet(SECRETS, 'default', `${n}-copy`)),
        ).toEqual([]),
      );

      const copy = { controller: 'copy' };
      const m = await eventually(async () => {
        const { contentType, m } = await scrape(a);
        expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
        expect(value(m, 'steward_operator_reconcile_total', { ...copy, result: 'success' })).toBeGreaterThanOrEqual(
          value(before, 'steward_operator_reconcile_total', { ...copy, result: 'success' }) + 2,
        );
        expect(value(m, 'steward_operator_reconcile_total', { ...copy, result: 'requeue' })).toBeGreaterThanOrEqual(1);
        return m;
      });
      expect(value(m, 'steward_operator_reconcile_total', { ...copy, result: 'error' })).toBe(1);
      expect(value(m, 'steward_operator_terminal_reconcile_errors_total', copy)).toBe(0);
      expect(value(m, 'steward_operator_workqueue_retries_total', copy)).toBe(1);
      expect(value(m, 'steward_operator_workqueue_adds_total', copy)).toBeGreaterThanOrEqual(4);
      expect(m.find('steward_operator_workqueue_depth', copy)).toHaveLength(1);
      expect(m.find('steward_operator_workqueue_longest_running_processor_seconds', copy)).toHaveLength(1);
      expect(m.find('steward_operator_workqueue_unfinished_work_seconds', copy)).toHaveLength(1);
      expect(m.find('steward_operator_active_workers', copy)).toHaveLength(1);
      expect(m.families.get('steward_operator_reconcile_duration_seconds')?.type).toBe('histogram');
      const reconciles = value(m, 'steward_operator_reconcile_total', copy);
      expect(value(m, 'steward_operator_reconcile_duration_seconds_count', copy)).toBe(reconciles);
      expect(value(m, 'steward_operator_kube_requests_total', { verb: 'get', resource: 'secrets', code: '500' })).toBe(
        1,
      );
      expect(
        value(m, 'steward_operator_kube_requests_total', { verb: 'create', resource: 'secrets', code: '201' }),
      ).toBe(3);
      expect(
        value(m, 'steward_operator_kube_request_duration_seconds_count', { verb: 'create', resource: 'secrets' }),
      ).toBe(3);
      expect(value(m, 'steward_operator_informer_lists_total', { resource: 'configmaps' })).toBeGreaterThanOrEqual(1);
      expect(value(m, 'steward_operator_informer_watches_total', { resource: 'secrets' })).toBeGreaterThanOrEqual(1);
      expect(m.find('steward_build_info')[0]?.value).toBe(1);
      // NB: the leader renews its Lease every retry period (100 ms here); a fast run may scrape before the first renewal.
      await eventually(async () =>
        expect(
          value((await scrape(a)).m, 'steward_operator_kube_requests_total', {
            verb: 'update',
            resource: 'leases',
            code: '200',
          }),
        ).toBeGreaterThanOrEqual(1),
      );
      expect(m.find('process_cpu_user_seconds_total')).toHaveLength(1);

      // The standby: same families, its informers and Lease reads counted, no reconcile, leader 0.
      const standby = (await scrape(b)).m;
      expect(value(standby, 'steward_operator_leader')).toBe(0);
      expect(value(standby, 'steward_operator_reconcile_total', copy)).toBe(0);
      expect(standby.find('steward_operator_reconcile_total', { ...copy, result: 'success' })).toHaveLength(1);
      expect(value(standby, 'steward_operator_workqueue_depth', copy)).toBe(0);
      expect(
        value(standby, 'steward_operator_informer_lists_total', { resource: 'configmaps' }),
      ).toBeGreaterThanOrEqual(1);
      expect(
        value(standby, 'steward_operator_kube_requests_total', { verb: 'list', resource: 'configmaps', code: '200' }),
      ).toBeGreaterThanOrEqual(1);
      expect(value(standby, 'steward_operator_kube_requests_total', { verb: 'create', resource: 'secrets' })).toBe(0);

      // The leader goes (releasing the Lease): the standby's gauge turns to 1.
      await a.stop();
      await eventually(async () => expect(value((await scrape(b!)).m, 'steward_operator_leader')).toBe(1));
    } finally {
      await a.stop();
      await b?.stop();
    }
  });

  it('answers 404 on other paths and 405 on writes', async () => {
    const op = await startOperator(config('metrics-c'), { log: silent, controllers: () => [] });
    try {
      expect((await fetch(`${op.probeUrl}/metricz`)).status).toBe(404);
      expect((await fetch(`${op.probeUrl}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await op.stop();
    }
  });
});
