import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderSource, SourceWriteError, type SourceEvent } from '../index.js';

const agentYaml = (name: string, domain = 'travel', extra = '') => `apiVersion: steward.dev/v1alpha1
kind: AgentConfig
metadata:
  name: ${name}
spec:
  type: specialist
  domain: ${domain}
  llm: { provider: openai, model: gpt-4o }
${extra}`;

let dir: string;
let source: FolderSource | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'steward-source-'));
});
afterEach(async () => {
  await source?.close();
  source = undefined;
  await rm(dir, { recursive: true, force: true });
});

function waitForEvents(
  s: FolderSource,
  predicate: (e: readonly SourceEvent[]) => boolean,
  timeoutMs = 5000,
): Promise<readonly SourceEvent[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no matching source event')), timeoutMs);
    const off = s.subscribe((events) => {
      if (!predicate(events)) return;
      clearTimeout(timer);
      off();
      resolve(events);
    });
  });
}

describe('FolderSource', () => {
  it('loads every document of multi-document files in nested folders, defaulting the namespace', async () => {
    await mkdir(join(dir, 'nested'));
    await writeFile(join(dir, 'a.yaml'), `${agentYaml('one')}---\n${agentYaml('two', 'finance')}`);
    await writeFile(join(dir, 'nested', 'b.yml'), agentYaml('three', 'generic'));
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    expect(
      source
        .list('AgentConfig')
        .map((a) => a.metadata.name)
        .sort(),
    ).toEqual(['one', 'three', 'two']);
    expect(source.get('AgentConfig', 'two')?.spec.domain).toBe('finance');
    expect(source.get('AgentConfig', 'two')?.metadata.namespace).toBe('default');
    expect(source.issues()).toEqual([]);
  });

  it('skips invalid documents and reports file, document index and field', async () => {
    await writeFile(
      join(dir, 'mixed.yaml'),
      `${agentYaml('good')}---\n${agentYaml('bad').replace('  llm: { provider: openai, model: gpt-4o }\n', '')}---\nkind: [unclosed\n`,
    );
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    expect(source.list('AgentConfig').map((a) => a.metadata.name)).toEqual(['good']);
    const issues = source.issues();
    expect(issues).toContainEqual(
      expect.objectContaining({ file: join(dir, 'mixed.yaml'), documentIndex: 1, field: 'spec.llm' }),
    );
    expect(issues).toContainEqual(expect.objectContaining({ documentIndex: 2, field: '(yaml)' }));
  });

  it('reports a missing folder instead of failing', async () => {
    source = new FolderSource({ dirs: [join(dir, 'absent')], watch: false });
    await source.ready();
    expect(source.issues()[0]).toMatchObject({ field: '(folder)', message: 'folder does not exist' });
  });

  it('reports a duplicate resource and keeps the first definition', async () => {
    await writeFile(join(dir, 'a.yaml'), agentYaml('same', 'travel'));
    await writeFile(join(dir, 'b.yaml'), agentYaml('same', 'finance'));
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    expect(source.get('AgentConfig', 'same')?.spec.domain).toBe('travel');
    expect(source.issues()[0]?.message).toContain('duplicate AgentConfig default/same');
  });

  it('ignores documents of other Kubernetes kinds in the same folder', async () => {
    await writeFile(
      join(dir, 'secret.yaml'),
      'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {k: v}\n',
    );
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    expect(source.issues()).toEqual([]);
  });

  it('reads ConfigMap documents, and tells the Policies whose wasm bundle one holds when it changes', async () => {
    const cm = (bytes: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bundles}\nbinaryData: {b: ${bytes}}\ndata: {t: text}\n`;
    const wasmPolicy = `apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata: {name: w}\nspec: {type: custom, wasm: {configMapRef: {name: bundles, key: b}, entrypoint: x/deny}}\n`;
    await writeFile(join(dir, 'cm.yaml'), cm('AGFzbQ=='));
    await writeFile(join(dir, 'p.yaml'), wasmPolicy);
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    const first = source.configMap('default', 'bundles');
    expect(first).toMatchObject({ namespace: 'default', binaryData: { b: 'AGFzbQ==' }, data: { t: 'text' } });
    expect(source.configMap('other', 'bundles')).toBeUndefined();
    const seen: SourceEvent[] = [];
    source.subscribe((events) => seen.push(...events));
    await writeFile(join(dir, 'cm.yaml'), cm('AGFzbQE='));
    await source.reload();
    expect(seen.map((e) => `${e.type} ${e.resource.kind} ${e.resource.metadata.name}`)).toEqual(['modified Policy w']);
    expect(source.configMap('default', 'bundles')?.version).not.toBe(first?.version);
  });

  it('reports a ConfigMap document Kubernetes would refuse', async () => {
    await writeFile(
      join(dir, 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\nbinaryData: {k: "no base64!"}\n',
    );
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    expect(source.issues()).toEqual([
      expect.objectContaining({ documentIndex: 0, field: 'binaryData.k', message: 'must be base64' }),
    ]);
    expect(source.configMap('default', 'b')).toBeUndefined();
  });

  it('emits added, modified and deleted events when files change on disk', async () => {
    source = new FolderSource({ dirs: [dir], watch: true, debounceMs: 20 });
    await source.ready();
    const added = waitForEvents(source, (e) => e.some((x) => x.type === 'added'));
    await writeFile(join(dir, 'a.yaml'), agentYaml('live'));
    expect((await added).map((e) => e.type)).toEqual(['added']);

    const modified = waitForEvents(source, (e) => e.some((x) => x.type === 'modified'));
    await writeFile(join(dir, 'a.yaml'), agentYaml('live', 'finance'));
    expect((await modified)[0]!.resource.spec).toMatchObject({ domain: 'finance' });

    const deleted = waitForEvents(source, (e) => e.some((x) => x.type === 'deleted'));
    await rm(join(dir, 'a.yaml'));
    expect((await deleted)[0]!.resource.metadata.name).toBe('live');
  });

  it('writes a new resource to its own file and reads it back at once', async () => {
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    await source.apply({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'no-pii' },
      spec: { type: 'pii', rego: 'package p\ndeny contains "x" if false\n' },
    } as never);
    expect(source.get('Policy', 'no-pii')?.spec).toMatchObject({ enabled: true, action: 'block' });
    expect(await readdir(dir)).toEqual(['policy-default-no-pii.yaml']);
  });

  it('rewrites one document in place inside a multi-document file, keeping the others', async () => {
    await writeFile(join(dir, 'multi.yaml'), `${agentYaml('one')}---\n${agentYaml('two')}`);
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    const two = source.get('AgentConfig', 'two')!;
    await source.apply({ ...two, spec: { ...two.spec, domain: 'healthcare' } });
    expect(source.get('AgentConfig', 'two')?.spec.domain).toBe('healthcare');
    expect(source.get('AgentConfig', 'one')?.spec.domain).toBe('travel');
    expect(await readdir(dir)).toEqual(['multi.yaml']);
    await source.delete('AgentConfig', 'one');
    expect(source.get('AgentConfig', 'one')).toBeUndefined();
    expect(await readFile(join(dir, 'multi.yaml'), 'utf8')).toContain('healthcare');
  });

  it('refuses to write an invalid resource and writes nothing', async () => {
    source = new FolderSource({ dirs: [dir], watch: false });
    await source.ready();
    const bad = {
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'AgentConfig',
      metadata: { name: 'x' },
      spec: { type: 'specialist', domain: 'travel' },
    };
    await expect(source.apply(bad as never)).rejects.toBeInstanceOf(SourceWriteError);
    expect(await readdir(dir)).toEqual([]);
  });
});
