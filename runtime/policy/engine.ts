import { isDeepStrictEqual } from 'node:util';
import { expandRedactionKinds, LLM_OUTPUT_SURFACE, policySurface, type PolicyResource } from '../../api/index.js';
import { PolicySetCache } from '../../rego/index.js';
import type { Logger } from '../../platform/log.js';
import type { DeclarativeSource } from '../source/index.js';
import { describeFailure } from './failure.js';
import { PolicyFailureLog, type FailingPolicy, type FailureCount, type FailureLogOptions } from './failures.js';
import { PolicyInputTooLargeError, textBytes, textUnits } from './input-size.js';
import { IsolatePool, type IsolationOptions } from './isolate/pool.js';
import { warmUpPack } from './pack/index.js';
import { conflictMessage, resolvePackages } from './packages.js';
import { compileError, policyModule, WASM_NOT_EVALUATED } from './module.js';
import { failedPlan, planKey, ScopePlan, type PlanEntry, type PlanResult } from './plan.js';
import type { PolicyEvaluation, PolicyEvaluator, PolicyInput, PolicyOutcome, PolicyScope } from './types.js';
import type { PolicyObserver } from './observer.js';

/** Said at start, on every reload that leaves no policy, and on /health (degraded) while it lasts. */
export const NO_POLICY_WARNING =
  'no policy is enabled: every request is approved; enable a Policy, or the built-in pack (STEWARD_BUILTIN_POLICY_PACK=enabled)';

export interface EvalLimits {
  /** Wall-clock budget of one evaluation of the whole set. */
  deadlineMs: number;
  maxSteps: number;
}

export interface PolicyEngineOptions {
  source: DeclarativeSource;
  log: Logger;
  /** Limits of one evaluation; exceeding them blocks (fail closed). */
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
}

interface Loaded {
  doc: PolicyResource;
  entry: PlanEntry;
}

/** This process's view of one Policy after a compile: what `Policy.status.byPod` reports in a cluster. */
export interface PolicyLoadState {
  namespace: string;
  name: string;
  /** metadata.generation of the version seen (0 where the source has none: files). */
  generation: number;
  /**
   * The version seen is in force (compiled), or disabled as it asks. False: it did not compile (the last good
   * version, if any, stays in force) or cannot be evaluated here (wasm).
   */
  loaded: boolean;
  /** Why not, with file:line:column for Rego. */
  error?: string;
}

/**
 * Every enabled Policy document of the source, compiled into one plan per scope (surface × tenant named by some
 * policy, and the untenanted scope) before any request, and evaluated in priority order. A policy whose new
 * version does not compile keeps its last good version and is reported by `problems()`; the others are
 * unaffected. A policy whose evaluation fails blocks the request and is counted (`failing()`, `failureCounts()`).
 */
