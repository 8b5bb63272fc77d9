/**
 * The type model both merge engines walk. It carries what structured-merge-diff reads from the OpenAPI
 * schema (list types and keys, atomic maps, which keys are named struct fields) and what strategic merge
 * patch reads from Go struct tags (patch strategy and merge key). Built-in kinds get their nodes from
 * `strategic-meta.ts`; custom resources from their CRD schema through `fromOpenApiSchema`.
 */
import { isObject } from './values.js';

/** Strategic-merge-patch metadata of a field (`x-kubernetes-patch-strategy` / `-merge-key`). */
export interface SmpMeta {
  /** Lists default to replace and maps to merge when unset. */
  strategy?: 'merge' | 'replace';
  mergeKey?: string;
  /** The field also carries the retainKeys strategy (only meaningful to clients that build `$retainKeys`). */
  retainKeys?: boolean;
}

interface Common {
  nullable?: boolean;
  smp?: SmpMeta;
}

export interface ScalarType extends Common {
  kind: 'scalar';
}

export interface MapType extends Common {
  kind: 'map';
  /** Named (struct) fields: a field set holds their path only when they are leaves. */
  fields?: Readonly<Record<string, TypeNode>>;
  /** Type of keys not named in `fields`; absent means such keys are not declared in the schema. */
  elem?: TypeNode;
  /** NB: set on built-in structs we only describe in part, so their unknown keys act as named fields. */
  elemNamed?: boolean;
  atomic?: boolean;
}

export interface ListType extends Common {
  kind: 'list';
  elem: TypeNode;
  listType: 'atomic' | 'set' | 'map';
  /** Key fields of a `map` list, in schema order. */
  keys?: readonly string[];
  /** Values assumed for key fields an item leaves out (e.g. a container port's protocol). */
  keyDefaults?: Readonly<Record<string, unknown>>;
}

/**
 * A node whose shape comes from the data: `deduced` is structured-merge-diff's untyped type (objects are
 * granular maps whose keys are all members, lists are atomic); `loose` is the same for parts of built-in
 * kinds this module does not describe, with object keys treated as named struct fields.
 */
export interface DynamicType extends Common {
  kind: 'deduced' | 'loose';
}

export type TypeNode = ScalarType | MapType | ListType | DynamicType;
export type ConcreteType = ScalarType | MapType | ListType;

export const SCALAR: ScalarType = { kind: 'scalar' };
export const DEDUCED: DynamicType = { kind: 'deduced' };
export const LOOSE: DynamicType = { kind: 'loose' };

const DEDUCED_MAP: MapType = { kind: 'map', elem: DEDUCED };
const LOOSE_MAP: MapType = { kind: 'map', elem: LOOSE, elemNamed: true };
const DEDUCED_LIST: ListType = { kind: 'list', elem: DEDUCED, listType: 'atomic' };
const LOOSE_LIST: ListType = { kind: 'list', elem: LOOSE, listType: 'atomic' };

/** The concrete type of `value` under `t`: dynamic nodes take the shape of the value. */
export function resolve(t: TypeNode, value: unknown): ConcreteType {
  if (t.kind === 'scalar' || t.kind === 'map' || t.kind === 'list') return t;
  if (isObject(value)) return t.kind === 'deduced' ? DEDUCED_MAP : LOOSE_MAP;
  if (Array.isArray(value)) return t.kind === 'deduced' ? DEDUCED_LIST : LOOSE_LIST;
  return SCALAR;
}

export interface FieldInfo {
  type: TypeNode;
  /** Named struct field: not a member of a field set unless it is a leaf. */
  named: boolean;
}

/** How a map key is typed; undefined when the schema does not declare it. */
export function fieldOf(t: MapType, key: string): FieldInfo | undefined {
  const named = t.fields && Object.prototype.hasOwnProperty.call(t.fields, key) ? t.fields[key] : undefined;
  if (named) return { type: named, named: true };
  if (t.elem) return { type: t.elem, named: t.elemNamed === true };
  return undefined;
}

/** Element type of a list or map value, for walkers that descend without a key (strategic merge). */
export function childType(t: TypeNode | undefined, key: string): TypeNode {
  if (!t) return LOOSE;
  if (t.kind === 'map') return fieldOf(t, key)?.type ?? LOOSE;
  if (t.kind === 'deduced' || t.kind === 'loose') return t;
  return LOOSE;
}

// --- builders for hand-written tables ---

export interface StructOptions {
  atomic?: boolean;
  smp?: SmpMeta;
}

/** A built-in struct: listed fields typed, any other field loose. */
export function struct(fields: Record<string, TypeNode>, opts: StructOptions = {}): MapType {
  return { kind: 'map', fields, elem: LOOSE, elemNamed: true, ...opts };
}

