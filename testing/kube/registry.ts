/**
 * The resource registry: every served group/version/resource with its names, scope, verbs,
 * subresources, schema and behaviour. Built-in kinds are registered at start; each Established CRD adds
 * (and its deletion removes) its versions. Discovery, OpenAPI, routing and storage all read from here.
 *
 * The PATCH helper reads kind information through `describeKind` / `lookup`.
 */
import type { JSONSchemaProps, JsonObject } from './schema/types.js';
import type { FieldError } from './status-errors.js';

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
  /** CR columns: a JSONPath into the object. Built-in columns use `cell` instead. */
  jsonPath?: string;
  /** Built-in columns: computes the cell from the object and the current time. */
  cell?: (obj: JsonObject, nowMs: number) => unknown;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** What strategies may read from the server (its clock). */
export interface StrategyContext {
  /** RFC 3339 time with second precision, as metav1.Time serializes. */
  now(): string;
}

/** Per-kind behaviour that the real server keeps in each registry strategy. */
export interface Strategy {
  /** Reset server-owned fields on create (status for kinds with a status subresource, ...). */
  prepareForCreate?(obj: JsonObject, ctx: StrategyContext): void;
  /** Adjust an update of the main resource (`newObj` is mutable; `oldObj` is the stored object). */
  prepareForUpdate?(newObj: JsonObject, oldObj: JsonObject, ctx: StrategyContext): void;
  /** Built-in defaulting (the Go `SetDefaults_*` functions); custom resources use schema defaults. */
  defaults?(obj: JsonObject): void;
  /** Runs when a DELETE first marks the object (adds its own finalizers or conditions). */
  prepareForDelete?(obj: JsonObject, ctx: StrategyContext): void;
  validate?(obj: JsonObject): FieldError[];
  validateUpdate?(newObj: JsonObject, oldObj: JsonObject): FieldError[];
}

/** When `metadata.generation` moves. */
export type GenerationRule =
  /** never set (ConfigMap, Pod in 1.32, ...) */
  | 'none'
  /** 1 on create; +1 when `spec` changes (Deployment, CRD, ...) */
  | 'spec'
  /** custom resources with a status subresource: +1 when anything but metadata and status changes */
  | 'all-but-metadata-status'
  /** custom resources without a status subresource: +1 when anything but metadata changes */
  | 'all-but-metadata'
  /** a kind-specific test (EndpointSlice: anything but metadata, or labels) */
  | ((newObj: JsonObject, oldObj: JsonObject) => boolean);

export interface ResourceType {
  group: string;
  version: string;
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: { status: boolean; scale?: ScaleSubresource; log?: boolean };
  builtin: boolean;
  /** Objects of every type with the same key share storage (core and events.k8s.io Events; CRD versions). */
  storageKey: string;
  /** apiVersion of stored objects. */
  storageApiVersion: string;
  /** Schema of a whole object; undefined means "anything goes" (x-kubernetes-preserve-unknown-fields root). */
  schema?: JSONSchemaProps;
  printerColumns: PrinterColumn[];
  generation: GenerationRule;
  strategy: Strategy;
  returnDeletedObject: boolean;
  allowUnconditionalUpdate: boolean;
  allowCreateOnUpdate: boolean;
  /** Field selectors beyond metadata.name and metadata.namespace. */
  fieldSelectors: Record<string, (obj: JsonObject) => string | undefined>;
  /** Conversion between this version's shape and the stored shape (identity when absent). */
  convert?: { toStorage(obj: JsonObject): JsonObject; fromStorage(obj: JsonObject): JsonObject };
  /** The group's preferred version (discovery). */
  preferredVersion: string;
  /** For custom resources: the CRD's name. */
  crdName?: string;
  /** metadata.name rule (default: DNS-1123 subdomain); `prefix` is true for generateName. */
  nameValidator?: (name: string, prefix: boolean) => string[];
}