export class RegoPolicyEngine implements PolicyEvaluator {
  private loaded: Loaded[] = [];
  private compileProblems: { policy: string; message: string }[] = [];
  private lastGood = new Map<string, Loaded>();
  private states: PolicyLoadState[] = [];
  /** What each policy's last rebuild saw: a status-only change (another writer) recompiles nothing. */
  private seen = new Map<string, unknown>();
  /** Enabled redact policies (no Rego: the detectors of runtime/redact are their rule). */
  private redactDocs: PolicyResource[] = [];
  /** redactKinds() per organization × tenant key, emptied by every rebuild (it is called per request). */
  private redactCache = new Map<string, readonly string[]>();
  private readonly compiledListeners = new Set<(states: readonly PolicyLoadState[]) => void>();
  private readonly sets = new PolicySetCache(256);
  /**
   * plans by scope key (`surface \0 organization \0 tenant`); organizations and tenants no policy names share the
   * unscoped plans
   */
  private byScope = new Map<string, ScopePlan>();
  private namedTenants = new Set<string>();
  private namedOrganizations = new Set<string>();
  private readonly failureLog: PolicyFailureLog;
  private readonly pool: IsolatePool | undefined;
  private readonly limits: Required<EvalLimits>;
  private readonly inputMaxBytes: number;
  private readonly inlineMaxBytes: number;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: PolicyEngineOptions) {
    this.limits = { deadlineMs: options.limits.deadlineMs, maxSteps: options.limits.maxSteps };
    this.inputMaxBytes = options.inputMaxBytes ?? 262_144;
    this.inlineMaxBytes = options.inlineMaxBytes ?? 8_192;
    this.failureLog = new PolicyFailureLog(options.failures);
    this.pool = options.isolation === false ? undefined : new IsolatePool(options.log, options.isolation);
    this.rebuild();
    this.unsubscribe = options.source.subscribe((events) => {
      if (
        events.some(
          (e) =>
            e.resource.kind === 'Policy' &&
            (e.type !== 'modified' ||
              !isDeepStrictEqual(
                this.seen.get(policyKey(e.resource as PolicyResource)),
                compiledPart(e.resource as PolicyResource),
              )),
        )
      ) {
        this.rebuild();
      }
    });
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
    return [...this.loaded.map((l) => l.doc.metadata.name), ...this.redactDocs.map((d) => d.metadata.name)];
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
        if (inScope(doc, scope)) for (const k of expandRedactionKinds(doc.spec.redact?.kinds ?? [])) set.add(k);
      }
      kinds = Object.freeze([...set]);
      // NB: bounded: caller-chosen tenants that no policy names all map to the same answer, but still get a key
      if (this.redactCache.size >= 1024) this.redactCache.clear();
      this.redactCache.set(key, kinds);
    }
    return kinds;
  }

  /** Whether some Rego policy (block, warn or log) applies to this scope: false lets callers skip `evaluate`. */
  hasPolicies(scope: PolicyScope): boolean {
    return this.planFor(scope).key !== EMPTY_PLAN_KEY;
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
    const plan = this.planFor(scope);
    // NB: the limits apply to the text as sent; the normalized copies (at most four times as long, runtime/text)
    // are added by the plan, inline or on the worker (plan.ts).
    // NB: 3 UTF-8 bytes at most per UTF-16 unit: the exact count is needed only for large inputs.
    if (textUnits(input) * 3 > this.inlineMaxBytes) {
      const bytes = textBytes(input);
      if (bytes > this.inputMaxBytes) throw new PolicyInputTooLargeError(bytes, this.inputMaxBytes);
      if (bytes > this.inlineMaxBytes && this.pool) return this.isolated(plan, input);
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
    return this.conclude(result);
  }

  close(): void {
    this.unsubscribe();
    this.pool?.close();
  }

  private async isolated(plan: ScopePlan, input: PolicyInput): Promise<PolicyEvaluation> {
    const t0 = performance.now();
    const outcome = await this.pool!.evaluate(plan.key, input, this.limits);
    if ('result' in outcome) return this.conclude(outcome.result);
    return this.conclude(
      failedPlan(plan, { class: outcome.failure, message: outcome.message }, performance.now() - t0),
    );
  }

  private conclude(result: PlanResult): PolicyEvaluation {
    const triggered: string[] = [];
    const warnings: string[] = [];
    const logged: string[] = [];
    let blockReason: string | undefined;
    const evaluated: string[] = [];
    let failed: { policy: string; class: string; error: string }[] | undefined;
    for (const d of result.decisions) {
      // Modules are named `<policy>.rego` so that compile errors read `<policy>.rego:3:7`.
      const name = policyName(d.name);
      evaluated.push(name);
      if (d.failure) {
        // A failure blocks whatever the action: the action says what a deny does, and this is no deny.
        this.failureLog.record(name, d.failure.class);
        (failed ??= []).push({ policy: name, class: d.failure.class, error: d.failure.message });
        triggered.push(name);
        blockReason ??= `${name}: evaluation failed (${describeFailure(d.failure.class)})`;
        continue;
      }
      for (const w of d.warn) warnings.push(`${name}: ${w}`);
      if (!d.blocked) {
        if (d.warn.length) triggered.push(name);
        continue;
      }
      const messages = d.deny.length ? d.deny : ['not allowed by policy'];
      if (d.action === 'block') {
        triggered.push(name);
        blockReason ??= `${name}: ${messages[0]}`;
      } else if (d.action === 'warn') {
        triggered.push(name);
        for (const m of messages) warnings.push(`${name}: ${m}`);
      } else {
        logged.push(name);
      }
    }
    if (failed) this.options.log.error({ failures: failed }, 'policy evaluation failed; failing closed');
    const evaluation: PolicyEvaluation = {
      approved: blockReason === undefined,
      triggered: triggered.length > 1 ? [...new Set(triggered)] : triggered,
      blockReason,
      warnings,
      logged,
      evaluated,
      evaluationMs: result.durationMs,
    };
    this.options.observer?.concluded(result, evaluation);
    return evaluation;
  }

  private planFor(scope: PolicyScope): ScopePlan {
    const tenant = scope.tenantId !== undefined && this.namedTenants.has(scope.tenantId) ? scope.tenantId : '';
    const org =
      scope.organizationId !== undefined && this.namedOrganizations.has(scope.organizationId)
        ? scope.organizationId
        : '';
    // NB: every surface × named organization × named tenant is compiled by rebuild(), so this never compiles on a request.
    return this.byScope.get(`${scope.surface}\u0000${org}\u0000${tenant}`)!;
  }

  private rebuild(): void {
    const next: Loaded[] = [];
    const problems: { policy: string; message: string }[] = [];
    const states: PolicyLoadState[] = [];
    const seen = new Map<string, unknown>();
    const redactDocs: PolicyResource[] = [];
    for (const doc of this.options.source.list('Policy')) {
      const name = doc.metadata.name;
      const key = policyKey(doc);
      seen.set(key, compiledPart(doc));
      const state = { namespace: doc.metadata.namespace ?? 'default', name, generation: doc.metadata.generation ?? 0 };
      if (!doc.spec.enabled) {
        states.push({ ...state, loaded: true });
        continue;
      }
      if (doc.spec.action === 'redact') {
        // validated by the api rules: no Rego, kinds listed, scope llm_output only
        redactDocs.push(doc);
        states.push({ ...state, loaded: true });
        continue;
      }
      const module = policyModule(doc);
      if (module === undefined) {
        problems.push({ policy: name, message: WASM_NOT_EVALUATED });
        states.push({ ...state, loaded: false, error: WASM_NOT_EVALUATED });
        continue;
      }
      // Per-policy diagnostics: one broken policy must not take the others down.
      const message = compileError(module);
      if (message === undefined) {
        const loaded = { doc, entry: { module, strict: doc.spec.strictBuiltinErrors !== false } };
        this.lastGood.set(key, loaded);
        next.push(loaded);
        states.push({ ...state, loaded: true });
      } else {
        problems.push({ policy: name, message });
        states.push({ ...state, loaded: false, error: message });
        this.options.log.error({ policy: name, error: message }, 'policy does not compile');
        // NB: the last version that compiled stays in force (in this process's memory: a restart loses it).
        const old = this.lastGood.get(key);
        if (old) next.push(old);
      }
    }
    for (const key of this.lastGood.keys()) if (!seen.has(key)) this.lastGood.delete(key);
    // A policy that would merge into (or clash with) another's package in some scope is dropped, the less
    // trusted of the two (packages.ts): it could otherwise rewrite that policy's rules or break the scope's plan.
    const { kept, dropped } = resolvePackages(next);
    for (const { item, conflict } of dropped) {
      const message = conflictMessage(item.doc, conflict);
      problems.push({ policy: item.doc.metadata.name, message });
      const state = states.find(
        (st) => st.name === item.doc.metadata.name && st.namespace === (item.doc.metadata.namespace ?? 'default'),
      );
      if (state) Object.assign(state, { loaded: false, error: message });
      this.options.log.error({ policy: item.doc.metadata.name, error: message }, 'policy package conflicts');
    }
    next.splice(0, next.length, ...kept);
    this.seen = seen;
    this.states = states;
    this.loaded = next;
    this.compileProblems = problems;
    this.redactDocs = redactDocs;
    this.redactCache = new Map();
    this.compileScopes();
    this.failureLog.retain(next.map((l) => l.doc.metadata.name));
    // The warm-up fills the shared regex cache.
    warmUpPack(this.planFor({ surface: 'pre-check' }));
    this.options.log.info(
      { policies: next.length, failed: problems.length, scopes: this.byScope.size },
      'policies compiled',
    );
    if (next.length === 0) this.options.log.warn({ policies: 0 }, NO_POLICY_WARNING);
    for (const l of this.compiledListeners) {
      try {
        l(states);
      } catch (err) {
        this.options.log.error({ err }, 'policy compile listener failed');
      }
    }
  }

  /**
   * Compiles the plan of every surface × (each organization some policy names, and none) × (each tenant some policy
   * names, and none), sharing equal plans: only distinct policy lists compile.
   */
  private compileScopes(): void {
    const tenants = new Set<string>();
    const organizations = new Set<string>();
    for (const l of this.loaded) {
      for (const t of l.doc.spec.scope?.tenants ?? []) tenants.add(t);
      for (const o of l.doc.spec.scope?.organizations ?? []) organizations.add(o);
    }
    const previous = new Map([...this.byScope.values()].map((p) => [p.key, p]));
    const plans = new Map<string, ScopePlan>();
    const byScope = new Map<string, ScopePlan>();
    const entriesOf = new Map<string, PlanEntry[]>();
    const combos = ['', ...organizations].flatMap((org) => ['', ...tenants].map((tenant) => [org, tenant] as const));
    for (const surface of policySurface.options) {
      for (const [org, tenant] of combos) {
        const scope = { surface, organizationId: org || undefined, tenantId: tenant || undefined };
        const entries = this.loaded.filter((l) => inScope(l.doc, scope)).map((l) => l.entry);
        const key = planKey(entries);
        let plan = plans.get(key);
        if (!plan) {
          plan = previous.get(key) ?? new ScopePlan(key, entries, (modules) => this.sets.get(modules));
          plans.set(key, plan);
          entriesOf.set(key, entries);
        }
        byScope.set(`${surface}\u0000${org}\u0000${tenant}`, plan);
      }
    }
    this.byScope = byScope;
    this.namedTenants = tenants;
    this.namedOrganizations = organizations;
    this.pool?.load([...entriesOf]);
  }
}

