/**
 * Virtual documents: a node's document merges base data, child documents and its rules' values (complete,
 * partial set/object, general ref heads), with OPA's conflict errors; refs into `data` reach them through
 * collections/walk.ts. Functions are evaluated per argument tuple and memoized per scope.
 */
import { RegoEvalError, type Location } from '../errors.js';
import { RSet, equal, type Value } from '../value.js';
import { DocBuilder } from './docs.js';
import type { BodyIR, ExprIR, NodeIR, RuleIR, TermIR } from './ir.js';
import { lookup } from './iterate.js';
import type { ConstFrame } from './consts.js';
import { ArgMemo } from './memo.js';
import { NOT_DIRECT, UNDEFINED, type Scope } from './scope.js';
import type { Frame, K, KV } from './terms.js';
import { UnifyEvaluator } from './unify.js';

/** The scope's memo of a function's or keyed node's results. */
function memoOf(sc: Scope, node: NodeIR): ArgMemo {
  const memos = (sc.fnCache ??= new Map());
  let memo = memos.get(node);
  if (memo === undefined) memos.set(node, (memo = new ArgMemo()));
  return memo;
}

/** runRule's answer: bits of whether the rule had a solution and whether onSolution asked to stop. */
const FOUND = 1;
const STOP = 2;

/**
 * A function's arguments bound into its frame when every parameter is a var or a constant (what match does for
 * those, without continuations): true when bound, false when an argument does not match, undefined when some
 * parameter is a pattern (the frame is then untouched; see ruleMatched).
 */
function bindArgs(params: readonly TermIR[], args: readonly Value[], f: Frame): boolean | undefined {
  for (let j = 0; j < params.length; j++) {
    const p = params[j]!;
    if (p.k !== 'v' && p.k !== 'c') return undefined;
  }
  for (let j = 0; j < params.length; j++) {
    const p = params[j]!;
    if (p.k === 'c') {
      if (!equal(p.v, args[j]!)) return false;
    } else if (p.k === 'v') {
      const cur = f[p.s];
      if (cur === undefined) f[p.s] = args[j];
      else if (!equal(cur, args[j]!)) return false;
    }
  }
  return true;
}

function conflict(message: string, loc: Location): RegoEvalError {
  return new RegoEvalError('eval_conflict_error', message, loc);
}

export abstract class DocumentEvaluator extends UnifyEvaluator {
  /** the constant document being computed, if any (see consts.ts) */
  private constFrame: ConstFrame | undefined = undefined;

  callFunction(node: NodeIR, args: Value[], sc: Scope, k: KV): boolean {
    const res = this.functionValue(node, args, sc);
    return res === undefined ? false : k(res);
  }

  /** A user function's value for the arguments (undefined when undefined), memoized per scope. */
  functionValue(node: NodeIR, args: Value[], sc: Scope): Value | undefined {
    const memo = memoOf(sc, node);
    let res = memo.get(args);
    if (res === undefined) {
      let result: Value | undefined;
      for (const rule of node.rules) {
        this.evalRuleChain(rule, args, sc, (fr, r) => {
          const v = this.plug(r.value!, fr);
          if (result === undefined) result = v;
          else if (!equal(result, v))
            throw conflict('functions must not produce multiple outputs for same inputs', r.loc);
          return r.ground;
        });
      }
      if (result === undefined && node.default) {
        this.evalRuleChain(node.default, args, sc, (fr, r) => {
          result = this.plug(r.value!, fr);
          return true;
        });
      }
      res = result === undefined ? UNDEFINED : result;
      memo.set(args, res);
    }
    return res === UNDEFINED ? undefined : res;
  }

  /** An expression without a continuation (direct.ts): true/false, the slot it bound, or NOT_DIRECT. */
  protected abstract evalDirect(e: ExprIR, f: Frame, sc: Scope): boolean | number | typeof NOT_DIRECT;
  /** body[i] on the general path, then the rest of the body (evaluator.ts); body[i]'s step is already taken. */
  abstract evalGeneralThen(e: ExprIR, body: BodyIR, i: number, f: Frame, sc: Scope, k: K): boolean;

  /**
   * Evaluates a rule's body (binding function args first); if it has no solution, its else
   * chain. `onSolution` gets the frame of each solution and returns true to stop.
   */
  evalRuleChain(
    rule: RuleIR,
    args: readonly Value[] | undefined,
    sc: Scope,
    onSolution: (f: Frame, r: RuleIR) => boolean,
    /** keyed lookup into a partial rule: the key term is matched before the body runs */
    key?: Value,
  ): boolean {
    let res: number;
    if (args !== undefined && rule.args !== undefined) {
      if (args.length !== rule.args.length) return false;
      const f: Frame = new Array(rule.nslots);
      const bound = bindArgs(rule.args, args, f);
      res =
        bound === true
          ? this.runRule(rule, f, sc, onSolution)
          : bound === false
            ? 0
            : this.ruleMatched(rule, args, undefined, sc, onSolution);
    } else if (key !== undefined) {
      res = this.ruleMatched(rule, undefined, key, sc, onSolution);
    } else res = this.runRule(rule, new Array(rule.nslots), sc, onSolution);
    if ((res & FOUND) === 0 && rule.else !== undefined) return this.evalRuleChain(rule.else, args, sc, onSolution);
    return (res & STOP) !== 0;
  }

