import { policySurface, type PolicyResource } from '../../api/index.js';
import { compile, PolicySet, PolicySetCache, type PolicyModule } from '../../rego/index.js';
import type { Logger } from '../log.js';
import type { DeclarativeSource } from '../source/index.js';
import { warmUpPack } from './pack/index.js';
import type { PolicyEvaluation, PolicyEvaluator, PolicyInput, PolicyScope } from './types.js';

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
}

interface Loaded {
  doc: PolicyResource;
  module: PolicyModule;
}

/**
 * Every enabled Policy document of the source, compiled into one plan per scope (rego PolicySet, cached by
 * content) and evaluated in priority order. A policy whose new version does not compile keeps its last good
 * version and is reported by `problems()`; the others are unaffected.
 */
export class RegoPolicyEngine implements PolicyEvaluator {
  private loaded: Loaded[] = [];
  private failures: { policy: string; message: string }[] = [];
  private lastGood = new Map<string, Loaded>();
  private readonly sets = new PolicySetCache(64);
  private readonly byScope = new Map<string, PolicySet>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: PolicyEngineOptions) {
    this.rebuild();
    this.unsubscribe = options.source.subscribe((events) => {
      if (events.some((e) => e.resource.kind === 'Policy')) this.rebuild();
    });
  }

  problems(): readonly { policy: string; message: string }[] {
    return this.failures;
  }

  /** Names of the policies in force. */
  active(): string[] {
    return this.loaded.map((l) => l.doc.metadata.name);
  }

  evaluate(input: PolicyInput, scope: PolicyScope): PolicyEvaluation {
    const set = this.setFor(scope);
    const result = set.evaluate(input, this.options.limits);
    const triggered: string[] = [];
    const warnings: string[] = [];
    const logged: string[] = [];
    let blockReason: string | undefined;
    const evaluated: string[] = [];
    for (const d of result.decisions) {
      // Modules are named `<policy>.rego` so that compile errors read `<policy>.rego:3:7`.
      const name = policyName(d.name);
      evaluated.push(name);
      if (d.error) this.options.log.error({ policy: name, error: d.error }, 'policy evaluation failed; failing closed');
      for (const w of d.warn) warnings.push(`${name}: ${w}`);
      if (!d.blocked) {
        if (d.warn.length) triggered.push(name);
        continue;
      }
      const messages = d.deny.length ? d.deny : [d.error ? `evaluation failed (${d.error.code})` : 'not allowed by policy'];
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
    return {
      approved: blockReason === undefined,
      triggered: [...new Set(triggered)],
      blockReason,
      warnings,
      logged,
      evaluated,
      evaluationMs: result.durationMs,
    };
  }

  close(): void {
    this.unsubscribe();
  }

  private setFor(scope: PolicyScope): PolicySet {
    const key = `${scope.surface}\u0000${scope.tenantId ?? ''}`;
    let set = this.byScope.get(key);
    if (!set) {
      const modules = this.loaded.filter((l) => inScope(l.doc, scope)).map((l) => l.module);
      set = this.sets.get(modules);
      // NB: per-tenant sets are bounded by the cache; the scope map only remembers the last 1,000 scopes.
      if (this.byScope.size >= 1000) this.byScope.clear();
      this.byScope.set(key, set);
    }
    return set;
  }

  private rebuild(): void {
    const next: Loaded[] = [];
    const failures: { policy: string; message: string }[] = [];
    for (const doc of this.options.source.list('Policy')) {
      if (!doc.spec.enabled) continue;
      const name = doc.metadata.name;
      if (doc.spec.rego === undefined) {
        failures.push({ policy: name, message: 'wasm bundles are not evaluated by the gateway yet' });
        continue;
      }
      const module: PolicyModule = {
        name: `${name}.rego`,
        source: doc.spec.rego,
        regoVersion: doc.spec.regoVersion,
        priority: doc.spec.priority,
        action: doc.spec.action,
      };
      const key = `${doc.metadata.namespace}/${name}`;
      try {
        compile([module]); // per-policy diagnostics: one broken policy must not take the others down
        const entry = { doc, module };
        this.lastGood.set(key, entry);
        next.push(entry);
      } catch (err) {
        const message = (err as { rendered?: string }).rendered ?? (err as Error).message;
        failures.push({ policy: name, message });
        this.options.log.error({ policy: name, error: message }, 'policy does not compile');
        const old = this.lastGood.get(key);
        if (old) next.push(old);
      }
    }
    this.loaded = next;
    this.failures = failures;
    this.byScope.clear();
    // Compile every surface's set now, not on a request; the warm-up fills the shared regex cache.
    for (const surface of policySurface.options) this.setFor({ surface });
    warmUpPack(this.setFor({ surface: 'pre-check' }));
    this.options.log.info({ policies: next.length, failed: failures.length }, 'policies compiled');
  }
}

function policyName(module: string): string {
  return module.endsWith('.rego') ? module.slice(0, -5) : module;
}

function inScope(doc: PolicyResource, scope: PolicyScope): boolean {
  const s = doc.spec.scope;
  if (s?.surfaces?.length && !s.surfaces.includes(scope.surface)) return false;
  if (s?.tenants?.length && (scope.tenantId === undefined || !s.tenants.includes(scope.tenantId))) return false;
  return true;
}
