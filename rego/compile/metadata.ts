/** rego.metadata.rule() / rego.metadata.chain() values, computed at compile time per rule. */
import { RObject, type Value } from '../value.js';
import type { PlacedRule } from './tree.js';

export function metadataFor(pr: PlacedRule): { rule: Value; chain: Value } {
  const ann = pr.rule.annotations?.value;
  const rule: Value = ann instanceof RObject ? withoutScope(ann) : new RObject();
  const chain: Value[] = [];
  const rulePath: Value[] = ['data', ...pr.nodePath];
  const entry = new RObject().set('path', rulePath);
  if (ann instanceof RObject) entry.set('annotations', ann);
  chain.push(entry);
  for (const a of pr.module.annotations) {
    if (a.scope === 'package' || a.scope === 'subpackages') {
      const e = new RObject().set('path', ['data', ...pr.module.package.path]).set('annotations', a.value);
      chain.push(e);
    }
  }
  return { rule, chain };
}

function withoutScope(o: RObject): RObject {
  const out = new RObject();
  for (const [k, v] of o.entries()) if (k !== 'scope' || v !== 'rule') out.set(k, v);
  out.set('scope', o.get('scope') ?? 'rule');
  return out;
}