/** What the PATCH helper needs to know about a kind. */
export interface KindInfo {
  group: string;
  version: string;
  kind: string;
  builtin: boolean;
}

type Listener = () => void;

export class Registry {
  private readonly types = new Map<string, ResourceType>();
  private readonly listeners = new Set<Listener>();
  private generationCounter = 0;

  private static key(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
  }

  /** Bumped on every change; discovery and OpenAPI caches compare it. */
  get generation(): number {
    return this.generationCounter;
  }

  add(type: ResourceType): void {
    this.types.set(Registry.key(type.group, type.version, type.resource), type);
    this.changed();
  }

  /** Removes every type registered for a CRD. */
  removeCrd(crdName: string): void {
    for (const [k, t] of this.types) if (t.crdName === crdName) this.types.delete(k);
    this.changed();
  }

  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    return this.types.get(Registry.key(group, version, resource));
  }

  byKind(group: string, version: string, kind: string): ResourceType | undefined {
    for (const t of this.types.values()) if (t.group === group && t.version === version && t.kind === kind) return t;
    return undefined;
  }

  /** All types sharing a storage key (for fan-out of watch events to every served version). */
  byStorageKey(storageKey: string): ResourceType[] {
    return [...this.types.values()].filter((t) => t.storageKey === storageKey);
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** Groups in discovery order: core first, then built-in groups as registered, then CRD groups by name. */
  groups(): { name: string; versions: string[]; preferred: string }[] {
    const order: string[] = [];
    const versions = new Map<string, Set<string>>();
    const preferred = new Map<string, string>();
    for (const t of this.types.values()) {
      if (!versions.has(t.group)) {
        order.push(t.group);
        versions.set(t.group, new Set());
      }
      versions.get(t.group)!.add(t.version);
      preferred.set(t.group, t.preferredVersion);
    }
    return order.map((name) => ({
      name,
      versions: sortVersions([...versions.get(name)!]),
      preferred: preferred.get(name)!,
    }));
  }

  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.generationCounter++;
    for (const fn of this.listeners) fn();
  }

  /**
   * Resolves `deployments`, `deployments.apps`, `deploy`, `policies.steward.dev`, or `{group, resource}`
   * to the preferred version's type (for the in-process API).
   */
  resolve(ref: ResourceRef): ResourceType {
    const { group, resource, version } = typeof ref === 'string' ? parseRef(ref, this) : ref;
    const candidates = [...this.types.values()].filter(
      (t) =>
        (group === undefined || t.group === group) &&
        (t.resource === resource || t.shortNames.includes(resource) || t.kind === resource),
    );
    const pick =
      candidates.find((t) => (version ? t.version === version : t.version === t.preferredVersion)) ?? candidates[0];
    if (!pick) throw new Error(`unknown resource ${typeof ref === 'string' ? ref : JSON.stringify(ref)}`);
    return pick;
  }

  /** Kind information and schema for the PATCH helper. */
  describeKind(group: string, version: string, kind: string): { kind: KindInfo; schema?: JSONSchemaProps } | undefined {
    const t = this.byKind(group, version, kind);
    if (!t) return undefined;
    return { kind: { group, version, kind, builtin: t.builtin }, schema: t.schema };
  }
}

export type ResourceRef = string | { group?: string; version?: string; resource: string };

function parseRef(ref: string, reg: Registry): { group?: string; resource: string; version?: string } {
  const dot = ref.indexOf('.');
  if (dot < 0) {
    // NB: a bare name prefers the core group, as kubectl does for `events`.
    const core = reg.all().find((t) => t.group === '' && (t.resource === ref || t.shortNames.includes(ref)));
    return core ? { group: '', resource: core.resource } : { resource: ref };
  }
  return { resource: ref.slice(0, dot), group: ref.slice(dot + 1) };
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first (apimachinery CompareKubeAwareVersionStrings). */
export function sortVersions(vs: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stage = m[2] === 'alpha' ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  return [...vs].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
    return a.localeCompare(b);
  });
}
