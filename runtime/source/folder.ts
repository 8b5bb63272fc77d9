import { createHash } from 'node:crypto';
import { Serial } from '../../platform/serial.js';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { validateManifest, type AnyResource, type KindName, type ResourceByKind } from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import { parseManifestFile } from './parse.js';
import {
  DEFAULT_NAMESPACE,
  type ConfigMapData,
  type DeclarativeSource,
  type LoadIssue,
  type Origin,
  type SourceEvent,
  type SourceListener,
} from './types.js';

const MANIFEST_EXT = new Set(['.yaml', '.yml', '.json']);

interface Entry {
  resource: AnyResource;
  origin: Origin;
}

export interface FolderSourceOptions {
  /** Folders read recursively; a missing one is reported, not fatal. */
  dirs: readonly string[];
  /** Where new resources written through the API go. @default the first folder */
  writeDir?: string;
  /** Re-read on changes. @default true */
  watch?: boolean;
  /** Coalesces bursts of file events (editors write several). @default 100 ms */
  debounceMs?: number;
  log?: Logger;
}

export class SourceWriteError extends Error {
  constructor(
    message: string,
    readonly issues: { field: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'SourceWriteError';
  }
}

const keyOf = (kind: string, namespace: string | undefined, name: string) =>
  `${kind}/${namespace ?? DEFAULT_NAMESPACE}/${name}`;

/** Declarative state from folders of YAML manifests, watched for changes. Used by standalone mode. */
export class FolderSource implements DeclarativeSource {
  private entries = new Map<string, Entry>();
  /** `v1 ConfigMap` documents of the folders, by `namespace/name` (wasm bundles of `spec.wasm.configMapRef`). */
  private configMaps = new Map<string, ConfigMapData>();
  private loadIssues: LoadIssue[] = [];
  private readonly listeners = new Set<SourceListener>();
  private readonly watchers: FSWatcher[] = [];
  private readonly dirs: string[];
  private readonly writeDir: string;
  private readonly initial: Promise<void>;
  private reloadTimer: NodeJS.Timeout | undefined;
  /** Reloads and writes, one at a time, so that a write never interleaves with a reload. */
  private readonly queue = new Serial();
  private closed = false;

  constructor(private readonly options: FolderSourceOptions) {
    this.dirs = options.dirs.map((d) => resolve(d));
    this.writeDir = resolve(options.writeDir ?? options.dirs[0] ?? '.');
    this.initial = this.queue
      .run(() => this.load())
      .then(() => {
        if (options.watch ?? true) this.startWatching();
      });
  }

  ready(): Promise<void> {
    return this.initial;
  }

  list<K extends KindName>(kind: K, namespace?: string): ResourceByKind[K][] {
    const out: ResourceByKind[K][] = [];
    for (const { resource } of this.entries.values()) {
      if (resource.kind === kind && (namespace === undefined || resource.metadata.namespace === namespace)) {
        out.push(resource as ResourceByKind[K]);
      }
    }
    return out;
  }

  get<K extends KindName>(kind: K, name: string, namespace?: string): ResourceByKind[K] | undefined {
    return this.entries.get(keyOf(kind, namespace, name))?.resource as ResourceByKind[K] | undefined;
  }

  /** A `v1 ConfigMap` document of the folders. */
  configMap(namespace: string, name: string): ConfigMapData | undefined {
    return this.configMaps.get(`${namespace}/${name}`);
  }

  /** Where a resource was read from. */
  originOf(kind: KindName, name: string, namespace?: string): Origin | undefined {
    return this.entries.get(keyOf(kind, namespace, name))?.origin;
  }

  issues(): readonly LoadIssue[] {
    return this.loadIssues;
  }

  reload(): Promise<void> {
    return this.queue.run(() => this.load());
  }

  subscribe(listener: SourceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async apply(resource: AnyResource): Promise<AnyResource> {
    const result = validateManifest(resource);
    if (!result.valid || !result.resource) throw new SourceWriteError('invalid resource', result.errors);
    const valid = result.resource;
    valid.metadata.namespace ??= DEFAULT_NAMESPACE;
    return this.queue.run(async () => {
      const existing = this.entries.get(keyOf(valid.kind, valid.metadata.namespace, valid.metadata.name));
      if (existing) await this.rewriteDocument(existing.origin, valid);
      else await this.writeNewFile(valid);
      await this.load();
      return this.get(valid.kind as KindName, valid.metadata.name, valid.metadata.namespace) ?? valid;
    });
  }

  async delete(kind: KindName, name: string, namespace?: string): Promise<boolean> {
    return this.queue.run(async () => {
      const existing = this.entries.get(keyOf(kind, namespace, name));
      if (!existing) return false;
      await this.rewriteDocument(existing.origin, undefined);
      await this.load();
      return true;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reloadTimer);
    for (const w of this.watchers) w.close();
    await this.queue.idle();
  }

  private startWatching(): void {
    for (const dir of this.dirs) {
      try {
        const w = watch(dir, { recursive: true }, () => this.scheduleReload());
        w.on('error', (err) => this.options.log?.warn({ err, dir }, 'manifest watch failed'));
        this.watchers.push(w);
      } catch (err) {
        this.options.log?.warn({ err, dir }, 'manifest folder cannot be watched');
      }
    }
  }

  private scheduleReload(): void {
    if (this.closed) return;
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      void this.queue.run(() => this.load()).catch((err) => this.options.log?.error({ err }, 'manifest reload failed'));
    }, this.options.debounceMs ?? 100);
  }

