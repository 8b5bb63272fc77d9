/**
 * OPA's JSON form of a parsed module (what rego.parse_module returns): terms as
 * `{"type": …, "value": …}`, expressions with their index, rules with head and body.
 * Locations are omitted, as in OPA's default JSON output.
 */
import { RObject, type Value } from '../value.js';
import type { Expr, LogicNode, Module, Rule, Term, With } from './ast.js';
import { scalarValue } from './parser-scalars.js';

function obj(entries: [string, Value | undefined][]): RObject {
  const o = new RObject();
  for (const [k, v] of entries) if (v !== undefined) o.set(k, v);
  return o;
}

function typed(type: string, value: Value): RObject {
  return obj([
    ['type', type],
    ['value', value],
  ]);
}

export function termJSON(t: Term): Value {
  switch (t.type) {
    case 'scalar': {
      const v = t.value;
      if (v === null) return typed('null', null);
      if (typeof v === 'boolean') return typed('boolean', v);
      if (typeof v === 'string') return typed('string', v);
      return typed('number', scalarValue(t));
    }
    case 'var':
      return typed('var', t.name);
    case 'ref':
      return typed('ref', t.terms.map(termJSON));
    case 'array':
      return typed('array', t.items.map(termJSON));
    case 'set':
      return typed('set', t.items.map(termJSON));
    case 'object':
      return typed(
        'object',
        t.items.map(([k, v]) => [termJSON(k), termJSON(v)]),
      );
    case 'call':
      return typed('call', [termJSON(t.fn), ...t.args.map(termJSON)]);
    case 'arraycompr':
      return typed(
        'arraycomprehension',
        obj([
          ['term', termJSON(t.head)],
          ['body', bodyJSON(t.body)],
        ]),
      );
    case 'setcompr':
      return typed(
        'setcomprehension',
        obj([
          ['term', termJSON(t.head)],
          ['body', bodyJSON(t.body)],
        ]),
      );
    case 'objectcompr':
      return typed(
        'objectcomprehension',
        obj([
          ['key', termJSON(t.key)],
          ['value', termJSON(t.value)],
          ['body', bodyJSON(t.body)],
        ]),
      );
    case 'template':
      return typed(
        'templatestring',
        t.parts.map((p) => (typeof p === 'string' ? typed('string', p) : exprJSON(p, 0))),
      );
  }
}

function withJSON(w: With): Value {
  return obj([
    ['target', termJSON(w.target)],
    ['value', termJSON(w.value)],
  ]);
}

function exprJSON(e: Expr, index: number): Value {
  const t = e.terms;
  let terms: Value;
  if (Array.isArray(t)) terms = t.map(termJSON);
  else if (t.type === 'some') terms = obj([['symbols', t.symbols.map(termJSON)]]);
  else if (t.type === 'every') {
    terms = obj([
      ['key', t.key ? termJSON(t.key) : null],
      ['value', termJSON(t.value)],
      ['domain', termJSON(t.domain)],
      ['body', bodyJSON(t.body)],
    ]);
  } else if (t.type === 'logic') terms = logicJSON(t.node);
  else terms = termJSON(t as Term);
  return obj([
    ['index', index],
    ['negated', e.negated ? true : undefined],
    ['terms', terms],
    ['with', e.with.length ? e.with.map(withJSON) : undefined],
  ]);
}

function logicJSON(n: LogicNode): Value {
  if (n.kind === 'body') return obj([['body', bodyJSON(n.body)]]);
  if (n.kind === 'not') return obj([['not', logicJSON(n.operand)]]);
  return obj([[n.kind, [logicJSON(n.left), logicJSON(n.right)]]]);
}

function bodyJSON(body: Expr[]): Value {
  return body.map((e, i) => exprJSON(e, i));
}

function ruleJSON(r: Rule): Value {
  const h = r.head;
  const first = h.ref[0];
  const name = h.ref.length === 1 && first?.type === 'var' ? first.name : undefined;
  const head = obj([
    ['name', name],
    ['args', h.args ? h.args.map(termJSON) : undefined],
    ['key', h.key ? termJSON(h.key) : undefined],
    ['value', h.value ? termJSON(h.value) : undefined],
    ['assign', h.assign ? true : undefined],
    ['ref', h.ref.map((t, i) => (i === 0 && t.type === 'var' ? typed('var', t.name) : termJSON(t)))],
  ]);
  return obj([
    ['default', r.default ? true : undefined],
    ['head', head],
    ['body', bodyJSON(r.body)],
    ['else', r.else ? ruleJSON(r.else) : undefined],
  ]);
}

export function moduleJSON(m: Module): Value {
  const pkg = [typed('var', 'data'), ...m.package.path.map((p) => typed('string', p))];
  return obj([
    ['package', obj([['path', pkg]])],
    [
      'imports',
      m.imports.length
        ? m.imports.map((i) =>
            obj([
              ['path', termJSON(i.path)],
              ['alias', i.alias],
            ]),
          )
        : undefined,
    ],
    ['rules', m.rules.length ? m.rules.map(ruleJSON) : undefined],
  ]);
}
