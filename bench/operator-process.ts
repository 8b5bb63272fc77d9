/**
 * The operator of bench/operator.ts's memory part, in a process of its own (`fork`), so that what is measured is
 * the operator's memory and not the test API server's, which runs in the parent. It starts `steward operator`
 * (the five controllers, leader election off) on the kubeconfig it is given, says `ready`, then answers the
 * parent's messages until `stop`:
 *
 * - `measure`: three full collections (`--expose-gc`), then `process.memoryUsage()` and the cache's counts;
 * - `get`: the resourceVersion of one cached object (the parent waits for a marker object to reach the cache,
 *   so that every event sent before it was received).
 *
 * `BENCH_OPERATOR_UNSELECTED=1` drops the controllers' cache selections: the operator caches every Secret and Pod,
 * as it did before docs/adr/0015 (the reference row).
 */
import { pino } from 'pino';
import { operatorSettings } from '../cmd/config/operator-env.js';
import { allControllers } from '../operator/controllers/index.js';
import { startOperator } from '../operator/main.js';
import { Resources } from '../platform/kube/resources.js';

export type ParentMessage =
  | { type: 'measure' }
  | { type: 'get'; resource: 'secrets' | 'pods'; namespace: string; name: string }
  | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'memory'; heapUsed: number; external: number; rss: number; secrets: number; pods: number }
  | { type: 'object'; resourceVersion: string | null };

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const send = (m: ChildMessage) => process.send!(m);
const unselected = process.env.BENCH_OPERATOR_UNSELECTED === '1';

const operator = await startOperator(
  operatorSettings({
    STEWARD_KUBECONFIG: process.env.BENCH_KUBECONFIG,
    STEWARD_PROBE_PORT: '0',
    STEWARD_PROBE_HOST: '127.0.0.1',
    STEWARD_LEADER_ELECTION: 'false',
  }),
  {
    log: pino({ level: 'silent' }),
    controllers: (ctx) => allControllers(ctx).map((s) => (unselected ? { ...s, selects: [] } : s)),
  },
);
const { manager } = operator;
while (!manager.ready) await new Promise((r) => setTimeout(r, 20));
send({ type: 'ready' });

process.on('message', (m: ParentMessage) => {
  void (async () => {
    if (m.type === 'measure') {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((r) => setImmediate(r));
      }
      const { heapUsed, external, rss } = process.memoryUsage();
      const secrets = manager.cache.list(Resources.Secret).length;
      const pods = manager.cache.list(Resources.Pod).length;
      send({ type: 'memory', heapUsed, external, rss, secrets, pods });
    } else if (m.type === 'get') {
      const ref = m.resource === 'secrets' ? Resources.Secret : Resources.Pod;
      send({
        type: 'object',
        resourceVersion: manager.cache.get(ref, m.namespace, m.name)?.metadata.resourceVersion ?? null,
      });
    } else {
      await operator.stop();
      process.exit(0);
    }
  })();
});
