import { describe, expect, it } from 'vitest';
import { Resources } from '../../platform/kube/resources.js';
import { parseExposition } from '../../testing/prometheus-text.js';
import { OperatorMetrics } from './metrics.js';

describe('OperatorMetrics', () => {
  it('counts API requests by verb, resource with its subresource, and status code (0: no answer)', async () => {
    const metrics = new OperatorMetrics({ version: '1.2.3', defaultMetrics: false });
    const kube = metrics.kubeRequests;
    kube.request('update', Resources.Orchestrator, 'status', 200, 0.004);
    kube.request('update', Resources.Orchestrator, 'status', 200, 0.006);
    kube.request('update', Resources.Orchestrator, 'status', 409, 0.002);
    kube.request('update', Resources.Orchestrator, '', 200, 0.003);
    kube.request('get', Resources.Secret, '', 0, 30);
    const m = parseExposition((await metrics.scrape()).text);
    const count = (labels: Record<string, string>) =>
      m.find('steward_operator_kube_requests_total', labels).map((s) => s.value);
    expect(count({ verb: 'update', resource: 'orchestrators/status', code: '200' })).toEqual([2]);
    expect(count({ verb: 'update', resource: 'orchestrators/status', code: '409' })).toEqual([1]);
    expect(count({ verb: 'update', resource: 'orchestrators', code: '200' })).toEqual([1]);
    expect(count({ verb: 'get', resource: 'secrets', code: '0' })).toEqual([1]);
    expect(
      m.find('steward_operator_kube_request_duration_seconds_count', {
        verb: 'update',
        resource: 'orchestrators/status',
      })[0]?.value,
    ).toBe(3);
    expect(
      m.find('steward_operator_kube_request_duration_seconds_sum', {
        verb: 'update',
        resource: 'orchestrators/status',
      })[0]?.value,
    ).toBeCloseTo(0.012);
  });

  it('serves the manager families empty, and the leader gauge as 0, until it watches a manager', async () => {
    const metrics = new OperatorMetrics({ version: '1.2.3', defaultMetrics: false });
    const m = parseExposition((await metrics.scrape()).text);
    expect(m.find('steward_operator_leader')).toEqual([{ name: 'steward_operator_leader', labels: {}, value: 0 }]);
    expect(m.find('steward_operator_reconcile_total')).toEqual([]);
    expect(m.find('steward_build_info', { version: '1.2.3' })[0]?.value).toBe(1);
    expect(m.families.get('steward_operator_workqueue_depth')?.type).toBe('gauge');
  });
});
