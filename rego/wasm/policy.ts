/**
 * The decision interface over a precompiled OPA wasm policy (@open-policy-agent/opa-wasm). The
 * same contract as rego/decision.ts: entrypoints `<pkg>/deny`, `<pkg>/warn`, `<pkg>/allow`.
 */
import { readFile } from 'node:fs/promises';
import * as opaWasm from '@open-policy-agent/opa-wasm';
import { loadPolicy, type LoadedPolicy } from '@open-policy-agent/opa-wasm';
import type { Decision, DecisionLimits } from '../decision.js';
import { RSet, fromJS, toJS, toJSONText, type Value } from '../value.js';
import { readBundle } from './bundle.js';

// NB: the package's ES entry exports only loadPolicy by name (its types declare more); the rest is on its default.
const { loadPolicySync } = (opaWasm as unknown as { default: typeof opaWasm }).default;

export class WasmPolicy {
  private constructor(
    private readonly loaded: LoadedPolicy,
    /** entrypoint name → id */
    readonly entrypoints: ReadonlyMap<string, number>,
  ) {}

  /** Loads a `.tar.gz` bundle or a bare `.wasm` module. */
  static async load(bytes: Uint8Array): Promise<WasmPolicy> {
    const bundle = readBundle(bytes);
    const loaded = await loadPolicy(bundle.wasm);
    loaded.setData(toJS(bundle.data) as object);
    const eps = new Map<string, number>(Object.entries((loaded.entrypoints ?? {}) as Record<string, number>));
    return new WasmPolicy(loaded, eps);
  }

  /**
   * `load`, compiling and instantiating the module synchronously (Node allows it on any thread): for callers that
   * load policies in a synchronous compile step (runtime/policy).
   */
  static loadSync(bytes: Uint8Array): WasmPolicy {
    const bundle = readBundle(bytes);
    const loaded = loadPolicySync(bundle.wasm);
    loaded.setData(toJS(bundle.data) as object);
    const eps = new Map<string, number>(Object.entries((loaded.entrypoints ?? {}) as Record<string, number>));
    return new WasmPolicy(loaded, eps);
  }

  static async loadFile(path: string): Promise<WasmPolicy> {
    return WasmPolicy.load(new Uint8Array(await readFile(path)));
  }

  setData(data: unknown): void {
    this.loaded.setData(toJS(fromJS(data)) as object);
  }

  /** The entrypoint's value for this input, or undefined when undefined. */
  evaluate(entrypoint: string, input: unknown): Value | undefined {
    if (!this.entrypoints.has(entrypoint)) throw new TypeError(`unknown wasm entrypoint ${entrypoint}`);
    const rs = this.loaded.evaluate(toJS(fromJS(input ?? null)), entrypoint) as { result?: unknown }[] | undefined;
    const first = rs?.[0];
    return first === undefined || !('result' in first) ? undefined : fromJS(first.result);
  }

  /**
   * The decision for a package (`steward/pii` or `steward.pii`).
   * NB: wasm evaluation cannot be interrupted; the deadline is checked after each entrypoint.
   */
  decide(pkg: string, input: unknown, limits: DecisionLimits = {}): Decision {
    const t0 = performance.now();
    const base = pkg.replace(/^data\./, '').replace(/\./g, '/');
    const name = base.replace(/\//g, '.');
    const has = (r: string): boolean => this.entrypoints.has(`${base}/${r}`);
    try {
      const deadline = limits.deadlineMs ?? 100;
      const run = (r: string): Value | undefined => {
        if (!has(r)) return undefined;
        const v = this.evaluate(`${base}/${r}`, input);
        if (performance.now() - t0 > deadline) throw new Error(`evaluation exceeded its deadline of ${deadline} ms`);
        return v;
      };
      const deny = msgs(run('deny'));
      const warn = msgs(run('warn'));
      const allow = run('allow');
      const blocked = deny.length > 0 || (has('allow') && allow !== true);
      return {
        package: name,
        blocked,
        deny,
        warn,
        allow: allow === undefined ? undefined : allow === true,
        durationMs: performance.now() - t0,
      };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const code = /deadline/.test(message) ? 'eval_cancel_error' : 'wasm_eval_error';
      return {
        package: name,
        blocked: true,
        deny: [],
        warn: [],
        allow: undefined,
        error: { code, message },
        durationMs: performance.now() - t0,
      };
    }
  }
}

function msgs(v: Value | undefined): string[] {
  if (v === undefined || v === false || v === null) return [];
  const items = v instanceof RSet ? v.values() : Array.isArray(v) ? v : v === true ? ['deny'] : [v];
  return items.map((m) => (typeof m === 'string' ? m : toJSONText(m)));
}
