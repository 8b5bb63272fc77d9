import { isDeepStrictEqual } from 'node:util';
import {
  expandRedactionKinds,
  LLM_OUTPUT_SURFACE,
  policyMode,
  validateManifest,
  type PolicyMode,
  type PolicyResource,
} from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import type { DeclarativeSource } from '../source/index.js';
import { exceptionCall, PolicyExceptions } from './exceptions.js';
import { conclude, type ConcludeContext } from './conclude.js';
import { PolicyFailureLog, type FailingPolicy, type FailureCount, type FailureLogOptions } from './failures.js';
import { PolicyInputTooLargeError, textBytes, textUnits } from './input-size.js';
import { IsolatePool, type IsolationOptions } from './isolate/pool.js';
import { LastGoodVersions, policyKey, type LastGoodStore, type LastGoodVersion } from './last-good.js';
import { buildPolicy, compiledPart, loadPolicies, type PolicyLoadState } from './load.js';
import { warmUpPack } from './pack/index.js';
import { failedPlan, planCompilers, planKey, type PlanResult, type ScopePlan } from './plan.js';
import { compileScopes, inScope, planFor, type Scopes } from './scopes.js';
import type {
  ObservedRedaction,
  RedactPolicy,
  PolicyEvaluation,
  PolicyEvaluator,
  PolicyInput,
  PolicyOutcome,
  PolicyScope,
} from './types.js';
import type { PolicyObserver } from './observer.js';
import { WasmCache } from './wasm.js';

export type { PolicyLoadState } from './load.js';

/** Said at start, on every reload that leaves no policy, and on /health (degraded) while it lasts. */
export const NO_POLICY_WARNING =
  'no policy is enabled: every request is approved; enable a Policy, or the built-in pack (STEWARD_BUILTIN_POLICY_PACK=enabled)';

const NO_OBSERVED: readonly ObservedRedaction[] = Object.freeze([]);

export interface EvalLimits {
  /** Wall-clock budget of one evaluation of the whole set. */
  deadlineMs: number;
  maxSteps: number;
}

export interface PolicyEngineOptions {
  source: DeclarativeSource;
  log: Logger;
  /**
   * The default limits of one evaluation; exceeding them blocks (fail closed). A Policy's own `spec.limits` replace
   * them for that policy (its own deadline is a budget of its own; the others share this one).
   */
  limits: EvalLimits;
  /** Largest input text (query plus the other strings of the input) evaluated at all. @default 262_144 */
  inputMaxBytes?: number;
  /** Inputs with more text than this are evaluated on an isolation worker. @default 8_192 */
  inlineMaxBytes?: number;
  /** The worker pool for large inputs; `false` evaluates every input inline. @default 2 workers */
  isolation?: IsolationOptions | false;
  /** The "keeps failing" rule of /health. @default 5 failures within 60 s */
  failures?: FailureLogOptions;
  /** Told of every concluded evaluation (metrics). */
  observer?: PolicyObserver;
  /**
   * Where the last good version of each Policy survives a restart (runtime/store's `store.lastGoodPolicies`): read
   * at start (`restored()`), written behind every compile. @default none: last good versions live in memory only
   */
  lastGood?: LastGoodStore;
  /** The clock PolicyExceptions expire by (tests). @default the current time */
  now?: () => Date;
}

/** The store's last good versions could not be read at start (`restored()` rejects with it; code below). */
export class PolicyRestoreError extends Error {
  readonly code = 'POLICY_RESTORE_FAILED';
  constructor(options: { cause: unknown }) {
    super('the last good policy versions could not be read from the store', options);
    this.name = 'PolicyRestoreError';
  }
}

/**
 * Every enabled Policy document of the source (Rego or wasm), compiled into one plan per scope (surface × tenant
 * named by some policy, and the untenanted scope) before any request, and evaluated in priority order. A policy
 * whose new version does not compile keeps its last good version (across restarts with a `lastGood` store) and is
 * reported by `problems()`; the others are unaffected. A policy whose evaluation fails blocks the request and is
 * counted (`failing()`, `failureCounts()`).
 */