  /**
   * A rule's body in a loop while its expressions are deterministic (most rule bodies are, to the end), the
   * general path from the first one that is not: evalBody's steps and results, without a continuation per
   * rule. NB: the slots the loop binds are not unbound: the frame is the rule's own and dies with the call.
   */
  protected runRule(rule: RuleIR, f: Frame, sc: Scope, onSolution: (f: Frame, r: RuleIR) => boolean): number {
    const body = rule.body;
    for (let i = 0; ; i++) {
      this.sh.step();
      if (i === body.length) return onSolution(f, rule) ? FOUND | STOP : FOUND;
      const e = body[i]!;
      const r = e.with === undefined ? this.evalDirect(e, f, sc) : NOT_DIRECT;
      if (r === NOT_DIRECT) return this.ruleRest(rule, i, f, sc, onSolution);
      if (r === false) return 0;
    }
  }

  /** runRule from body[i] on, with a continuation (a method of its own: see evalTermK). */
  protected ruleRest(
    rule: RuleIR,
    i: number,
    f: Frame,
    sc: Scope,
    onSolution: (f: Frame, r: RuleIR) => boolean,
  ): number {
    let found = false;
    // NB: continuations are inline arrows, never named consts: tsx (esbuild keepNames) wraps every
    // named closure in a defineProperty call, which showed up in the gateway's profile.
    const stop = this.evalGeneralThen(rule.body[i]!, rule.body, i, f, sc, () => ((found = true), onSolution(f, rule)));
    return (found ? FOUND : 0) | (stop ? STOP : 0);
  }

  /** A rule whose arguments or key are patterns to match (general path, a frame of its own). */
  protected ruleMatched(
    rule: RuleIR,
    args: readonly Value[] | undefined,
    key: Value | undefined,
    sc: Scope,
    onSolution: (f: Frame, r: RuleIR) => boolean,
  ): number {
    const f: Frame = new Array(rule.nslots);
    let found = false;
    let stop: boolean;
    if (args !== undefined) {
      stop = this.matchItems(rule.args!, args, 0, f, sc, () =>
        this.evalBody(rule.body, 0, f, sc, () => ((found = true), onSolution(f, rule))),
      );
    } else {
      const kt = rule.kind === 'multi' ? rule.key : rule.suffix[0];
      stop =
        kt === undefined
          ? false
          : this.match(kt, key!, f, sc, () =>
              this.evalBody(rule.body, 0, f, sc, () => ((found = true), onSolution(f, rule))),
            );
    }
    return (found ? FOUND : 0) | (stop ? STOP : 0);
  }

  /**
   * Whether `node[key]` can be evaluated for one key without computing the whole document: a
   * partial set or single-level partial object, not yet computed, without base data or children.
   */
  protected keyable(node: NodeIR, base: Value | undefined, sc: Scope): boolean {
    if (base !== undefined || node.children.size > 0 || sc.cache.has(node.alias ?? node) || sc.overridden !== undefined)
      return false;
    if (node.constDoc?.strict === this.sh.strict && this.sharedConst(node, sc)) return false;
    if (node.kind === 'multi') return true;
    if (node.kind === 'object') {
      for (const r of node.rules) if (r.kind !== 'object' || r.suffix.length !== 1) return false;
      return true;
    }
    return false;
  }

  /** `node[key]` for a keyable node: its rules evaluated with the key bound first (memoized per scope). */
  protected keyed(node: NodeIR, key: Value, sc: Scope): Value | undefined {
    const memo = memoOf(sc, node);
    const hit = memo.get1(key);
    if (hit !== undefined) return hit === UNDEFINED ? undefined : hit;
    let result: Value | undefined;
    for (const rule of node.rules) {
      this.evalRuleChain(
        rule,
        undefined,
        sc,
        (fr, r) => {
          if (r.kind === 'multi') {
            result = key;
            return true;
          }
          const v = this.plug(r.value!, fr);
          if (result === undefined) result = v;
          else if (!equal(result, v)) throw conflict('object keys must be unique', r.loc);
          return r.ground;
        },
        key,
      );
      if (result !== undefined && node.kind === 'multi') break;
    }
    memo.set1(key, result === undefined ? UNDEFINED : result);
    return result;
  }

