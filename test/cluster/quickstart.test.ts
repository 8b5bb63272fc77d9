/**
 * The quick start end to end (issue 21): the CRDs and config/examples/quickstart applied with the real kubectl
 * to the test cluster with workloads, `steward operator` started as a process, and the Deployments' pods run
 * as processes of this checkout (gateway, orchestrator, pool agents in cluster mode). Slow by nature (seven
 * Steward processes on two cores): one file, one cluster, the scenario in order.
 */
import { createPublicKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { verifyAgentCardSignature } from '@a2a-js/sdk';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLicenseKey } from '../../api/licensekey.js';
import { livePids, TEST_TOKEN, type TestCluster } from '../../testing/kube/index.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { REPO_ROOT } from '../../testing/kube/kubelet/images.js';
import { startOperatorInstallation, type OperatorInstallation } from './installation.js';
import { waitUntil } from '../../testing/eventually.js';

const NS = 'steward-demo';
const SIGNING_SECRET = 'quickstart-signing-secret-0123456789';
const QUICKSTART = join(REPO_ROOT, 'config/examples/quickstart');

let cluster: TestCluster;
let kubectl: Kubectl;
let install: OperatorInstallation | undefined;
let db: { url: string; drop(): Promise<void> };
let licenseKey: string;
const dir = mkdtempSync(join(tmpdir(), 'quickstart-'));
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

/** The quick-start files with the Secrets' REPLACE_ME filled in, as a user would. */
function writeQuickstart(): string {
  const out = join(dir, 'quickstart');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out);
  for (const name of readdirSync(QUICKSTART)) {
    let text = readFileSync(join(QUICKSTART, name), 'utf8');
    if (name === '01-secrets.yaml') {
      const values = [licenseKey, db.url, 'sk-quickstart-not-used'];
      text = text.replace(/: REPLACE_ME$/gm, () => `: ${values.shift()!}`);
    }
    writeFileSync(join(out, name), text);
  }
  return out;
}

/** Waits with this suite's deadline; a timeout shows what a person would look at (`diagnose`). */
const eventually = <T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false) =>
  waitUntil(what, check, { timeoutMs: 120_000, everyMs: 250, diagnose });

/** What a person would look at when the installation does not come up: pods, conditions, logs. */
async function diagnose(): Promise<string> {
  const out: string[] = [];
  out.push((await kubectl.run(['get', 'pods,deployments', '-n', NS, '-o', 'wide'])).stdout);
  for (const kind of ['orchestrators', 'agentconfigs', 'policies.steward.dev', 'licenses']) {
    out.push(
      (
        await kubectl.run([
          'get',
          kind,
          '-n',
          NS,
          '-o',
          'jsonpath={range .items[*]}{.metadata.name}{" "}{.status}{"\\n"}{end}',
        ])
      ).stdout,
    );
  }
  const pods = JSON.parse((await kubectl.run(['get', 'pods', '-n', NS, '-o', 'json'])).stdout || '{"items":[]}') as {
    items: Obj[];
  };
  for (const p of pods.items) {
    const container = p.metadata.labels?.['app.kubernetes.io/component'] ?? '';
    const log = cluster.workloads?.kubelet.logs.read(NS, p.metadata.name, container, {}) ?? '';
    out.push(`--- ${p.metadata.name} ---\n${log.slice(-1500)}`);
  }
  out.push(`--- operator ---\n${install!.operatorLog().slice(-3000)}`);
  return out.join('\n');
}

async function waitReady(kind: string): Promise<void> {
  const r = await kubectl.run(['wait', '--for=condition=Ready', kind, '--all', '-n', NS, '--timeout=240s'], {
    timeoutMs: 250_000,
  });
  if (r.code !== 0) throw new Error(`kubectl wait ${kind}: ${r.stderr}\n${await diagnose()}`);
}

async function getJson<T>(args: string[]): Promise<T> {
  return JSON.parse(await kubectl.ok([...args, '-o', 'json'])) as T;
}

type Obj = {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & {
    conditions?: { type: string; status: string; reason: string; message?: string }[];
  };
};
const condition = (o: Obj, type: string) => o.status?.conditions?.find((c) => c.type === type);