export class RegoPolicyEngine implements PolicyEvaluator {
  private loaded: PolicyResource[] = [];
  private compileProblems: { policy: string; message: string }[] = [];
  private readonly versions: LastGoodVersions;
  private states: PolicyLoadState[] = [];
  /** What each policy's last rebuild read: a status-only change (another writer) recompiles nothing. */
  private seen = new Map<string, unknown>();
  /** The uid of each Policy last seen, for the store's row of a deleted one. */
  private uids = new Map<string, string | undefined>();
  /** Enabled redact policies (no Rego: the detectors of runtime/redact are their rule). */
  private redactDocs: PolicyResource[] = [];
  /** redactKinds() per organization × tenant key, emptied by every rebuild (it is called per request). */
  private redactCache = new Map<string, readonly string[]>();
  private readonly compiledListeners = new Set<(states: readonly PolicyLoadState[]) => void>();
  private readonly compilers = planCompilers();
  private readonly wasm = new WasmCache();
  private scopes: Scopes = { byScope: new Map(), tenants: new Set(), organizations: new Set(), entriesOf: [] };
  private readonly failureLog: PolicyFailureLog;
  private readonly pool: IsolatePool | undefined;
  private readonly limits: Required<EvalLimits>;
  private readonly inputMaxBytes: number;
  private readonly inlineMaxBytes: number;
  private readonly unsubscribe: () => void;
  private readonly restoring: Promise<void>;
  private closed = false;
  /** Each loaded policy's mode and shadowed policy, by name (conclude reads them per matching policy). */
  private modes = new Map<string, PolicyMode>();
  private shadows = new Map<string, string>();
  private readonly concluding: ConcludeContext;
  /** The source's PolicyExceptions: a matching one exempts a call from the policies it names. */
  private readonly exceptions: PolicyExceptions;
  /** Each loaded policy's namespace (absent for the pack's), for the exceptions' namespace rule. */
  private namespaces = new Map<string, string | undefined>();

  constructor(private readonly options: PolicyEngineOptions) {
    this.limits = { deadlineMs: options.limits.deadlineMs, maxSteps: options.limits.maxSteps };
    this.inputMaxBytes = options.inputMaxBytes ?? 262_144;
    this.inlineMaxBytes = options.inlineMaxBytes ?? 8_192;
    this.failureLog = new PolicyFailureLog(options.failures);
    this.exceptions = new PolicyExceptions({ source: options.source, now: options.now });
    this.concluding = {
      failureLog: this.failureLog,
      log: options.log,
      modeOf: (policy) => this.modes.get(policy) ?? 'enforce',
      shadowOf: (policy) => this.shadows.get(policy),
    };
    this.pool = options.isolation === false ? undefined : new IsolatePool(options.log, options.isolation);
    this.versions = new LastGoodVersions(options.lastGood, options.log);
    this.rebuild();
    this.unsubscribe = options.source.subscribe((events) => {
      const changed = (e: (typeof events)[number]) =>
        e.resource.kind === 'Policy' &&
        (e.type !== 'modified' ||
          !isDeepStrictEqual(
            this.seen.get(policyKey(e.resource as PolicyResource)),
            compiledPart(e.resource as PolicyResource, options.source),
          ));
      if (events.some(changed)) this.rebuild();
    });
    this.restoring = options.lastGood ? this.restore(options.lastGood) : Promise.resolve();
    // NB: callers that do not wait for restored() must not see an unhandled rejection; the failure is logged.
    this.restoring.catch(() => undefined);
  }

  /**
   * Resolves once the last good versions of the store are read and in force where the current version does not
   * compile (at once without a store); rejects with PolicyRestoreError when the store cannot be read. Wait for it
   * before serving: until then a Policy whose current version does not compile is not in force.
   */
  restored(): Promise<void> {
    return this.restoring;
  }

  /** Every Policy of the source as the last compile left it (the order of the source). */
  loadStates(): readonly PolicyLoadState[] {
    return this.states;
  }

  /** Called after every compile of the policy set (not for the first, in the constructor: read `loadStates()`). */
  onCompiled(listener: (states: readonly PolicyLoadState[]) => void): () => void {
    this.compiledListeners.add(listener);
    return () => this.compiledListeners.delete(listener);
  }

  problems(): readonly { policy: string; message: string }[] {
    return this.compileProblems;
  }

  failing(): FailingPolicy[] {
    return this.failureLog.failing();
  }

  failureCounts(): FailureCount[] {
    return this.failureLog.counts();
  }

  /** Names of the policies in force (redact policies included). */
  active(): string[] {
    return [...this.loaded.map((d) => d.metadata.name), ...this.redactDocs.map((d) => d.metadata.name)];
  }

