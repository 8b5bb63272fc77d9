import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentConfigResource } from '../../../../api/index.js';
import { FolderSource } from '../../../source/index.js';
import { AgentPool } from '../pool.js';
import { StandaloneSource } from '../standalone-source.js';
import { FakeAgent, item, until } from './fakes.js';

const agentYaml = (name: string, replicas: number, labels = '') => `apiVersion: steward.dev/v1alpha1
kind: AgentConfig
metadata:
  name: ${name}
${labels ? `  labels: ${labels}\n` : ''}spec:
  type: specialist
  domain: travel
  llm: { provider: openai, model: gpt-4o }
  replicas: ${replicas}
`;

const orchestratorYaml = (selector: string) => `apiVersion: steward.dev/v1alpha1
kind: Orchestrator
metadata:
  name: main
spec:
  agentPool:
    selector: ${selector}
`;

let dir: string;
let folder: FolderSource;
let pool: AgentPool | undefined;
let created: FakeAgent[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-pool-'));
  created = [];
});
afterEach(async () => {
  await pool?.close();
  pool = undefined;
  await folder?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The in-process agent factory standalone passes; here each replica is a FakeAgent named after it. */
const factory = (config: AgentConfigResource, replica: number) => {
  const agent = new FakeAgent(`${config.metadata.name}-${replica}`, 2);
  created.push(agent);
  return agent;
};

async function startFrom(dirs: string[]): Promise<AgentPool> {
  folder = new FolderSource({ dirs, watch: false });
  await folder.ready();
  expect(folder.issues()).toEqual([]);
  pool = await AgentPool.start({ source: new StandaloneSource({ source: folder, factory }) });
  return pool;
}

const keys = (p: AgentPool) =>
  p
    .members()
    .map((m) => m.key)
    .sort();
const agentNamed = (id: string) => created.filter((a) => a.id === id);

async function setReplicas(name: string, replicas: number): Promise<void> {
  const current = folder.get('AgentConfig', name)!;
  await folder.apply({ ...current, spec: { ...current.spec, replicas } });
}

describe('StandaloneSource', () => {
  it('runs spec.replicas in-process agents for every AgentConfig of the samples', async () => {
    const samples = fileURLToPath(new URL('../../../../config/samples', import.meta.url));
    const p = await startFrom([samples]);
    const replicas = folder.list('AgentConfig').reduce((n, c) => n + c.spec.replicas, 0);
    expect(replicas).toBeGreaterThan(0);
    expect(p.status()).toEqual({ desired: replicas, available: replicas, healthy: replicas, unhealthy: 0 });
    expect(p.members().every((m) => m.kind === 'in-process' && m.agentConfig?.startsWith('default/'))).toBe(true);
  });

  it('follows replica changes: more replicas join, the highest ones leave and are closed', async () => {
    await writeFile(join(dir, 'agents.yaml'), `${agentYaml('planner', 2)}---\n${agentYaml('booker', 1)}`);
    const p = await startFrom([dir]);
    expect(keys(p)).toEqual(['default/booker#0', 'default/planner#0', 'default/planner#1']);

    await setReplicas('planner', 3);
    await until(() => p.status().available === 4, 'a third planner');
    expect(p.status()).toEqual({ desired: 4, available: 4, healthy: 4, unhealthy: 0 });

    await setReplicas('planner', 1);
    await until(() => p.status().available === 2, 'one planner left');
    expect(keys(p)).toEqual(['default/booker#0', 'default/planner#0']);
    expect(agentNamed('planner-1')[0]?.closed).toBe(true);
    expect(agentNamed('planner-2')[0]?.closed).toBe(true);
    expect(agentNamed('planner-0')[0]?.closed).toBe(false);
    expect(p.status().desired).toBe(2);
  });

  it('replaces the agents of an AgentConfig whose spec changed, after their items finish', async () => {
    await writeFile(join(dir, 'agents.yaml'), agentYaml('planner', 1));
    const p = await startFrom([dir]);
    const running = p.dispatch(item('q'));
    const [old] = created;
    await until(() => old!.pending.length === 1, 'the item runs on the first agent');

    const current = folder.get('AgentConfig', 'planner')!;
    await folder.apply({
      ...current,
      spec: { ...current.spec, llm: { provider: 'anthropic', model: 'claude-sonnet-4-5' } },
    });
    await until(() => created.length === 2, 'a new agent for the new spec');
    expect(old!.closed).toBe(false);
    old!.finish();
    await expect(running).resolves.toMatchObject({ result: { agentId: 'planner-0' } });
    await until(() => old!.closed, 'the old agent is closed');
    expect(p.members()).toHaveLength(1);
    expect(p.members()[0]!.stats).toMatchObject({ queriesProcessed: 0 });
  });

  it('removes the agents of a deleted AgentConfig', async () => {
    await writeFile(join(dir, 'agents.yaml'), `${agentYaml('planner', 2)}---\n${agentYaml('booker', 1)}`);
    const p = await startFrom([dir]);
    await folder.delete('AgentConfig', 'planner');
    await until(() => p.status().available === 1, 'only booker left');
    expect(p.status()).toEqual({ desired: 1, available: 1, healthy: 1, unhealthy: 0 });
    expect(created.filter((a) => a.id.startsWith('planner-')).every((a) => a.closed)).toBe(true);
  });

  it("takes only the AgentConfigs the Orchestrator's agentPool.selector selects, following label changes", async () => {
    await writeFile(
      join(dir, 'agents.yaml'),
      `${agentYaml('planner', 2, '{pool: main}')}---\n${agentYaml('booker', 1)}`,
    );
    await writeFile(join(dir, 'orchestrator.yaml'), orchestratorYaml('{matchLabels: {pool: main}}'));
    const p = await startFrom([dir]);
    expect(keys(p)).toEqual(['default/planner#0', 'default/planner#1']);
    expect(p.status().desired).toBe(2);

    const booker = folder.get('AgentConfig', 'booker')!;
    await folder.apply({ ...booker, metadata: { ...booker.metadata, labels: { pool: 'main' } } });
    await until(() => p.status().available === 3, 'booker joins');
    expect(p.status()).toEqual({ desired: 3, available: 3, healthy: 3, unhealthy: 0 });
  });
});
