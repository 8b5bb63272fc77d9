/**
 * The operator's Prometheus metrics, in controller-runtime's spirit, on a registry of its own (one per process,
 * as the runtimes' `StewardTelemetry`): reconciles, work queues, leadership, informers and Kubernetes API
 * requests, plus the default process and Node.js metrics. Served as `GET /metrics` on the probe port.
 *
 * Little happens on the hot path: reconcile durations go to a histogram child bound per controller, API
 * requests to plain-number cells (`KubeRequestMetrics`); every count and gauge else is read from the manager at
 * scrape time, so the families need nothing from the controllers but the counts they keep anyway.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { InformerStats } from '../manager/cache.js';
import type { ControllerStats } from '../manager/controller.js';
import type { Manager } from '../manager/manager.js';
import type { ManagerMetrics, ReconcileTimer } from '../manager/types.js';
import type { WorkQueueState } from '../manager/workqueue.js';
import { KubeRequestMetrics } from './kube-requests.js';
import { registerProcessMetrics } from '../../platform/metrics.js';

/** Buckets in seconds, as controller-runtime's reconcile_time_seconds: 5 ms to a minute. */
const RECONCILE_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];

export interface OperatorMetricsOptions {
  version: string;
  /** Default process_* and nodejs_* metrics. @default true */
  defaultMetrics?: boolean;
}

export class OperatorMetrics implements ManagerMetrics {
  readonly registry = new Registry();
  /** `KubeClient`'s observer. */
  readonly kubeRequests: KubeRequestMetrics;
  private readonly reconcileDuration: Histogram<'controller'>;
  private manager: Manager | undefined;

  constructor(options: OperatorMetricsOptions) {
    const registers = [this.registry];
    registerProcessMetrics(this.registry, options);
    this.kubeRequests = new KubeRequestMetrics(this.registry);
    this.reconcileDuration = new Histogram({
      name: 'steward_operator_reconcile_duration_seconds',
      help: 'Time of one reconcile, by controller, whatever its result.',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS_S,
      registers,
    });
    this.registerManagerFamilies();
  }

  /** The reconcile histogram's child for one controller (the manager asks once per controller). */
  reconcileTimer(controller: string): ReconcileTimer {
    const child = this.reconcileDuration.labels({ controller });
    return (seconds) => child.observe(seconds);
  }

  /** Where the families read at scrape time come from; until then they are empty. */
  watch(manager: Manager): void {
    this.manager = manager;
  }

  /** The scrape: Prometheus text exposition format and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private registerManagerFamilies(): void {
    const registers = [this.registry];
    const manager = () => this.manager;
    // NB: every family below reads the manager at scrape time; nothing is counted twice.
    const counter = (name: string, help: string, read: (m: Manager) => Record<string, number>) =>
      new Counter({
        name,
        help,
        labelNames: ['controller'],
        registers,
        collect() {
          this.reset();
          const m = manager();
          if (m) for (const [controller, value] of Object.entries(read(m))) this.inc({ controller }, value);
        },
      });
    const gauge = (name: string, help: string, read: (m: Manager) => Record<string, number>) =>
      new Gauge({
        name,
        help,
        labelNames: ['controller'],
        registers,
        collect() {
          const m = manager();
          if (m) for (const [controller, value] of Object.entries(read(m))) this.set({ controller }, value);
        },
      });
    const stats = (pick: (s: ControllerStats) => number) => (m: Manager) => mapValues(m.stats(), pick);
    const queues = (pick: (q: WorkQueueState) => number) => (m: Manager) => mapValues(m.queues(), pick);

    new Counter({
      name: 'steward_operator_reconcile_total',
      help: 'Reconciles finished, by controller and result: success, requeue (asked to run again after a delay), error (threw; retried with back-off unless terminal).',
      labelNames: ['controller', 'result'],
      registers,
      collect() {
        this.reset();
        const m = manager();
        if (!m) return;
        for (const [controller, s] of Object.entries(m.stats())) {
          this.inc({ controller, result: 'success' }, s.successes);
          this.inc({ controller, result: 'requeue' }, s.requeues);
          this.inc({ controller, result: 'error' }, s.errors);
        }
      },
    });
    counter(
      'steward_operator_terminal_reconcile_errors_total',
      'Reconciles that threw a TerminalError (not retried until something changes), by controller.',
      stats((s) => s.terminalErrors),
    );
    gauge(
      'steward_operator_active_workers',
      'Reconciles running now, by controller.',
      queues((q) => q.processing),
    );
    gauge(
      'steward_operator_workqueue_depth',
      "Keys waiting in the controller's work queue (0 while not leading).",
      queues((q) => q.depth),
    );
    counter(
      'steward_operator_workqueue_adds_total',
      'Keys queued, by controller (an add of a key already waiting is not counted).',
      stats((s) => s.adds),
    );
    counter(
      'steward_operator_workqueue_retries_total',
      'Keys re-queued with back-off after a failed reconcile, by controller.',
      stats((s) => s.retries),
    );
    gauge(
      'steward_operator_workqueue_longest_running_processor_seconds',
      'How long the longest reconcile still running has been running, by controller.',
      queues((q) => q.longestRunningMs / 1000),
    );
    gauge(
      'steward_operator_workqueue_unfinished_work_seconds',
      'The sum of how long each reconcile still running has been running, by controller; growing steadily means a stuck worker.',
      queues((q) => q.unfinishedWorkMs / 1000),
    );
    new Gauge({
      name: 'steward_operator_leader',
      help: '1 while this replica runs the controllers (it holds the Lease, or runs without leader election); 0 on a standby.',
      registers,
      collect() {
        this.set(manager()?.leading ? 1 : 0);
      },
    });
    const informers = (name: string, help: string, pick: (i: InformerStats) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['resource'],
        registers,
        collect() {
          this.reset();
          for (const i of manager()?.cache.informerStats() ?? []) this.inc({ resource: i.resource }, pick(i));
        },
      });
    informers(
      'steward_operator_informer_lists_total',
      'Full lists started by the informer of a resource: the first, retries after a failure, re-lists after 410 Gone.',
      (i) => i.lists,
    );
    informers(
      'steward_operator_informer_watches_total',
      'Watches opened by the informer of a resource: the first, then one per restart (the server ends each after about 5 minutes).',
      (i) => i.watches,
    );
  }
}

function mapValues<T>(record: Record<string, T>, pick: (v: T) => number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(record)) out[k] = pick(v);
  return out;
}