  /**
   * The detector kinds to mask in the provider's answer for this caller: the union of the kinds of the enabled
   * redact policies in scope (they apply to llm_output only), shorthands expanded. Cached per policy-set version.
   */
  redactKinds(scope: PolicyScope): readonly string[] {
    if (scope.surface !== LLM_OUTPUT_SURFACE || this.redactDocs.length === 0) return NO_KINDS;
    const key = `${scope.organizationId ?? ''}\u0000${scope.tenantId ?? ''}`;
    let kinds = this.redactCache.get(key);
    if (!kinds) {
      const set = new Set<string>();
      for (const doc of this.redactDocs) {
        if (policyMode(doc.spec.enforcementAction) !== 'enforce' || !inScope(doc, scope)) continue;
        for (const k of expandRedactionKinds(doc.spec.redact?.kinds ?? [])) set.add(k);
      }
      kinds = Object.freeze([...set]);
      // NB: bounded: caller-chosen tenants that no policy names all map to the same answer, but still get a key
      if (this.redactCache.size >= 1024) this.redactCache.clear();
      this.redactCache.set(key, kinds);
    }
    return kinds;
  }

  observedRedactions(scope: PolicyScope): readonly ObservedRedaction[] {
    if (scope.surface !== LLM_OUTPUT_SURFACE || this.redactDocs.length === 0) return NO_OBSERVED;
    const out: ObservedRedaction[] = [];
    for (const doc of this.redactDocs) {
      const mode = policyMode(doc.spec.enforcementAction);
      if (mode === 'enforce' || !inScope(doc, scope)) continue;
      out.push({ policy: doc.metadata.name, mode, kinds: expandRedactionKinds(doc.spec.redact?.kinds ?? []) });
    }
    return out.length ? out : NO_OBSERVED;
  }

  redactPolicies(scope: PolicyScope): readonly RedactPolicy[] {
    if (scope.surface !== LLM_OUTPUT_SURFACE || this.redactDocs.length === 0) return [];
    const out: RedactPolicy[] = [];
    for (const doc of this.redactDocs) {
      if (!inScope(doc, scope)) continue;
      out.push({
        policy: doc.metadata.name,
        mode: policyMode(doc.spec.enforcementAction),
        kinds: expandRedactionKinds(doc.spec.redact?.kinds ?? []),
      });
    }
    return out;
  }

  /** Whether some Rego policy (block, warn or log) applies to this scope: false lets callers skip `evaluate`. */
  hasPolicies(scope: PolicyScope): boolean {
    return planFor(this.scopes, scope).key !== EMPTY_PLAN_KEY;
  }

  /** Resolves once the isolation workers hold the current policies. */
  ready(): Promise<void> {
    return this.pool?.ready() ?? Promise.resolve();
  }

  /**
   * Synchronous for inputs up to the inline threshold (the common case); a promise for larger inputs, which
   * run on a worker. Throws PolicyInputTooLargeError above the input maximum. Never rejects: a failure of any
   * kind is a blocked evaluation.
   */
  evaluate(input: PolicyInput, scope: PolicyScope): PolicyOutcome {
    const plan = planFor(this.scopes, scope);
    // NB: the limits apply to the text as sent; the normalized copies (at most four times as long, runtime/text)
    // are added by the plan, inline or on the worker (plan.ts).
    // NB: 3 UTF-8 bytes at most per UTF-16 unit: the exact count is needed only for large inputs.
    if (textUnits(input) * 3 > this.inlineMaxBytes) {
      const bytes = textBytes(input);
      if (bytes > this.inputMaxBytes) throw new PolicyInputTooLargeError(bytes, this.inputMaxBytes);
      if (bytes > this.inlineMaxBytes && this.pool) return this.isolated(plan, input, scope);
    }
    let result: PlanResult;
    const t0 = performance.now();
    try {
      result = plan.evaluate(input, this.limits);
    } catch (err) {
      this.options.log.error({ err }, 'policy engine threw; failing closed');
      result = failedPlan(
        plan,
        { class: 'engine_exception', message: err instanceof Error ? err.message : String(err) },
        performance.now() - t0,
      );
    }
    return this.conclude(result, input, scope);
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    this.exceptions.close();
    this.versions.close();
    this.pool?.close();
  }

  /** Resolves once the store holds what the compiles so far asked it to (tests). */
  stored(): Promise<void> {
    return this.versions.flushed();
  }

  private async isolated(plan: ScopePlan, input: PolicyInput, scope: PolicyScope): Promise<PolicyEvaluation> {
    const t0 = performance.now();
    const outcome = await this.pool!.evaluate(plan.key, input, this.limits, plan.budgetMs(this.limits));
    if ('result' in outcome) return this.conclude(outcome.result, input, scope);
    const failure = { class: outcome.failure, message: outcome.message };
    return this.conclude(failedPlan(plan, failure, performance.now() - t0), input, scope);
  }

  private conclude(result: PlanResult, input: PolicyInput, scope: PolicyScope): PolicyEvaluation {
    const evaluation = conclude(result, this.exceptions.empty ? this.concluding : this.exempting(input, scope));
    this.options.observer?.concluded(result, evaluation, scope);
    return evaluation;
  }

