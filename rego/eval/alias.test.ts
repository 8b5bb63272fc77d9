import { describe, expect, it } from 'vitest';
import { compile } from '../engine.js';
import { PolicySet } from '../policyset.js';
import { toJS } from '../value.js';
import type { NodeIR } from './ir.js';

/** The same helper in two packages, as the built-in pack repeats `texts` in every policy. */
const module = (pkg: string, extra = '') => `package ${pkg}
texts contains t if {
	t := input.query
	print("texts")
	is_string(t)
}
texts contains t if {
	some m in input.messages
	t := m.content
}
deny contains "hit" if {
	some t in texts
	contains(t, "boom")
}
${extra}`;

function node(root: NodeIR, path: string): NodeIR {
  return path.split('.').reduce((n, k) => n.children.get(k)!, root);
}

describe('identical documents in different packages', () => {
  it('aliases them and computes the document once per evaluation, with the same results', () => {
    const p = compile([
      { name: 'a.rego', source: module('a') },
      { name: 'b.rego', source: module('b') },
    ]);
    expect(node(p.plan.root, 'b.texts').alias).toBe(node(p.plan.root, 'a.texts'));
    const printed: string[] = [];
    const input = { query: 'a boom here', messages: [{ content: 'no' }] };
    const [a, b, ta, tb] = p.evalRefs(['data.a.deny', 'data.b.deny', 'data.a.texts', 'data.b.texts'], {
      input,
      print: (m) => printed.push(m),
    });
    expect([a, b].map((v) => toJS(v!))).toEqual([['hit'], ['hit']]);
    expect(toJS(ta!)).toEqual(['a boom here', 'no']);
    expect(toJS(tb!)).toEqual(toJS(ta!));
    // one print: b's texts came from the cache entry a's evaluation filled
    expect(printed).toHaveLength(1);
  });

  it('keeps apart documents whose plans differ only by what they refer to in their own package', () => {
    const own = (pkg: string) => `package ${pkg}\nlimit := 3\nover contains x if { some x in input.xs; x > limit }\n`;
    const p = compile([
      { name: 'a.rego', source: own('a') },
      { name: 'b.rego', source: own('b').replace('limit := 3', 'limit := 1') },
    ]);
    expect(node(p.plan.root, 'b.over').alias).toBeUndefined();
    const [a, b] = p.evalRefs(['data.a.over', 'data.b.over'], { input: { xs: [1, 2, 4] } });
    expect(toJS(a!)).toEqual([4]);
    expect(toJS(b!)).toEqual([2, 4]);
  });

  it('does not alias rules that read their own location through rego.metadata', () => {
    const chain = (pkg: string) => `package ${pkg}\npath := p if { c := rego.metadata.chain(); p := c[0].path }\n`;
    const p = compile([
      { name: 'a.rego', source: chain('a') },
      { name: 'b.rego', source: chain('b') },
    ]);
    expect(node(p.plan.root, 'b.path').alias).toBeUndefined();
    const [a, b] = p.evalRefs(['data.a.path', 'data.b.path']);
    expect([toJS(a!), toJS(b!)]).toEqual([
      ['data', 'a', 'path'],
      ['data', 'b', 'path'],
    ]);
  });

  it('gives a policy set the same decisions as separate evaluations', () => {
    const modules = [
      { name: 'a.rego', source: module('a') },
      { name: 'b.rego', source: module('b', 'warn contains "w" if some t in texts') },
    ];
    const set = PolicySet.compile(modules);
    const input = { query: 'boom', messages: [] };
    const together = set.evaluate(input).decisions.map((d) => [d.name, d.blocked, d.deny, d.warn]);
    const apart = modules
      .map((m) => PolicySet.compile([m]).evaluate(input).decisions[0]!)
      .map((d) => [d.name, d.blocked, d.deny, d.warn]);
    expect(together).toEqual(apart);
  });
});
