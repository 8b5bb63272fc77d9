import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyResource, PolicyResource } from '../../../api/index.js';
import {
  builtinPackDir,
  FolderSource,
  LayeredSource,
  withBuiltinPack,
  type DeclarativeSource,
  type SourceEvent,
} from '../index.js';

const NS = 'team';

const policyYaml = (
  name: string,
  opts: { namespace?: string; priority?: number } = {},
) => `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata:
  name: ${name}
${opts.namespace ? `  namespace: ${opts.namespace}\n` : ''}spec:
  type: custom
  priority: ${opts.priority ?? 100}
  rego: "package ${name.replace(/-/g, '_')}\\n"
`;

const policy = (name: string, priority: number): AnyResource =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'Policy',
    metadata: { name, namespace: NS },
    spec: { type: 'custom', priority, rego: 'package override\n' },
  }) as unknown as AnyResource;

let dir: string;
let layered: LayeredSource | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-layered-'));
  await mkdir(join(dir, 'base'));
  await mkdir(join(dir, 'top'));
});
afterEach(async () => {
  await layered?.close();
  layered = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A pack of `pack-a` and `pack-b` (no namespace) under a top folder of namespace `team` holding `own`. */
async function start(): Promise<{ top: FolderSource; base: FolderSource; events: string[] }> {
  await writeFile(
    join(dir, 'base', 'pack.yaml'),
    `${policyYaml('pack-a', { priority: 1 })}---\n${policyYaml('pack-b', { priority: 2 })}`,
  );
  await writeFile(join(dir, 'top', 'own.yaml'), policyYaml('own', { namespace: NS, priority: 3 }));
  const base = new FolderSource({ dirs: [join(dir, 'base')], watch: false });
  const top = new FolderSource({ dirs: [join(dir, 'top')], watch: false });
  layered = new LayeredSource({ base, top, namespace: NS });
  await layered.ready();
  const events: string[] = [];
  layered.subscribe((batch) => events.push(...batch.map(describeEvent)));
  return { top, base, events };
}

const describeEvent = (e: SourceEvent) =>
  `${e.type} ${e.resource.metadata.namespace}/${e.resource.metadata.name} ${(e.resource as PolicyResource).spec.priority}`;
const names = (s: DeclarativeSource, namespace?: string) =>
  s.list('Policy', namespace).map((p) => `${p.metadata.namespace}/${p.metadata.name}`);

describe('LayeredSource', () => {
  it("lists the top's documents, then the base's, shown in the top's namespace", async () => {
    await start();
    expect(names(layered!)).toEqual(['team/own', 'team/pack-a', 'team/pack-b']);
    expect(names(layered!, NS)).toEqual(['team/own', 'team/pack-a', 'team/pack-b']);
    expect(names(layered!, 'default')).toEqual([]);
    expect(layered!.get('Policy', 'pack-a')?.metadata.namespace).toBe(NS);
    expect(layered!.get('Policy', 'pack-a', NS)?.spec.priority).toBe(1);
    expect(layered!.get('Policy', 'pack-a', 'default')).toBeUndefined();
    expect(layered!.list('Connector')).toEqual([]);
  });

  it('hides a base document under a top one of the same name, and announces the change as a modification', async () => {
    const { top, events } = await start();
    await layered!.apply(policy('pack-a', 50));
    expect(events).toEqual(['modified team/pack-a 50']);
    expect(layered!.get('Policy', 'pack-a')?.spec.priority).toBe(50);
    expect(names(layered!)).toEqual(['team/own', 'team/pack-a', 'team/pack-b']);
    // The write went to the top.
    expect(top.get('Policy', 'pack-a', NS)?.spec.priority).toBe(50);
  });

  it('brings the base document back, as a modification, when the top one over it is deleted', async () => {
    const { events } = await start();
    await layered!.apply(policy('pack-a', 50));
    events.length = 0;
    expect(await layered!.delete('Policy', 'pack-a', NS)).toBe(true);
    expect(events).toEqual(['modified team/pack-a 1']);
    expect(layered!.get('Policy', 'pack-a')?.spec.priority).toBe(1);
  });

  it("passes the top's other events through, and answers false to deleting a name only the base holds", async () => {
    const { events } = await start();
    await layered!.apply(policy('mine', 9));
    await layered!.apply(policy('mine', 10));
    expect(await layered!.delete('Policy', 'mine')).toBe(true);
    expect(await layered!.delete('Policy', 'pack-b')).toBe(false);
    expect(events).toEqual(['added team/mine 9', 'modified team/mine 10', 'deleted team/mine 10']);
    expect(layered!.get('Policy', 'pack-b')).toBeDefined();
  });

  it("forwards the base's events only for names the top does not hide", async () => {
    const { base, events } = await start();
    await layered!.apply(policy('pack-a', 50));
    events.length = 0;
    await writeFile(
      join(dir, 'base', 'pack.yaml'),
      `${policyYaml('pack-a', { priority: 11 })}---\n${policyYaml('pack-c', { priority: 12 })}`,
    );
    await base.reload();
    expect(events.sort()).toEqual(['added team/pack-c 12', 'deleted team/pack-b 2']);
    expect(layered!.get('Policy', 'pack-a')?.spec.priority).toBe(50);
    await layered!.delete('Policy', 'pack-a');
    expect(layered!.get('Policy', 'pack-a')?.spec.priority).toBe(11);
  });

  it("reports both layers' issues", async () => {
    await writeFile(join(dir, 'base', 'broken.yaml'), 'kind: [unclosed\n');
    await writeFile(join(dir, 'top', 'broken.yaml'), 'kind: [unclosed\n');
    await start();
    expect(layered!.issues().map((i) => i.file)).toEqual([
      join(dir, 'top', 'broken.yaml'),
      join(dir, 'base', 'broken.yaml'),
    ]);
  });
});

describe('withBuiltinPack', () => {
  it('puts the built-in pack under the top, or leaves the top alone when it is disabled', async () => {
    const top = Object.assign(new FolderSource({ dirs: [join(dir, 'top')], watch: false }), { namespace: 'default' });
    expect(withBuiltinPack(top, { enabled: false })).toBe(top);
    const source = withBuiltinPack(top, { enabled: true, dir: builtinPackDir() });
    await source.ready();
    expect(source.get('Policy', 'builtin-pii')?.metadata.labels).toMatchObject({ 'steward.dev/pack': 'builtin' });
    await source.close();
  });
});