/** A map[string]X: every key is a member of field sets. */
export function mapOf(elem: TypeNode, opts: StructOptions = {}): MapType {
  return { kind: 'map', elem, ...opts };
}

export function atomicList(elem: TypeNode = LOOSE, smp?: SmpMeta): ListType {
  return smp ? { kind: 'list', elem, listType: 'atomic', smp } : { kind: 'list', elem, listType: 'atomic' };
}

/** A set of scalars; `merge` also makes strategic merge patch union it (as with metadata.finalizers). */
export function setList(merge: boolean): ListType {
  const t: ListType = { kind: 'list', elem: SCALAR, listType: 'set' };
  if (merge) t.smp = { strategy: 'merge' };
  return t;
}

export interface MapListOptions {
  /** Strategic merge key; lists without one are replaced by strategic merge patch. */
  mergeKey?: string;
  retainKeys?: boolean;
  defaults?: Record<string, unknown>;
}

/** An associative list keyed by `keys` (x-kubernetes-list-type: map). */
export function mapList(keys: readonly string[], elem: TypeNode, opts: MapListOptions = {}): ListType {
  const t: ListType = { kind: 'list', elem, listType: 'map', keys };
  if (opts.defaults) t.keyDefaults = opts.defaults;
  if (opts.mergeKey)
    t.smp = { strategy: 'merge', mergeKey: opts.mergeKey, ...(opts.retainKeys ? { retainKeys: true } : {}) };
  return t;
}

// --- CRD schemas ---

/** The part of a CRD's JSONSchemaProps that shapes merging. */
export interface SchemaLike {
  type?: string;
  properties?: Record<string, SchemaLike>;
  additionalProperties?: SchemaLike | boolean;
  items?: SchemaLike;
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
}

/**
 * Converts a custom resource's openAPIV3Schema. `objectMeta` types `metadata` at the root and in embedded
 * resources, as the apiserver does whatever the CRD says there. Shared or cyclic schema nodes are fine.
 */
export function fromOpenApiSchema(schema: SchemaLike, objectMeta: TypeNode): TypeNode {
  const memo = new Map<SchemaLike, TypeNode>();
  const root = convert(schema, memo, objectMeta);
  return withTypeMeta(root, objectMeta);
}

function withTypeMeta(t: TypeNode, objectMeta: TypeNode): TypeNode {
  const base: MapType = t.kind === 'map' ? t : { kind: 'map', elem: DEDUCED };
  return { ...base, fields: { ...base.fields, apiVersion: SCALAR, kind: SCALAR, metadata: objectMeta } };
}

function convert(s: SchemaLike, memo: Map<SchemaLike, TypeNode>, objectMeta: TypeNode): TypeNode {
  const hit = memo.get(s);
  if (hit) return hit;
  const common: Common = s.nullable ? { nullable: true } : {};
  if (s['x-kubernetes-int-or-string']) return { kind: 'scalar', ...common };
  const isObjectSchema = s.type === 'object' || s.properties !== undefined || s.additionalProperties !== undefined;
  if (s.type === 'array') {
    const node: ListType = { kind: 'list', elem: DEDUCED, listType: listTypeOf(s), ...common };
    memo.set(s, node);
    node.elem = s.items ? convert(s.items, memo, objectMeta) : DEDUCED;
    const keys = s['x-kubernetes-list-map-keys'];
    if (node.listType === 'map' && keys?.length) {
      node.keys = keys;
      const defaults: Record<string, unknown> = {};
      for (const k of keys) {
        const d = s.items?.properties?.[k]?.default;
        if (d !== undefined) defaults[k] = d;
      }
      if (Object.keys(defaults).length) node.keyDefaults = defaults;
    }
    return node;
  }
  if (isObjectSchema) {
    const node: MapType = { kind: 'map', ...common };
    memo.set(s, node);
    if (s['x-kubernetes-map-type'] === 'atomic') node.atomic = true;
    if (s.properties) {
      const fields: Record<string, TypeNode> = {};
      for (const [name, sub] of Object.entries(s.properties)) fields[name] = convert(sub, memo, objectMeta);
      node.fields = fields;
    }
    if (isObject(s.additionalProperties)) node.elem = convert(s.additionalProperties as SchemaLike, memo, objectMeta);
    else if (s.additionalProperties === true || s['x-kubernetes-preserve-unknown-fields']) node.elem = DEDUCED;
    if (s['x-kubernetes-embedded-resource']) {
      node.fields = { ...node.fields, apiVersion: SCALAR, kind: SCALAR, metadata: objectMeta };
    }
    return node;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] || s.type === undefined) return { kind: 'deduced', ...common };
  return { kind: 'scalar', ...common };
}

function listTypeOf(s: SchemaLike): ListType['listType'] {
  const lt = s['x-kubernetes-list-type'];
  return lt === 'set' || lt === 'map' ? lt : 'atomic';
}
