/**
 * Compiling a JSON Schema the way OPA's vendored gojsonschema does (internal/gojsonschema/schema.go):
 * the same keywords per draft (4, 6, 7, or the default "hybrid" that accepts all of them), the same
 * compile errors word for word, local `$ref`s and `$id`s resolved within the document. Remote
 * references are refused: Rego evaluation does no I/O.
 */

import { RObject, type Value } from '../../value.js';
import { parseKeywords, type Compiling } from './keywords.js';
import {
  Draft4,
  Draft6,
  Hybrid,
  fail,
  newSchema,
  invalidType,
  isMap,
  getString,
  resolveId,
  detectDraft,
  pointerToken,
  type SubSchema,
} from './schema.js';

class Compiler implements Compiling {
  /** Documents by canonical reference: "" is the root, plus every "$id" found within. */
  private readonly pool = new Map<string, Value>();
  private readonly refCache = new Map<string, SubSchema>();

  constructor(
    private readonly root: Value,
    readonly validatePatterns: boolean,
  ) {
    this.collectIds(root, '', true);
  }

  private collectIds(doc: Value, base: string, isRoot: boolean): void {
    if (isRoot) this.pool.set(base, doc);
    if (Array.isArray(doc)) {
      for (const x of doc) this.collectIds(x, base, false);
      return;
    }
    if (!isMap(doc)) return;
    let here = base;
    const id = doc.get('$id') ?? doc.get('id');
    if (typeof id === 'string') {
      here = resolveId(base, id);
      if (!this.pool.has(here)) this.pool.set(here, doc);
    }
    for (const [k, v] of doc.entries()) {
      if (k === 'const' || k === 'enum') continue;
      this.collectIds(v, here, false);
    }
  }

  /** gojsonschema's schemaPool.GetDocument for references within this document. */
  private lookup(ref: string): Value {
    const exact = this.pool.get(ref);
    if (exact !== undefined) return exact;
    const hash = ref.indexOf('#');
    const base = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? '' : ref.slice(hash + 1);
    const doc = this.pool.get(base);
    if (doc === undefined) {
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(ref)) fail(`Reference ${ref} must be canonical`);
      return fail(`remote reference ${ref} cannot be loaded: Rego evaluation performs no network access`);
    }
    if (fragment === '') return doc;
    if (!fragment.startsWith('/')) return fail(`JSON pointer must be empty or start with a "/"`);
    let cur: Value = doc;
    for (const raw of fragment.slice(1).split('/')) {
      const tok = pointerToken(decodeURIComponent(raw));
      if (isMap(cur)) {
        const next = cur.get(tok);
        if (next === undefined) return fail(`Object has no key '${tok}'`);
        cur = next;
      } else if (Array.isArray(cur)) {
        const i = /^(0|[1-9]\d*)$/.test(tok) ? Number(tok) : NaN;
        if (!(i >= 0 && i < cur.length)) return fail(`Invalid array index '${tok}'`);
        cur = cur[i]!;
      } else {
        return fail(`Invalid token reference '${tok}'`);
      }
    }
    return cur;
  }

  compile(): SubSchema {
    const draft = detectDraft(this.root) ?? Hybrid;
    const root = newSchema('(root)', draft);
    this.parse(this.root, root);
    return root;
  }

  child(property: string, parent: SubSchema, doc: Value): SubSchema {
    const s = newSchema(property, parent.draft);
    this.parse(doc, s);
    return s;
  }

  private parse(doc: Value, s: SubSchema): void {
    if (s.draft >= Draft6 && typeof doc === 'boolean') {
      s.pass = doc;
      return;
    }
    if (!isMap(doc)) return fail('Expected: valid schema, given: Invalid JSON');
    const m = doc;
    const keyId = s.draft === Draft4 ? 'id' : s.draft === Hybrid && m.has('id') ? 'id' : '$id';
    getString(m, keyId);

    const defs = m.get('definitions');
    if (defs !== undefined) {
      if (!isMap(defs)) invalidType('array of schemas', 'definitions');
      for (const v of (defs as RObject).values()) {
        if (typeof v !== 'boolean' && !isMap(v)) invalidType('array of schemas', 'definitions');
        this.child('definitions', s, v);
      }
    }
    getString(m, 'title');
    getString(m, 'description');

    const ref = getString(m, '$ref');
    if (ref !== undefined) {
      const key = resolveId('', ref);
      const cached = this.refCache.get(key);
      if (cached === undefined) {
        const target = newSchema('$ref', s.draft);
        this.refCache.set(key, target);
        const refDoc = this.lookup(key);
        if (typeof refDoc !== 'boolean' && !isMap(refDoc)) fail('valid schema must be of type object');
        this.parse(refDoc, target);
        s.refSchema = target;
        return;
      }
      s.refSchema = cached;
    }

    parseKeywords(this, m, s);
  }
}

/** Compiles a schema document (already JSON-shaped); throws SchemaError with gojsonschema's text. */
export function compileSchema(doc: Value, validatePatterns = true): SubSchema {
  return new Compiler(doc, validatePatterns).compile();
}