  private async load(): Promise<void> {
    const next = new Map<string, Entry>();
    const configMaps = new Map<string, ConfigMapData>();
    const issues: LoadIssue[] = [];
    for (const dir of this.dirs) {
      const files = await listManifestFiles(dir).catch((err: NodeJS.ErrnoException) => {
        issues.push({
          file: dir,
          documentIndex: 0,
          field: '(folder)',
          message: err.code === 'ENOENT' ? 'folder does not exist' : err.message,
        });
        return [] as string[];
      });
      for (const file of files) {
        const text = await readFile(file, 'utf8').catch(() => undefined);
        if (text === undefined) continue; // removed between listing and reading
        const parsed = parseManifestFile(file, text);
        issues.push(...parsed.issues);
        for (const { configMap, documentIndex } of parsed.configMaps) {
          const key = `${configMap.namespace}/${configMap.name}`;
          if (configMaps.has(key))
            issues.push({ file, documentIndex, field: 'metadata.name', message: `duplicate ConfigMap ${key}` });
          else configMaps.set(key, { ...configMap, version: contentVersion(configMap) });
        }
        for (const { resource, documentIndex, warnings } of parsed.resources) {
          for (const w of warnings) this.options.log?.warn(w, 'manifest warning');
          const key = keyOf(resource.kind, resource.metadata.namespace, resource.metadata.name);
          const first = next.get(key);
          if (first) {
            issues.push({
              file,
              documentIndex,
              field: 'metadata.name',
              message: `duplicate ${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}; first defined in ${first.origin.file} document ${first.origin.documentIndex}`,
            });
            continue;
          }
          next.set(key, { resource, origin: { file, documentIndex } });
        }
      }
    }
    for (const issue of issues) this.options.log?.warn(issue, 'manifest skipped');
    const events = diff(this.entries, next);
    events.push(...referencing(next, changedKeys(this.configMaps, configMaps), events));
    this.entries = next;
    this.configMaps = configMaps;
    this.loadIssues = issues;
    if (events.length) for (const l of this.listeners) l(events);
  }

  private async writeNewFile(resource: AnyResource): Promise<void> {
    await mkdir(this.writeDir, { recursive: true });
    const file = join(
      this.writeDir,
      `${resource.kind.toLowerCase()}-${resource.metadata.namespace}-${resource.metadata.name}.yaml`,
    );
    await atomicWrite(file, stringify(resource));
  }

  /** Replaces (or removes, when `resource` is undefined) one document of a possibly multi-document file. */
  private async rewriteDocument(origin: Origin, resource: AnyResource | undefined): Promise<void> {
    const text = await readFile(origin.file, 'utf8');
    const docs = parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [docs];
    const kept = list.map((d) => String(d)).filter((_, i) => i !== origin.documentIndex || resource !== undefined);
    if (resource !== undefined) kept[origin.documentIndex] = stringify(resource);
    if (kept.every((d) => d.trim() === '' || d.trim() === 'null')) {
      await unlink(origin.file);
      return;
    }
    const body =
      origin.file.endsWith('.json') && kept.length === 1 && resource
        ? `${JSON.stringify(resource, null, 2)}\n`
        : kept.join('---\n');
    await atomicWrite(origin.file, body);
  }
}

async function listManifestFiles(dir: string): Promise<string[]> {
  const info = await stat(dir);
  if (!info.isDirectory()) return MANIFEST_EXT.has(extname(dir)) ? [dir] : [];
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue; // editor swap files, our own temp files
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listManifestFiles(path)));
    else if (entry.isFile() && MANIFEST_EXT.has(extname(entry.name))) out.push(path);
  }
  return out.sort();
}

async function atomicWrite(file: string, content: string): Promise<void> {
  const tmp = join(resolve(file, '..'), `.${Date.now()}-${Math.random().toString(36).slice(2)}.tmp`);
  await writeFile(tmp, content);
  await rename(tmp, file);
}

function diff(prev: Map<string, Entry>, next: Map<string, Entry>): SourceEvent[] {
  const events: SourceEvent[] = [];
  for (const [key, entry] of next) {
    const old = prev.get(key);
    if (!old) events.push({ type: 'added', resource: entry.resource });
    else if (!isDeepStrictEqual(old.resource, entry.resource))
      events.push({ type: 'modified', resource: entry.resource });
  }
  for (const [key, entry] of prev) if (!next.has(key)) events.push({ type: 'deleted', resource: entry.resource });
  return events;
}

function contentVersion(c: Pick<ConfigMapData, 'data' | 'binaryData'>): string {
  return createHash('sha256')
    .update(JSON.stringify([c.data, c.binaryData]))
    .digest('hex')
    .slice(0, 16);
}

/** `namespace/name` of the ConfigMaps that appeared, went or changed. */
function changedKeys(prev: Map<string, ConfigMapData>, next: Map<string, ConfigMapData>): Set<string> {
  const out = new Set<string>();
  for (const [key, c] of next) if (prev.get(key)?.version !== c.version) out.add(key);
  for (const key of prev.keys()) if (!next.has(key)) out.add(key);
  return out;
}

/** A modification of each Policy whose wasm bundle is in a changed ConfigMap, unless it has an event already. */
function referencing(entries: Map<string, Entry>, changed: Set<string>, events: SourceEvent[]): SourceEvent[] {
  if (!changed.size) return [];
  const out: SourceEvent[] = [];
  for (const { resource: r } of entries.values()) {
    const ref = r.kind === 'Policy' ? r.spec.wasm?.configMapRef?.name : undefined;
    if (ref === undefined || !changed.has(`${r.metadata.namespace ?? DEFAULT_NAMESPACE}/${ref}`)) continue;
    const same = (e: SourceEvent) =>
      e.resource.kind === r.kind &&
      e.resource.metadata.name === r.metadata.name &&
      e.resource.metadata.namespace === r.metadata.namespace;
    if (!events.some(same)) out.push({ type: 'modified', resource: r });
  }
  return out;
}
