/**
 * One load of the source's Policy documents: each enabled one compiled (Rego) or loaded (wasm) on its own, so that
 * one broken policy never takes the others down; a policy whose current version cannot be loaded keeps its last
 * good version in force (last-good.ts) and is reported, as is a policy dropped for a package conflict.
 */
import { createHash } from 'node:crypto';
import type { PolicyResource } from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import type { DeclarativeSource } from '../source/index.js';
import { policyKey, type Good, type LastGoodVersions, type Loaded } from './last-good.js';
import { compileError, policyModule } from './module.js';
import { conflictMessage, resolvePackages } from './packages.js';
import type { EntryLimits } from './plan.js';
import { bundleVersion, wasmBundle, wasmModule, type WasmCache } from './wasm.js';

/** This process's view of one Policy after a load: what `Policy.status.byPod` reports in a cluster. */
export interface PolicyLoadState {
  namespace: string;
  name: string;
  /** metadata.generation of the version seen (0 where the source has none: files). */
  generation: number;
  /**
   * The version seen is in force (compiled), or disabled as it asks. False: it did not compile or load (the last good
   * version, if any, stays in force: `fallback`).
   */
  loaded: boolean;
  /** Why not, with file:line:column for Rego; ends its first line with the last good version in force, if any. */
  error?: string;
  /** The last good version in force instead of the version seen. */
  fallback?: { generation: number; restored: boolean };
}

export interface LoadContext {
  source: DeclarativeSource;
  versions: LastGoodVersions;
  wasm: WasmCache;
  log: Logger;
}

export interface LoadResult {
  /** The policies in force (Rego and wasm), current or last good versions. */
  loaded: Loaded[];
  problems: { policy: string; message: string }[];
  /** Every Policy of the source, in its order. */
  states: PolicyLoadState[];
  /** Enabled redact policies (no code: the detectors of runtime/redact are their rule). */
  redactDocs: PolicyResource[];
  /** What each policy's load read (`compiledPart`), by key. */
  seen: Map<string, unknown>;
}

/** A version built: the compiled policy, and what the store needs to rebuild it (its hash, a wasm bundle). */
export interface Built {
  loaded: Loaded;
  hash: string;
  bundle?: Uint8Array;
}

export function loadPolicies(ctx: LoadContext): LoadResult {
  const out: LoadResult = { loaded: [], problems: [], states: [], redactDocs: [], seen: new Map() };
  for (const doc of ctx.source.list('Policy')) {
    const name = doc.metadata.name;
    const key = policyKey(doc);
    out.seen.set(key, compiledPart(doc, ctx.source));
    const state = { namespace: doc.metadata.namespace ?? 'default', name, generation: doc.metadata.generation ?? 0 };
    if (!doc.spec.enabled) {
      out.states.push({ ...state, loaded: true });
      continue;
    }
    if (doc.spec.action === 'redact') {
      // validated by the api rules: no Rego, kinds listed, scope llm_output only
      out.redactDocs.push(doc);
      out.states.push({ ...state, loaded: true });
      continue;
    }
    const built = buildPolicy(doc, ctx.source, ctx.wasm);
    if ('loaded' in built) {
      ctx.versions.compiled(
        key,
        { loaded: built.loaded, hash: built.hash, generation: state.generation },
        built.bundle,
      );
      out.loaded.push(built.loaded);
      out.states.push({ ...state, loaded: true });
      continue;
    }
    const good = ctx.versions.get(key);
    const error = good ? withNote(built.error, inForceNote(good)) : built.error;
    out.problems.push({ policy: name, message: error });
    out.states.push({
      ...state,
      loaded: false,
      error,
      ...(good ? { fallback: { generation: good.generation, restored: good.restored !== undefined } } : {}),
    });
    ctx.log.error({ policy: name, error: built.error }, 'policy does not compile');
    if (!good) continue;
    out.loaded.push(good.loaded);
    ctx.log.warn(
      {
        policy: name,
        generation: good.generation,
        ...(good.restored ? { restoredFrom: 'store', storedAt: good.restored.storedAt.toISOString() } : {}),
      },
      good.restored
        ? 'last good version of the policy, restored from the store, stays in force'
        : 'last good version of the policy stays in force',
    );
  }
  // A policy that would merge into (or clash with) another's package in some scope is dropped, the less trusted of
  // the two (packages.ts): it could otherwise rewrite that policy's rules or break the scope's plan.
  const { kept, dropped } = resolvePackages(out.loaded);
  for (const { item, conflict } of dropped) {
    const message = conflictMessage(item.doc, conflict);
    out.problems.push({ policy: item.doc.metadata.name, message });
    const state = out.states.find(
      (st) => st.name === item.doc.metadata.name && st.namespace === (item.doc.metadata.namespace ?? 'default'),
    );
    if (state) Object.assign(state, { loaded: false, error: message });
    ctx.log.error({ policy: item.doc.metadata.name, error: message }, 'policy package conflicts');
  }
  out.loaded = kept;
  return out;
}