  /** The conclude context of one call while PolicyExceptions exist: which exception exempts it from a policy. */
  private exempting(input: PolicyInput, scope: PolicyScope): ConcludeContext {
    const now = (this.options.now ?? (() => new Date()))();
    const call = exceptionCall(input, scope);
    return {
      ...this.concluding,
      exemptionOf: (policy) =>
        this.exceptions.exceptionFor({ name: policy, namespace: this.namespaces.get(policy) }, call, now)?.name,
    };
  }

  private rebuild(): void {
    const { source, log } = this.options;
    const out = loadPolicies({ source, versions: this.versions, wasm: this.wasm, log });
    this.uids = new Map([...this.uids, ...source.list('Policy').map((d) => [policyKey(d), d.metadata.uid] as const)]);
    this.versions.retain(new Set(out.seen.keys()), (key) => this.uids.get(key));
    for (const key of this.uids.keys()) if (!out.seen.has(key)) this.uids.delete(key);
    this.seen = out.seen;
    this.states = out.states;
    this.loaded = out.loaded.map((l) => l.doc);
    this.compileProblems = out.problems;
    this.redactDocs = out.redactDocs;
    this.redactCache = new Map();
    this.modes = new Map(this.loaded.map((d) => [d.metadata.name, policyMode(d.spec.enforcementAction)] as const));
    this.namespaces = new Map(this.loaded.map((d) => [d.metadata.name, d.metadata.namespace] as const));
    this.shadows = new Map(
      this.loaded.flatMap((d) => (d.spec.shadowOf ? [[d.metadata.name, d.spec.shadowOf] as const] : [])),
    );
    this.scopes = compileScopes(out.loaded, this.scopes.byScope.values(), this.compilers);
    this.pool?.load(this.scopes.entriesOf);
    this.failureLog.retain(this.loaded.map((d) => d.metadata.name));
    // The warm-up fills the shared regex cache.
    warmUpPack(planFor(this.scopes, { surface: 'pre-check' }));
    log.info(
      { policies: out.loaded.length, failed: out.problems.length, scopes: this.scopes.byScope.size },
      'policies compiled',
    );
    if (out.loaded.length === 0) log.warn({ policies: 0 }, NO_POLICY_WARNING);
    for (const l of this.compiledListeners) {
      try {
        l(out.states);
      } catch (err) {
        log.error({ err }, 'policy compile listener failed');
      }
    }
  }

  /**
   * Reads the store's last good versions once the source has loaded: a row whose Policy is gone (deleted while no
   * runtime ran) is removed; the others are rebuilt and kept in force where the current version does not compile.
   */
  private async restore(store: LastGoodStore): Promise<void> {
    const { source, log } = this.options;
    await source.ready();
    let rows: LastGoodVersion[];
    try {
      rows = await store.list(source.namespace);
    } catch (err) {
      log.error({ err }, 'last good policy versions could not be read; a policy that does not compile is not in force');
      this.versions.startWriting();
      throw new PolicyRestoreError({ cause: err });
    }
    if (this.closed) return;
    const current = new Map(source.list('Policy').map((d) => [policyKey(d), d]));
    let restored = 0;
    for (const row of rows) {
      const key = `${row.namespace}/${row.name}`;
      const doc = current.get(key);
      if (!doc || (row.uid !== undefined && doc.metadata.uid !== undefined && row.uid !== doc.metadata.uid)) {
        this.versions.drop(key, row.uid);
        continue;
      }
      this.versions.storedAs(key, row.hash);
      if (this.versions.has(key)) continue;
      const built = rebuildStored(row, this.wasm);
      if ('error' in built) {
        log.warn({ policy: row.name, namespace: row.namespace, error: built.error }, 'stored policy version ignored');
        continue;
      }
      const restoredFrom = { storedAt: row.storedAt };
      this.versions.restore(key, {
        loaded: built.loaded,
        hash: row.hash,
        generation: row.generation,
        restored: restoredFrom,
      });
      restored++;
    }
    this.versions.startWriting();
    log.info({ stored: rows.length, restored }, 'last good policy versions read from the store');
    if (restored) this.rebuild();
  }
}

/** A stored version, validated and compiled again (the engine may have changed since it was stored). */
function rebuildStored(row: LastGoodVersion, wasm: WasmCache): ReturnType<typeof buildPolicy> {
  const result = validateManifest(row.document);
  if (!result.valid || result.resource?.kind !== 'Policy')
    return { error: `not a valid Policy: ${result.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}` };
  return buildPolicy(result.resource, undefined, wasm, row.bundle);
}

const NO_KINDS: readonly string[] = Object.freeze([]);
const EMPTY_PLAN_KEY = planKey([]);
