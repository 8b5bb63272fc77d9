/**
 * Types from `# METADATA` schemas (OPA's schema annotations): an inline JSON Schema given for
 * `input` or a path below it (`- input.user: {type: object, properties: …}`) types `input` in
 * the rules it applies to, so that the type checker can report, say, a number passed to `upper`.
 * Schema references (`- input: schema.foo`) need a schema set, which Steward does not load;
 * they are ignored, as OPA ignores them without `--schema`.
 */
import type { Annotations, Module, Rule } from '../syntax/ast.js';
import { T, unionOf, type Type } from '../types.js';
import { toJS } from '../value.js';

type Schema = Record<string, unknown>;

const isSchema = (x: unknown): x is Schema => typeof x === 'object' && x !== null && !Array.isArray(x);

/** OPA's conversion of a JSON Schema to a type; what it does not model is `any`. */
export function schemaToType(s: unknown): Type {
  if (!isSchema(s)) return T.any;
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts)) return unionOf(alts.map(schemaToType));
  const t = s.type;
  if (Array.isArray(t)) return unionOf(t.map((x) => schemaToType({ ...s, type: x })));
  switch (t) {
    case 'string':
      return T.string;
    case 'number':
    case 'integer':
      return T.number;
    case 'boolean':
      return T.boolean;
    case 'null':
      return T.null;
    case 'array':
      if (Array.isArray(s.items)) return T.tuple(...s.items.map(schemaToType));
      return T.array(isSchema(s.items) ? schemaToType(s.items) : T.any);
    case 'object':
      return objectType(s);
    default:
      return T.any;
  }
}

function objectType(s: Schema): Type {
  const props: Record<string, Type> = {};
  if (isSchema(s.properties)) for (const [k, v] of Object.entries(s.properties)) props[k] = schemaToType(v);
  const extra = s.additionalProperties;
  const hasProps = Object.keys(props).length > 0;
  if (!hasProps && extra === undefined) return T.object(T.any, T.any);
  if (extra === true) return T.record(props, { key: T.string, value: T.any });
  if (isSchema(extra)) return T.record(props, { key: T.string, value: schemaToType(extra) });
  return T.record(props);
}

/** The type of `input` with `type` placed at `path` below it (other keys stay `any`). */
function placeAt(path: readonly string[], type: Type): Type {
  if (path.length === 0) return type;
  return T.record({ [path[0]!]: placeAt(path.slice(1), type) }, { key: T.any, value: T.any });
}

/** `input.a.b: {schema}` entries of an annotation, in order. */
function inputSchemas(ann: Annotations | undefined): [string[], unknown][] {
  if (!ann) return [];
  const v = toJS(ann.value) as Record<string, unknown>;
  const out: [string[], unknown][] = [];
  for (const entry of Array.isArray(v.schemas) ? v.schemas : []) {
    if (!isSchema(entry)) continue;
    for (const [path, schema] of Object.entries(entry)) {
      const parts = path.split('.');
      if (parts[0] === 'input' && isSchema(schema)) out.push([parts.slice(1), schema]);
    }
  }
  return out;
}

/** For each rule with an inline input schema (its own, or its package's), the type of `input`. */
export function inputTypes(modules: readonly Module[]): Map<Rule, Type> {
  const pkgSchemas = new Map<string, [string[], unknown][]>();
  for (const m of modules) {
    const key = m.package.path.join('.');
    for (const a of m.annotations)
      if (a.scope === 'package') pkgSchemas.set(key, [...(pkgSchemas.get(key) ?? []), ...inputSchemas(a)]);
  }
  const out = new Map<Rule, Type>();
  for (const m of modules) {
    const pkg = pkgSchemas.get(m.package.path.join('.')) ?? [];
    for (const r of m.rules) {
      const entries = [...pkg, ...inputSchemas(r.annotations)];
      if (entries.length === 0) continue;
      // NB: the last schema for a path wins; a schema for `input` itself replaces everything before it
      let t: Type = T.any;
      for (const [path, schema] of entries)
        t = path.length === 0 ? schemaToType(schema) : merge(t, path, schemaToType(schema));
      for (let x: Rule | undefined = r; x; x = x.else) out.set(x, t);
    }
  }
  return out;
}

function merge(base: Type, path: readonly string[], type: Type): Type {
  if (base.kind !== 'object') return placeAt(path, type);
  const [head, ...rest] = path;
  const props: Record<string, Type> = Object.fromEntries(base.static);
  props[head!] = rest.length === 0 ? type : merge(props[head!] ?? T.any, rest, type);
  return T.record(props, base.dynamic);
}
