/**
 * The attacker of bench/hostile.ts, run as a process of its own (`fork`), so that building and sending large
 * hostile bodies never delays the measuring client's event loop: only the server is measured. It sends every
 * hostile class at HOSTILE_RATE per second and keeps SLOW_CLIENTS slow-header clients, until the parent sends
 * `stop`; then it reports what the requests were answered and exits.
 *
 * Usage (by bench/hostile.ts): `node --import tsx bench/hostile-attacker.ts '{"gateway":…,"orchestrator":…}'`.
 */
import { connect, type Socket } from 'node:net';

/** Hostile requests per second per class (open loop), at most this many in flight per class, and in all. */
export const HOSTILE_RATE = 2;
export const HOSTILE_IN_FLIGHT = 4;
export const HOSTILE_MAX = 1000;
export const SLOW_CLIENTS = 50;

export interface AttackReport {
  /** `class: answer` → count */
  outcomes: [string, number][];
  slowOutcomes: string[];
  sent: number;
}

export interface HostileClass {
  name: string;
  origin: 'gateway' | 'orchestrator';
  path: string;
  contentType: string;
  body: () => string;
}

export const HOSTILE: HostileClass[] = [
  {
    name: '400,000-newline pre-check',
    origin: 'gateway',
    path: '/api/policy/pre-check',
    contentType: 'application/json',
    body: () => JSON.stringify({ client_id: 'h', user_token: 'u', query: '\n'.repeat(400_000) }),
  },
  {
    name: '"union/**/select " × 5,000 policy test',
    origin: 'gateway',
    path: '/api/policies/test',
    contentType: 'application/json',
    body: () => JSON.stringify({ query: 'union/**/select '.repeat(5000) }),
  },
  {
    name: '30,000-key YAML validate',
    origin: 'orchestrator',
    path: '/api/v1/agents/validate',
    contentType: 'application/yaml',
    body: () =>
      `apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: a}\nspec:\n  type: specialist\n  extra:\n${Array.from({ length: 30_000 }, (_, i) => `    k${i}: v`).join('\n')}\n`,
  },
  {
    name: '10,000-level JSON pre-check',
    origin: 'gateway',
    path: '/api/policy/pre-check',
    contentType: 'application/json',
    body: () =>
      `{"client_id":"h","user_token":"u","query":"q","context":{"a":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`,
  },
];

/**
 * Sends one class's requests at HOSTILE_RATE per second until `stop` (bounded by the shared budget), counting the
 * answers by status; a request due while HOSTILE_IN_FLIGHT are unanswered is counted as skipped, not queued.
 */
async function hostileStream(
  origins: Record<string, string>,
  c: HostileClass,
  stop: () => boolean,
  outcomes: Map<string, number>,
  budget: { left: number },
): Promise<void> {
  const body = c.body();
  const count = (outcome: string) =>
    outcomes.set(`${c.name}: ${outcome}`, (outcomes.get(`${c.name}: ${outcome}`) ?? 0) + 1);
  const inFlight = new Set<Promise<void>>();
  const t0 = performance.now();
  for (let i = 0; !stop() && budget.left > 0; i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i * 1000) / HOSTILE_RATE - performance.now())));
    if (stop()) break;
    if (inFlight.size >= HOSTILE_IN_FLIGHT) {
      count(`skipped (${HOSTILE_IN_FLIGHT} still unanswered)`);
      continue;
    }
    budget.left--;
    const p = (async () => {
      try {
        const res = await fetch(`${origins[c.origin]}${c.path}`, {
          method: 'POST',
          headers: { 'content-type': c.contentType },
          body,
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        let verdict = '';
        if (res.status === 200) {
          try {
            const approved = (JSON.parse(text) as { approved?: boolean }).approved;
            verdict = approved === true ? ' approved' : approved === false ? ' blocked' : '';
          } catch {
            verdict = '';
          }
        }
        count(`${res.status}${verdict}`);
      } catch (err) {
        count((err as Error).name === 'TimeoutError' ? 'no answer in 60 s' : 'connection error');
      }
    })();
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
}

/** Clients that send their headers one byte every 500 ms; what became of each when the phase ends. */
function slowHeaderClients(port: number, count: number): { sockets: Socket[]; outcomes: string[]; stop(): void } {
  const outcomes: string[] = new Array(count).fill('still open at the end');
  const sockets: Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  const request = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Slow: '.padEnd(4000, 'a')}\r\n\r\n`;
  for (let i = 0; i < count; i++) {
    const s = connect(port, '127.0.0.1');
    sockets.push(s);
    let sent = 0;
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(got)?.[1];
      if (outcomes[i] === 'still open at the end')
        outcomes[i] = status ? `closed by the server with ${status}` : 'closed by the server without an answer';
    });
    s.on('error', () => undefined);
    const timer = setInterval(() => {
      if (s.destroyed || sent >= request.length) return clearInterval(timer);
      s.write(request[sent++]!);
    }, 500);
    timers.push(timer);
  }
  return {
    sockets,
    outcomes,
    stop() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
    },
  };
}

async function main(): Promise<void> {
  const { gateway, orchestrator, only } = JSON.parse(process.argv[2]!) as {
    gateway: string;
    orchestrator: string;
    only?: string;
  };
  let stopped = false;
  const outcomes = new Map<string, number>();
  const budget = { left: HOSTILE_MAX };
  const slow = slowHeaderClients(Number(new URL(gateway).port), SLOW_CLIENTS);
  // `only`: just the classes whose name contains it (to see which class costs what).
  const classes = HOSTILE.filter((c) => only === undefined || c.name.includes(only));
  const streams = classes.map((c) => hostileStream({ gateway, orchestrator }, c, () => stopped, outcomes, budget));
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  stopped = true;
  const slowOutcomes = [...slow.outcomes];
  slow.stop();
  await Promise.all(streams);
  const report: AttackReport = { outcomes: [...outcomes], slowOutcomes, sent: HOSTILE_MAX - Math.max(0, budget.left) };
  process.send!(report, () => process.exit(0));
}

if (process.send !== undefined && process.argv[2]?.startsWith('{')) await main();
