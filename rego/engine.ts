/**
 * PreparedPolicy: a compiled set of modules, evaluated many times against different inputs. All
 * parsing and planning happens once in `compile`; queries are compiled once and cached.
 */
import { defaultRegistry } from './builtins/index.js';
import type { BuiltinRegistry } from './builtins/registry.js';
import { compileModules, type ModuleSource, type Plan } from './compile/compiler.js';
import { compileQuery, type QueryPlan } from './compile/query.js';
import { RegoEvalError, RegoLimitError } from './errors.js';
import { aliasIdenticalDocuments } from './eval/alias.js';
import { ConstDocs } from './eval/consts.js';
import { Evaluator, type Frame } from './eval/evaluator.js';
import { termIR, type DataTermIR, type NodeIR, type TermIR } from './eval/ir.js';
import { Shared, newScope, type Limits } from './eval/scope.js';
import { RObject, fromJS, type Value } from './value.js';

export interface CompileOptions {
  /** builtins available to the policy @default the full default registry */
  registry?: BuiltinRegistry;
  /** base documents under `data` (merged with the rules' virtual documents) @default {} */
  data?: unknown;
  /**
   * accept OPA's experimental keywords (`import future.keywords.and|or|not`: `and`/`or` logic operators,
   * `not { … }`); opt-in per module by the import itself. `false` rejects the import as OPA does without
   * its experimental flag. @default true
   */
  experimentalKeywords?: boolean;
}

export interface EvalOptions extends Limits {
  /** the input document: a Value or plain JSON-like data */
  input?: unknown;
  /** base data for this evaluation (overrides the compile-time data) */
  data?: unknown;
  /** strict builtin errors: a builtin error aborts instead of making the expression undefined @default false */
  strict?: boolean;
  /** time.now_ns for this evaluation @default the current time */
  nowNs?: bigint;
  /** receives print() output */
  print?: (message: string) => void;
  /** what opa.runtime() returns @default {} */
  runtime?: unknown;
}

export type Bindings = Record<string, Value>;

const MAX_CACHED_QUERIES = 256;

function toValue(x: unknown): Value {
  return fromJS(x);
}

export class PreparedPolicy {
  private readonly queries = new Map<string, QueryPlan>();
  private readonly refs = new Map<string, DataTermIR>();
  private readonly baseData: Value;
  private readonly consts: ConstDocs;

  constructor(
    readonly plan: Plan,
    data: unknown,
  ) {
    this.baseData = data === undefined ? new RObject() : toValue(data);
    this.consts = new ConstDocs(plan.root);
    aliasIdenticalDocuments(plan.root);
  }

  private prepareQuery(q: string, regoVersion: 'v0' | 'v1'): QueryPlan {
    const key = `${regoVersion}\u0000${q}`;
    let qp = this.queries.get(key);
    if (qp === undefined) {
      qp = compileQuery(this.plan, q, regoVersion);
      if (this.queries.size >= MAX_CACHED_QUERIES) this.queries.delete(this.queries.keys().next().value!);
      this.queries.set(key, qp);
    }
    return qp;
  }

  private setup(opts: EvalOptions): { ev: Evaluator; sc: ReturnType<typeof newScope>; sh: Shared } {
    const sh = new Shared(
      opts,
      opts.strict === true,
      opts.nowNs,
      opts.print,
      opts.runtime === undefined ? undefined : toValue(opts.runtime),
    );
    const input = opts.input === undefined ? undefined : toValue(opts.input);
    const data = opts.data === undefined ? this.baseData : toValue(opts.data);
    return { ev: new Evaluator(this.plan.root, sh, this.consts), sc: newScope(input, data), sh };
  }

  /** All solutions of a query, as bindings of its variables. */
  query(q: string, opts: EvalOptions & { regoVersion?: 'v0' | 'v1' } = {}): Bindings[] {
    const qp = this.prepareQuery(q, opts.regoVersion ?? 'v1');
    const { ev, sc, sh } = this.setup(opts);
    const f: Frame = new Array(qp.nslots);
    const out: Bindings[] = [];
    try {
      ev.evalBody(qp.body, 0, f, sc, () => {
        const b: Bindings = {};
        for (const [name, slot] of qp.outputs) {
          const v = f[slot];
          if (v !== undefined) b[name] = v;
        }
        out.push(b);
        return false;
      });
      sh.checkFinished();
    } catch (e) {
      throw translate(e);
    }
    return out;
  }

  private refTerm(ref: string): DataTermIR {
    let t = this.refs.get(ref);
    if (t === undefined) {
      const parts = ref.split('.');
      if (parts[0] !== 'data' || parts.some((p) => p === ''))
        throw new TypeError(`expected a ref like data.pkg.rule, got ${ref}`);
      t = termIR<DataTermIR>({ k: 'data', path: parts.slice(1).map((p) => termIR<TermIR>({ k: 'c', v: p })), g: true });
      if (this.refs.size >= MAX_CACHED_QUERIES) this.refs.delete(this.refs.keys().next().value!);
      this.refs.set(ref, t);
    }
    return t;
  }

