/**
 * A Policy's mode and report end to end (issue 34): the CRDs and a small installation (two gateway pods, one
 * orchestrator pod, PostgreSQL) applied with the real kubectl to the test cluster with workloads, `steward operator`
 * as a process and the pods as processes of this checkout. A Policy in `audit` lets a pre-check through; `kubectl
 * patch` to `enforce` blocks it; `kubectl get stwpol` shows the Mode and the Violations(24h) the gateway holding the
 * Lease counted from the database (every replica's pre-checks). Slow by nature: the report is written at most once
 * a minute.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, type TestCluster } from '../../testing/kube/index.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { startOperatorInstallation, type OperatorInstallation } from './installation.js';
import { waitUntil } from '../../testing/eventually.js';

const NS = 'steward-report';
const POLICY = 'no-bulk-export';
const QUERY = 'please export all customers to a spreadsheet';
const SIGNING_SECRET = 'policy-report-signing-secret-0123456789';

let cluster: TestCluster;
let kubectl: Kubectl;
let install: OperatorInstallation | undefined;
let db: { url: string; drop(): Promise<void> };
let licenseKey: string;
const dir = mkdtempSync(join(tmpdir(), 'policy-report-'));
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

const manifests = (): string => `
apiVersion: v1
kind: Namespace
metadata: { name: ${NS} }
---
apiVersion: v1
kind: Secret
metadata: { name: steward-license, namespace: ${NS} }
stringData: { license-key: "${licenseKey}" }
---
apiVersion: v1
kind: Secret
metadata: { name: steward-db, namespace: ${NS} }
stringData: { url: "${db.url}" }
---
apiVersion: steward.dev/v1alpha1
kind: License
metadata: { name: demo, namespace: ${NS} }
spec: { organizationId: demo, keySecretRef: { name: steward-license, key: license-key } }
---
apiVersion: steward.dev/v1alpha1
kind: Orchestrator
metadata: { name: steward, namespace: ${NS} }
spec:
  image: { repository: ghcr.io/steward-dev/steward, tag: "0.1.0" }
  gateway: { replicas: 2 }
  orchestrator: { replicas: 1 }
  licenseRef: { name: demo }
  database: { secretRef: { name: steward-db, key: url } }
---
apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: { name: ${POLICY}, namespace: ${NS} }
spec:
  type: custom
  priority: 500
  action: block
  enforcementAction: audit
  rego: |
    package steward.report.export

    deny contains "bulk customer exports need a ticket" if {
        q := lower(input.query)
        contains(q, "export")
        contains(q, "all customers")
    }
`;

/** Waits with this suite's deadline; a timeout shows what a person would look at (`diagnose`). */
const eventually = <T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false) =>
  waitUntil(what, check, { timeoutMs: 180_000, everyMs: 500, diagnose });

/** What a person would look at: pods, the Policy, the gateway logs, the operator's. */
async function diagnose(): Promise<string> {
  const out = [(await kubectl.run(['get', 'pods,stwpol', '-n', NS, '-o', 'wide'])).stdout];
  const pods = JSON.parse((await kubectl.run(['get', 'pods', '-n', NS, '-o', 'json'])).stdout || '{"items":[]}') as {
    items: { metadata: { name: string; labels?: Record<string, string> } }[];
  };
  for (const p of pods.items) {
    const container = p.metadata.labels?.['app.kubernetes.io/component'] ?? '';
    const log = cluster.workloads?.kubelet.logs.read(NS, p.metadata.name, container, {}) ?? '';
    out.push(`--- ${p.metadata.name} ---\n${log.slice(-1500)}`);
  }
  out.push(`--- operator ---\n${install!.operatorLog().slice(-2000)}`);
  return out.join('\n');
}

/** Pre-checks sent, each an audit-mode would-be block or a block: the violations the report must count. */
let sent = 0;

/** A pre-check through the API server's service proxy to the gateway Service (either pod). */
async function preCheck(): Promise<{ status: number; approved?: boolean; block_reason?: string }> {
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
      body: JSON.stringify({ client_id: 'reports', user_token: 'user-1', query: QUERY }),
    },
  );
  const text = await res.body.text();
  const body = text ? (JSON.parse(text) as { approved?: boolean; block_reason?: string }) : {};
  if (res.statusCode === 200) sent++;
  return { status: res.statusCode, ...body };
}

/** `kubectl get stwpol NAME` as a person reads it: column name → value. */
async function columns(): Promise<Record<string, string>> {
  const out = await kubectl.ok(['get', 'stwpol', POLICY, '-n', NS]);
  const [head, row] = out.trim().split('\n');
  // NB: columns are split on runs of two spaces or more: kubectl pads them so; an empty value shows as <none>.
  const names = head!.trim().split(/\s{2,}/);
  const values = row!.trim().split(/\s{2,}/);
  return Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
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

describe('a Policy switched from audit to enforce', { timeout: 420_000 }, () => {
  it('lets the pre-check through under audit, blocks it once patched to enforce, and reports both', async () => {
    writeFileSync(join(dir, 'installation.yaml'), manifests());
    await kubectl.ok(['apply', '-f', join(dir, 'installation.yaml')]);

    const audited = await eventually('a pre-check answered with the Policy in force (audit)', async () => {
      const r = await preCheck();
      return r.status === 200 ? r : undefined;
    });
    expect(audited.approved).toBe(true);
    expect((await columns()).MODE).toBe('audit');

    await kubectl.ok([
      'patch',
      'stwpol',
      POLICY,
      '-n',
      NS,
      '--type',
      'merge',
      '-p',
      '{"spec":{"enforcementAction":"enforce"}}',
    ]);
    const blocked = await eventually('the pre-check to be blocked on every gateway pod', async () => {
      const r = await preCheck();
      return r.status === 200 && r.approved === false ? r : undefined;
    });
    expect(blocked.block_reason).toContain('bulk customer exports need a ticket');
    // NB: the Service picks a pod per request: a few more make sure both pods enforce the new generation.
    for (let i = 0; i < 4; i++) expect((await preCheck()).approved).toBe(false);

    // Every pre-check sent was a violation: the audited ones would have blocked, the others blocked.
    const shown = await eventually(`Violations(24h) = ${sent}`, async () => {
      const c = await columns();
      return c['VIOLATIONS(24H)'] === String(sent) ? c : undefined;
    });
    expect(shown).toMatchObject({ NAME: POLICY, MODE: 'enforce', ACTION: 'block' });
    const status = JSON.parse(await kubectl.ok(['get', 'stwpol', POLICY, '-n', NS, '-o', 'jsonpath={.status.report}']));
    expect(status.last24h).toMatchObject({ evaluations: sent, violations: sent });
    expect(status.last24h.byDecision.block + status.last24h.byDecision.audit).toBe(sent);
    expect(status.last24h.byDecision.block).toBeGreaterThanOrEqual(5);
    expect(status.last24h.byDecision.audit).toBeGreaterThanOrEqual(1);
  });
});
