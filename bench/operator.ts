/**
 * Operator benchmark (issue 21): 500 AgentConfigs applied at once reach Ready, then the operator idles.
 *
 * Method: the test API server with workloads in simulated mode (the Deployment and ReplicaSet controllers
 * run; pods turn Running and Ready at once, without processes), one Orchestrator (community mode, one
 * gateway and one orchestrator replica) already Ready, and `steward operator` in this process with its default
 * settings (100 requests/s, burst 200, 4 reconciles at once per controller, leader election on). The 500
 * AgentConfigs are written straight into the server's store in one go (what `kubectl apply` of a 500-document
 * file ends in, without kubectl's own minute of round trips), and the clock runs until every one has
 * `Ready=True`. Then the operator's requests are counted in the server's request log (by its User-Agent) over
 * 60 s of steady state: writes (create, update, patch, delete) must be 0, the Lease renewals of leader election
 * (an update every 2 s) counted apart. The test API server and its simulated controllers share this process
 * and its CPU with the operator.
 *
 * Then the memory part (bench/operator-memory.ts, its method in its header): the operator's memory with 5,000
 * unrelated Pods and 2,000 unrelated Secrets in the cluster against an empty cluster. `BENCH_OPERATOR_PARTS`
 * picks the parts (`convergence,memory`, the default; the section written holds only those that ran).
 */
import { loadavg } from 'node:os';
import { pino } from 'pino';
import { operatorSettings } from '../cmd/config/operator-env.js';
import { startOperator, type RunningOperator } from '../operator/main.js';
import { startTestCluster, type TestCluster } from '../testing/kube/index.js';
import { memory } from './operator-memory.js';
import { machine, processFlags } from './report.js';

const AGENTS = Number(process.env.BENCH_OPERATOR_AGENTS ?? 500);
const STEADY_MS = Number(process.env.BENCH_OPERATOR_STEADY_MS ?? 60_000);
const TARGET_READY_S = 30;
const NS = 'bench';
const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

type Obj = { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } };
const isReady = (o: Obj) => o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function run(): Promise<{ markdown: string }> {
  const parts = (process.env.BENCH_OPERATOR_PARTS ?? 'convergence,memory').split(',');
  const load = loadavg()[0]!.toFixed(2);
  const sections: string[] = [];
  if (parts.includes('convergence')) sections.push(await convergence());
  if (parts.includes('memory')) sections.push(await memory());
  return {
    markdown: `## Operator (issues 21 and 33)

${machine()}; ${processFlags()}; load average ${load} at start; ${new Date().toISOString().slice(0, 10)}.

${sections.join('\n')}`,
  };
}

async function convergence(): Promise<string> {
  let cluster: TestCluster | undefined;
  let operator: RunningOperator | undefined;
  try {
    cluster = await startTestCluster({ crds: 'crds/', workloads: { kubeletMode: 'simulated' } });
    const store = cluster.store;
    store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    store.create('orchestrators.steward.dev', {
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Orchestrator',
      metadata: { name: 'bench', namespace: NS },
      spec: { communityMode: true, gateway: { replicas: 1 }, orchestrator: { replicas: 1 } },
    });
    const config = operatorSettings({
      STEWARD_KUBECONFIG: cluster.kubeconfig,
      STEWARD_PROBE_PORT: '0',
      STEWARD_PROBE_HOST: '127.0.0.1',
    });
    operator = await startOperator(config, { log: pino({ level: 'silent' }) });
    const orchestrator = () => store.get('orchestrators.steward.dev', NS, 'bench') as unknown as Obj;
    await until('the Orchestrator to be Ready', () => isReady(orchestrator()), 60_000);

    const cpu0 = process.cpuUsage();
    const before = cluster.requests.all().length;
    const t0 = performance.now();
    for (let i = 0; i < AGENTS; i++) {
      store.create('agentconfigs.steward.dev', {
        apiVersion: 'steward.dev/v1alpha1',
        kind: 'AgentConfig',
        metadata: { name: `agent-${String(i).padStart(3, '0')}`, namespace: NS },
        spec: {
          type: 'coordinator',
          domain: 'bench',
          description: `bench agent ${i}`,
          capabilities: ['bench'],
          replicas: 1,
        },
      });
    }
    const readyCount = () =>
      (store.list('agentconfigs.steward.dev', { namespace: NS }).items as unknown as Obj[]).filter(isReady).length;
    await until(`${AGENTS} AgentConfigs to be Ready`, () => readyCount() === AGENTS, 600_000);
    const readyS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const convergence = cluster.requests
      .all()
      .slice(before)
      .filter((r) => r.userAgent.startsWith('steward-operator'));
    const byVerb = new Map<string, number>();
    for (const r of convergence) byVerb.set(r.verb ?? r.method, (byVerb.get(r.verb ?? r.method) ?? 0) + 1);

    // Steady state: the queue drains what the last status writes woke, then nothing should be written.
    await new Promise((r) => setTimeout(r, 2000));
    const steadyFrom = Date.now();
    await new Promise((r) => setTimeout(r, STEADY_MS));
    const steady = cluster.requests
      .all()
      .filter((r) => r.at >= steadyFrom && r.userAgent.startsWith('steward-operator'));
    // NB: the Lease renewals are leader election's heartbeat (one update every retry period), not reconcile writes.
    const steadyWrites = steady.filter((r) => r.verb !== undefined && WRITES.has(r.verb) && r.resource !== 'leases');
    const leaseRenewals = steady.filter((r) => r.resource === 'leases' && r.verb === 'update').length;
    const rssMb = process.memoryUsage().rss / 2 ** 20;
    const verbs = [...byVerb]
      .sort()
      .map(([v, n]) => `${v} ${n}`)
      .join(', ');

    return `### Convergence of ${AGENTS} AgentConfigs (issue 21)

Method: bench/operator.ts header.

| Measure | Value | Target |
|---|---|---|
| ${AGENTS} AgentConfigs applied at once → all \`Ready\` | **${readyS.toFixed(1)} s** | < ${TARGET_READY_S} s |
| operator requests during convergence | ${convergence.length} (${verbs}) | |
| operator CPU during convergence (this process: operator + test API server) | ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s | |
| operator writes in ${STEADY_MS / 1000} s of steady state (Lease renewals aside) | **${steadyWrites.length}** (${steady.length} requests of any kind, ${leaseRenewals} of them Lease renewals) | 0 |
| resident memory after (operator + test API server + ${AGENTS * 2} objects) | ${rssMb.toFixed(0)} MB | |
`;
  } finally {
    await operator?.stop();
    await cluster?.close();
  }
}
