/**
 * Declarative state in two layers: a read-only base (the built-in policy pack, files of the image) under a
 * writable top (the namespace's resources). A document of the top hides the base's document of the same kind and
 * name, as a user's manifest folder does in standalone mode (`manifestFolders`): deleting it brings the base's back.
 */
import { KIND_NAMES, type AnyResource, type KindName, type ResourceByKind } from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import { FolderSource } from './folder.js';
import { builtinPackDir } from './folders.js';
import type { ConfigMapData, DeclarativeSource, LoadIssue, SourceEvent, SourceListener } from './types.js';

export interface LayeredSourceOptions {
  /** Documents under the top; never written. */
  base: DeclarativeSource;
  /** Where reads look first and where every write goes. */
  top: DeclarativeSource;
  /**
   * The one namespace of the top. The base's documents are shown in it, whatever namespace they name (the pack's
   * name none), so that a top document of the same kind and name overrides them.
   */
  namespace: string;
  log?: Logger;
}

const keyOf = (kind: string, name: string) => `${kind}/${name}`;

export class LayeredSource implements DeclarativeSource {
  /** The base's documents moved to the top's namespace, by kind and name (refreshed on the base's events). */
  private baseDocs = new Map<string, AnyResource>();
  private readonly listeners = new Set<SourceListener>();
  private readonly unsubscribe: (() => void)[];
  readonly reload?: () => Promise<void>;

  constructor(private readonly opts: LayeredSourceOptions) {
    this.refreshBase();
    this.unsubscribe = [
      opts.top.subscribe((events) => this.onTop(events)),
      opts.base.subscribe((events) => this.onBase(events)),
    ];
    const { base, top } = opts;
    if (base.reload || top.reload)
      this.reload = async () => void (await Promise.all([base.reload?.(), top.reload?.()]));
  }

  get namespace(): string {
    return this.opts.namespace;
  }

  async ready(): Promise<void> {
    await Promise.all([this.opts.base.ready(), this.opts.top.ready()]);
    this.refreshBase();
  }

  /** The top's documents, then the base's that no top document hides. */
  list<K extends KindName>(kind: K, namespace?: string): ResourceByKind[K][] {
    const top = this.opts.top.list(kind, namespace);
    if (namespace !== undefined && namespace !== this.opts.namespace) return top;
    const out = [...top];
    for (const r of this.baseDocs.values()) {
      if (r.kind === kind && !this.inTop(kind, r.metadata.name)) out.push(r as ResourceByKind[K]);
    }
    return out;
  }

  get<K extends KindName>(kind: K, name: string, namespace?: string): ResourceByKind[K] | undefined {
    const top = this.opts.top.get(kind, name, namespace ?? this.opts.namespace);
    if (top || (namespace !== undefined && namespace !== this.opts.namespace)) return top;
    return this.baseDocs.get(keyOf(kind, name)) as ResourceByKind[K] | undefined;
  }

  /** The top's: the base (the image's policy pack) references none. */
  configMap(namespace: string, name: string): ConfigMapData | undefined {
    return this.opts.top.configMap?.(namespace, name);
  }

  issues(): readonly LoadIssue[] {
    return [...this.opts.top.issues(), ...this.opts.base.issues()];
  }

  subscribe(listener: SourceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Writes to the top: applying a base document's name creates the override. */
  apply(resource: AnyResource): Promise<AnyResource> {
    return this.opts.top.apply(resource);
  }

  /** Deletes from the top only: a name only the base holds answers false, as an unknown name does. */
  delete(kind: KindName, name: string, namespace?: string): Promise<boolean> {
    return this.opts.top.delete(kind, name, namespace ?? this.opts.namespace);
  }

  async close(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    await Promise.all([this.opts.top.close(), this.opts.base.close()]);
  }

  private inTop(kind: KindName, name: string): boolean {
    return this.opts.top.get(kind, name, this.opts.namespace) !== undefined;
  }

  private refreshBase(): void {
    const next = new Map<string, AnyResource>();
    for (const kind of KIND_NAMES) {
      for (const r of this.opts.base.list(kind)) {
        const key = keyOf(kind, r.metadata.name);
        // NB: of two base documents of one name in different namespaces, the first is shown, as a folder keeps the first.
        if (!next.has(key))
          next.set(key, { ...r, metadata: { ...r.metadata, namespace: this.opts.namespace } } as AnyResource);
      }
    }
    this.baseDocs = next;
  }

  /**
   * A top event is relative to the top's previous state; over a base document of the same name, the name stays
   * present: its creation and its deletion are modifications (to the top's document, back to the base's).
   */
  private onTop(events: readonly SourceEvent[]): void {
    const out: SourceEvent[] = [];
    for (const e of events) {
      const { kind, metadata } = e.resource;
      if (metadata.namespace !== undefined && metadata.namespace !== this.opts.namespace) {
        out.push(e);
        continue;
      }
      const under = this.baseDocs.get(keyOf(kind, metadata.name));
      if (!under) out.push(e);
      else if (e.type === 'deleted') out.push({ type: 'modified', resource: under });
      else out.push({ type: 'modified', resource: e.resource });
    }
    this.emit(out);
  }

  /** A base event reaches listeners only for names the top does not hide. */
  private onBase(events: readonly SourceEvent[]): void {
    this.refreshBase();
    const out: SourceEvent[] = [];
    for (const e of events) {
      const kind = e.resource.kind as KindName;
      const name = e.resource.metadata.name;
      if (this.inTop(kind, name)) continue;
      const shown = this.baseDocs.get(keyOf(kind, name));
      if (shown) out.push({ type: e.type === 'deleted' ? 'modified' : e.type, resource: shown });
      else if (e.type === 'deleted')
        out.push({
          type: 'deleted',
          resource: {
            ...e.resource,
            metadata: { ...e.resource.metadata, namespace: this.opts.namespace },
          } as AnyResource,
        });
    }
    this.emit(out);
  }

  private emit(events: SourceEvent[]): void {
    if (!events.length) return;
    for (const l of this.listeners) {
      try {
        l(events);
      } catch (err) {
        this.opts.log?.error({ err }, 'source listener failed');
      }
    }
  }
}

export interface BuiltinPackOptions {
  /** STEWARD_BUILTIN_POLICY_PACK === 'enabled' */
  enabled: boolean;
  /** @default builtinPackDir() */
  dir?: string;
  log?: Logger;
}

/**
 * The declarative state a cluster runtime reads: the namespace's resources over the built-in policy pack, or the
 * resources alone when the pack is disabled. The pack's folder is read once (the image's files do not change).
 */
export function withBuiltinPack(
  top: DeclarativeSource & { readonly namespace: string },
  pack: BuiltinPackOptions,
): DeclarativeSource {
  if (!pack.enabled) return top;
  const base = new FolderSource({ dirs: [pack.dir ?? builtinPackDir()], watch: false, log: pack.log });
  return new LayeredSource({ base, top, namespace: top.namespace, log: pack.log });
}