/** A pre-check sent through the API server's service proxy to the gateway Service. */
async function preCheck(
  query: string,
): Promise<{ status: number; body: { approved?: boolean; policies?: string[]; block_reason?: string } }> {
  const res = await request(
    `${cluster.url}/api/v1/namespaces/${NS}/services/steward-gateway:8080/proxy/api/policy/pre-check`,
    {
      method: 'POST',
      dispatcher: insecure,
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        'x-license-key': licenseKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ client_id: 'quickstart', user_token: 'user-1', query }),
    },
  );
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as never) : {} };
}

beforeAll(async () => {
  install = await startOperatorInstallation(SIGNING_SECRET);
  ({ cluster, kubectl, db, licenseKey } = install);
}, 120_000);

afterAll(async () => {
  await install?.close();
  rmSync(dir, { recursive: true, force: true });
  await insecure.close();
}, 120_000);

describe('the quick start on the test cluster', { timeout: 300_000 }, () => {
  it('turns the quick-start set into a Ready installation whose pods run Steward', async () => {
    await kubectl.ok(['apply', '-f', writeQuickstart()]);
    await waitReady('orchestrator');
    await waitReady('agentconfig');

    const pods = await getJson<{ items: (Obj & { status: { phase: string } })[] }>(['get', 'pods', '-n', NS]);
    const components = pods.items
      .map((p) => `${p.metadata.labels?.['app.kubernetes.io/component']} ${p.status.phase}`)
      .sort();
    expect(components).toEqual([
      'agent Running',
      'agent Running',
      'agent Running',
      'gateway Running',
      'gateway Running',
      'orchestrator Running',
    ]);
    expect(livePids().length).toBeGreaterThanOrEqual(6);

    const license = await getJson<Obj>(['get', 'license', 'demo', '-n', NS]);
    expect(license.status).toMatchObject({ valid: true, tier: 'ENT', maxNodes: 50 });
  });

  it('answers a pre-check through the gateway Service with the cluster policies in force', async () => {
    const blocked = await eventually('the custom policy to block', async () => {
      const r = await preCheck('please export all customers to a spreadsheet');
      return r.status === 200 && r.body.approved === false ? r : undefined;
    });
    expect(blocked.body.block_reason).toContain('bulk customer exports need a ticket');
    const approved = await preCheck('what is the weather in Lisbon?');
    expect([approved.status, approved.body.approved]).toEqual([200, true]);
    const policy = await eventually('the Policy to be Ready on every gateway pod', async () => {
      const p = await getJson<Obj>(['get', 'policy.steward.dev', 'no-bulk-customer-export', '-n', NS]);
      return condition(p, 'Ready')?.status === 'True' ? p : undefined;
    });
    expect((policy.status?.byPod as unknown[]).length).toBe(2);
  });

  it("shows each agent's A2A card URL in `kubectl get stwagent -o wide`, and the gateway serves it signed", async () => {
    const cardUrl = `http://steward-gateway.${NS}.svc:8080/a2a/agents/flight-search/.well-known/agent-card.json`;
    const wide = await eventually('the card URL in the AgentConfig status', async () => {
      const out = await kubectl.ok(['get', 'stwagent', 'flight-search', '-n', NS, '-o', 'wide']);
      return out.includes(cardUrl) ? out : undefined;
    });
    expect(wide.split('\n')[0]).toMatch(/\bCARD\b/);
    // The card, through the API server's service proxy, names the gateway's URL and is signed with O-internal's key.
    const res = await request(
      `${cluster.url}/api/v1/namespaces/${NS}/services/steward-gateway:8080/proxy/a2a/agents/flight-search/.well-known/agent-card.json`,
      { dispatcher: insecure, headers: { authorization: `Bearer ${TEST_TOKEN}` } },
    );
    expect(res.statusCode).toBe(200);
    const card = (await res.body.json()) as { supportedInterfaces: { url: string }[]; signatures: unknown[] };
    expect(card.supportedInterfaces[0]!.url).toBe(`http://steward-gateway.${NS}.svc:8080/a2a/agents/flight-search/`);
    const secret = await getJson<{ data: Record<string, string> }>(['get', 'secret', 'steward-internal', '-n', NS]);
    const key = createPublicKey(Buffer.from(secret.data['a2a-card-key']!, 'base64'));
    await expect(verifyAgentCardSignature(async () => key)(card as never)).resolves.toBeUndefined();
  });

  it('reports the pool: healthy agents equal the agent pods, through a pod deletion and a scale-up', async () => {
    const pool = async () =>
      (await getJson<Obj>(['get', 'orchestrator', 'steward', '-n', NS])).status?.pool as
        { desired: number; healthy: number } | undefined;
    await eventually('pool.healthy = 3', async () => ((await pool())?.healthy === 3 ? true : undefined));

    const agentPods = await getJson<{ items: Obj[] }>([
      'get',
      'pods',
      '-n',
      NS,
      '-l',
      'steward.dev/agent=flight-search',
    ]);
    await kubectl.ok(['delete', 'pod', agentPods.items[0]!.metadata.name, '-n', NS, '--wait=false']);
    await eventually('pool.healthy to drop below 3', async () => ((await pool())?.healthy ?? 3) < 3 || undefined);
    await eventually('pool.healthy back at 3', async () => ((await pool())?.healthy === 3 ? true : undefined));

    await kubectl.ok([
      'patch',
      'agentconfig',
      'trip-planner',
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      '{"spec":{"replicas":2}}',
    ]);
    await eventually('trip-planner readyReplicas = 2', async () =>
      (await getJson<Obj>(['get', 'agentconfig', 'trip-planner', '-n', NS])).status?.readyReplicas === 2
        ? true
        : undefined,
    );
    await eventually('pool desired 4 and healthy 4', async () => {
      const p = await pool();
      return p?.desired === 4 && p.healthy === 4 ? true : undefined;
    });
    const agent = await getJson<Obj>(['get', 'agentconfig', 'trip-planner', '-n', NS]);
    expect(agent.status?.healthyAgents).toBe(2);
  });

  it('keeps the previous version of a Policy in force when the new one does not compile', async () => {
    const broken = readFileSync(join(QUICKSTART, '06-policy.yaml'), 'utf8').replace(
      'deny contains "bulk customer exports need a ticket" if {',
      'deny contains "bulk" if {{',
    );
    writeFileSync(join(dir, 'broken.yaml'), broken);
    await kubectl.ok(['apply', '-f', join(dir, 'broken.yaml')]);
    const p = await eventually('Compiled=False', async () => {
      const o = await getJson<Obj>(['get', 'policy.steward.dev', 'no-bulk-customer-export', '-n', NS]);
      return condition(o, 'Compiled')?.status === 'False' ? o : undefined;
    });
    expect(condition(p, 'Compiled')?.message).toMatch(/\.rego:\d+:\d+/);
    const r = await preCheck('please export all customers to a spreadsheet');
    expect(r.body.approved).toBe(false);
    expect(r.body.block_reason).toContain('bulk customer exports need a ticket');
  });

  it('turns the Orchestrator Ready=False with LicenseInvalid when the license key expires', async () => {
    const expired = issueLicenseKey({
      tier: 'ENT',
      expiresAt: new Date(Date.now() - 86_400_000),
      secret: SIGNING_SECRET,
    });
    await kubectl
      .ok([
        'create',
        'secret',
        'generic',
        'steward-license',
        '-n',
        NS,
        `--from-literal=license-key=${expired}`,
        '--dry-run=client',
        '-o',
        'yaml',
      ])
      .then((yaml) => kubectl.ok(['apply', '-f', '-'], { stdin: yaml }));
    const o = await eventually('Ready=False LicenseInvalid', async () => {
      const orch = await getJson<Obj>(['get', 'orchestrator', 'steward', '-n', NS]);
      return condition(orch, 'Ready')?.reason === 'LicenseInvalid' ? orch : undefined;
    });
    expect(condition(o, 'Ready')?.status).toBe('False');
    expect((await getJson<Obj>(['get', 'license', 'demo', '-n', NS])).status?.valid).toBe(false);
  });
});