  /** The document at a node: rule values merged with base data and child documents. Cached per scope. */
  docOf(node: NodeIR, base: Value | undefined, sc: Scope): Value | undefined {
    const shared = this.sharedConst(node, sc);
    if (shared && this.constFrame !== undefined) this.constFrame.deps.add(node);
    // NB: constant documents are stored per node (consts.ts); others under the node with the same plan.
    const key = shared ? node : (node.alias ?? node);
    const hit = sc.cache.get(key);
    if (hit !== undefined) return hit === UNDEFINED ? undefined : hit;
    if (shared && node.constDoc?.strict === this.sh.strict) {
      const steps = this.consts!.adopt(node, sc.cache, this.sh.strict);
      if (this.constFrame !== undefined) this.constFrame.nested += steps;
      this.sh.charge(steps);
      const v = sc.cache.get(node);
      return v === UNDEFINED ? undefined : v;
    }
    if (sc.inProgress.includes(key)) {
      throw new RegoEvalError(
        'rego_recursion_error',
        `rule data.${node.path.join('.')} is recursive`,
        node.rules[0]?.loc,
      );
    }
    const frame: ConstFrame | undefined = shared
      ? { start: this.sh.steps, nested: 0, deps: new Set(), parent: this.constFrame }
      : undefined;
    if (frame !== undefined) this.constFrame = frame;
    sc.inProgress.push(key);
    let doc: Value | undefined;
    try {
      doc = this.computeDoc(node, base, sc);
    } finally {
      sc.inProgress.pop();
      if (frame !== undefined) this.constFrame = frame.parent;
    }
    const stored = doc === undefined ? UNDEFINED : doc;
    sc.cache.set(key, stored);
    if (frame !== undefined) {
      const total = this.sh.steps - frame.start;
      if (frame.parent !== undefined) frame.parent.nested += total;
      node.constDoc = { value: stored, steps: total - frame.nested, deps: [...frame.deps], strict: this.sh.strict };
    }
    return doc;
  }

  /** Whether the node's document may come from (and go to) the plan's constant documents in this scope. */
  protected sharedConst(node: NodeIR, sc: Scope): boolean {
    return (
      this.consts !== undefined &&
      sc.overridden === undefined &&
      sc.fnPatches === undefined &&
      this.consts.isConstant(node)
    );
  }

  protected computeDoc(node: NodeIR, base: Value | undefined, sc: Scope): Value | undefined {
    switch (node.kind) {
      case 'complete':
        return this.evalComplete(node, sc);
      case 'function':
        // NB: a zero-argument function is also a document (OPA includes `f() := 1` in its package).
        return node.arity === 0 ? this.functionValue(node, [], sc) : undefined;
      case 'multi':
        return this.evalMulti(node, sc);
      default:
        break;
    }
    return this.mergeDoc(node, base, sc);
  }

  /** A document merged from base data, child documents and rule values (a method of its own: see evalTermK). */
  protected mergeDoc(node: NodeIR, base: Value | undefined, sc: Scope): Value | undefined {
    const b = new DocBuilder(base);
    // NB: data.system is OPA's system document; the root document hides it.
    if (node.path.length === 0) b.remove('system');
    for (const [key, child] of node.children) {
      if (node.path.length === 0 && key === 'system') continue;
      const cb = base === undefined ? undefined : lookup(base, key);
      if (sc.overridden?.has(child)) {
        if (cb !== undefined) b.setTop(key, cb);
        continue;
      }
      const v = this.docOf(child, cb, sc);
      if (v !== undefined) b.setTop(key, v);
    }
    for (const rule of node.rules) {
      this.evalRuleChain(rule, undefined, sc, (fr, r) => {
        const keys = r.suffix.map((t) => this.plug(t, fr));
        if (r.kind === 'multi') b.addMember(keys, this.plug(r.key!, fr), r.loc);
        else b.insert(keys, this.plug(r.value!, fr), r.loc);
        return r.ground;
      });
    }
    return b.finish();
  }

  protected evalComplete(node: NodeIR, sc: Scope): Value | undefined {
    let result: Value | undefined;
    for (const rule of node.rules) {
      this.evalRuleChain(rule, undefined, sc, (fr, r) => {
        const v = this.plug(r.value!, fr);
        if (result === undefined) result = v;
        else if (!equal(result, v)) throw conflict('complete rules must not produce multiple outputs', r.loc);
        return r.ground;
      });
    }
    if (result === undefined && node.default) {
      this.evalRuleChain(node.default, undefined, sc, (fr, r) => {
        result = this.plug(r.value!, fr);
        return true;
      });
    }
    return result;
  }

  protected evalMulti(node: NodeIR, sc: Scope): Value {
    const out = new RSet();
    for (const rule of node.rules) {
      this.evalRuleChain(rule, undefined, sc, (fr, r) => {
        out.add(this.plug(r.key!, fr));
        return r.ground;
      });
    }
    return out;
  }
}