/**
 * Compiles a Policy's Rego, or loads its wasm bundle: from `bundle` when given (a version read back from the store),
 * else from the document and the source (bundleBase64, or its ConfigMap).
 */
export function buildPolicy(
  doc: PolicyResource,
  source: DeclarativeSource | undefined,
  wasm: WasmCache,
  bundle?: Uint8Array,
): Built | { error: string } {
  const limits = limitsOf(doc);
  const module = policyModule(doc);
  if (module !== undefined) {
    // Per-policy diagnostics: one broken policy must not take the others down.
    const error = compileError(module);
    if (error !== undefined) return { error };
    const entry = { module, strict: doc.spec.strictBuiltinErrors !== false, ...(limits ? { limits } : {}) };
    return { loaded: { doc, entry }, hash: versionHash(doc) };
  }
  let bytes = bundle;
  if (!bytes) {
    const found = source ? wasmBundle(doc, source) : { field: 'spec.wasm', message: 'no bundle' };
    if (!('bytes' in found)) return { error: `${found.field}: ${found.message}` };
    bytes = found.bytes;
  }
  const loaded = wasmModule(doc, bytes, wasm);
  if (!('module' in loaded)) return { error: `${loaded.field}: ${loaded.message}` };
  const entry = { wasm: loaded.module, ...(limits ? { limits } : {}) };
  return { loaded: { doc, entry }, hash: versionHash(doc, loaded.module.sha256), bundle: bytes };
}

/**
 * What a load reads of a document: its spec, its generation and its ConfigMap's version, not its status (other
 * writers') nor its labels. Equal parts: nothing to load again.
 */
export function compiledPart(doc: PolicyResource, source: DeclarativeSource): unknown {
  return { spec: doc.spec, generation: doc.metadata.generation, bundle: bundleVersion(doc, source) };
}

/** What was compiled: the spec, and the bundle's content for a wasm policy. */
function versionHash(doc: PolicyResource, bundleSha256?: string): string {
  return createHash('sha256')
    .update(JSON.stringify([doc.spec, bundleSha256 ?? null]))
    .digest('hex');
}

function limitsOf(doc: PolicyResource): EntryLimits | undefined {
  const l = doc.spec.limits;
  if (l?.deadlineMs === undefined && l?.maxSteps === undefined) return undefined;
  return {
    ...(l.deadlineMs !== undefined ? { deadlineMs: l.deadlineMs } : {}),
    ...(l.maxSteps !== undefined ? { maxSteps: l.maxSteps } : {}),
  };
}

function inForceNote(good: Good): string {
  const generation = good.generation ? ` (generation ${good.generation})` : '';
  const restored = good.restored ? `, restored from the store (stored ${good.restored.storedAt.toISOString()})` : '';
  return `; its last good version${generation} stays in force${restored}`;
}

/** The note at the end of the error's first line (Ready messages show first lines), before the source and caret. */
function withNote(error: string, note: string): string {
  const nl = error.indexOf('\n');
  return nl < 0 ? `${error}${note}` : `${error.slice(0, nl)}${note}${error.slice(nl)}`;
}