const policyKey = (doc: PolicyResource) => `${doc.metadata.namespace}/${doc.metadata.name}`;

/** What a compile reads of a document: its spec and generation, not its status (other writers') nor its labels. */
const compiledPart = (doc: PolicyResource) => ({ spec: doc.spec, generation: doc.metadata.generation });

function policyName(module: string): string {
  return module.endsWith('.rego') ? module.slice(0, -5) : module;
}

const NO_KINDS: readonly string[] = Object.freeze([]);
const EMPTY_PLAN_KEY = planKey([]);

/**
 * Scope matching. NB: llm_output is opt-in: a policy without `scope.surfaces` applies to every input surface but
 * not to the answer, unless it is a redact policy (which applies to llm_output only, and by default).
 */
function inScope(doc: PolicyResource, scope: PolicyScope): boolean {
  const s = doc.spec.scope;
  if (s?.surfaces?.length) {
    if (!s.surfaces.includes(scope.surface)) return false;
  } else if ((scope.surface === LLM_OUTPUT_SURFACE) !== (doc.spec.action === 'redact')) {
    return false;
  }
  if (s?.tenants?.length && (scope.tenantId === undefined || !s.tenants.includes(scope.tenantId))) return false;
  if (
    s?.organizations?.length &&
    (scope.organizationId === undefined || !s.organizations.includes(scope.organizationId))
  )
    return false;
  return true;
}