  /** The data terms of refs; the last list asked for is remembered (a policy set asks for the same one every time). */
  private refTerms(refs: readonly string[]): DataTermIR[] {
    const last = this.lastRefs;
    let same = refs.length === last.length;
    for (let i = 0; same && i < refs.length; i++) same = refs[i] === last[i];
    if (same) return this.lastTerms;
    const terms = refs.map((r) => this.refTerm(r));
    this.lastRefs = [...refs];
    this.lastTerms = terms;
    return terms;
  }

  private lastRefs: readonly string[] = [];
  private lastTerms: DataTermIR[] = [];

  /** The value of a ground ref such as `data.pkg.allow` (undefined when undefined). No parsing per call. */
  evalRef(ref: string, opts: EvalOptions = {}): Value | undefined {
    return this.evalRefs([ref], opts)[0];
  }

  /** Several ground refs evaluated in one evaluation (shared caches, one deadline). */
  evalRefs(refs: readonly string[], opts: EvalOptions = {}): (Value | undefined)[] {
    const terms = this.refTerms(refs);
    const { ev, sc, sh } = this.setup(opts);
    const out: (Value | undefined)[] = [];
    try {
      for (const t of terms) out.push(ev.valueAt(t, sc));
      sh.checkFinished();
    } catch (e) {
      throw translate(e);
    }
    return out;
  }

  /**
   * Like evalRefs, but an error in one ref does not prevent the others (except limit errors,
   * which end the evaluation: the remaining refs report the same error). An evaluation that ends
   * past its deadline reports the deadline error for every ref, values included.
   */
  evalRefsSettled(
    refs: readonly string[],
    opts: EvalOptions = {},
  ): ({ value: Value | undefined } | { error: unknown })[] {
    const terms = this.refTerms(refs);
    const { ev, sc, sh } = this.setup(opts);
    const out: ({ value: Value | undefined } | { error: unknown })[] = [];
    let fatal: unknown;
    for (const t of terms) {
      if (fatal !== undefined) {
        out.push({ error: fatal });
        continue;
      }
      try {
        out.push({ value: ev.valueAt(t, sc) });
      } catch (e) {
        const err = translate(e);
        if (err instanceof RegoLimitError) fatal = err;
        out.push({ error: err });
      }
    }
    if (fatal === undefined) {
      try {
        sh.checkFinished();
      } catch (late) {
        for (let i = 0; i < out.length; i++) out[i] = { error: late };
      }
    }
    return out;
  }

  private readonly definesCache = new Map<string, boolean>();

  /** Whether some rule (or default) of the modules defines the ground ref, e.g. `data.pkg.allow`. */
  defines(ref: string): boolean {
    const hit = this.definesCache.get(ref);
    if (hit !== undefined) return hit;
    const r = this.computeDefines(ref);
    if (this.definesCache.size < MAX_CACHED_QUERIES) this.definesCache.set(ref, r);
    return r;
  }

  private computeDefines(ref: string): boolean {
    const parts = ref.split('.');
    if (parts[0] !== 'data') return false;
    let n: NodeIR | undefined = this.plan.root;
    for (const p of parts.slice(1)) {
      n = n.children.get(p);
      if (n === undefined) return false;
    }
    return n.rules.length > 0 || n.default !== undefined;
  }

  /**
   * Whether a ground ref can have a value at all: some rule at or above its node, or any base data. A policy
   * set skips the decision refs a package does not define (most define `deny` only) instead of walking to them.
   */
  mayDefine(ref: string): boolean {
    if (!(this.baseData instanceof RObject) || this.baseData.size > 0) return true;
    const parts = ref.split('.');
    if (parts[0] !== 'data') return true;
    let n: NodeIR | undefined = this.plan.root;
    for (const p of parts.slice(1)) {
      if (n.rules.length > 0 || n.default !== undefined) return true;
      n = n.children.get(p);
      if (n === undefined) return false;
    }
    return n.hasRules || n.rules.length > 0 || n.default !== undefined;
  }

  /** Packages defined by the compiled modules, e.g. `steward.pii`. */
  packages(): string[] {
    return [...new Set(this.plan.modules.map((m) => m.package.path.join('.')))].sort();
  }
}

/** Converts a JS stack overflow (pathological nesting) into a typed evaluation error. */
function translate(e: unknown): unknown {
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new RegoEvalError('eval_limit_error', 'evaluation exceeded the maximum nesting depth', undefined, {
      cause: e,
    });
  }
  return e;
}

export function compile(modules: readonly ModuleSource[], opts: CompileOptions = {}): PreparedPolicy {
  const plan = compileModules(modules, opts.registry ?? defaultRegistry(), {
    experimentalKeywords: opts.experimentalKeywords !== false,
  });
  return new PreparedPolicy(plan, opts.data);
}

export type { ModuleSource };
