/**
 * Identical rules in different packages, computed once per evaluation. Policy sets repeat helpers in every
 * module (the built-in pack's five policies each collect the same `texts` from the input); a document whose
 * rules lower to the same plan — same bodies, same resolved refs, same builtins — has the same value, so the
 * scope caches it under one node for all of them.
 *
 * NB: only complete documents and partial sets without ref suffixes, at leaves of the rule tree: their value
 * comes from their rules alone (no base data or child documents merged in), so two such nodes with equal
 * plans can only differ in where they live. Left out of the comparison: positions, variable names (slots are
 * compared) and the metadata chain, which only rego.metadata.* can read (nodes calling it are not aliased).
 * A print() in such a rule prints once per evaluation, not once per package.
 */
import { RObject, RSet, toRegoText, type Value } from '../value.js';
import type { NodeIR } from './ir.js';

export function aliasIdenticalDocuments(root: NodeIR): void {
  const first = new Map<string, NodeIR>();
  const visit = (node: NodeIR): void => {
    for (const child of node.children.values()) visit(child);
    if (!eligible(node)) return;
    const sig = signature(node);
    // rego.metadata.chain() and rule() read where the rule lives.
    if (sig.includes('"name":"rego.metadata.')) return;
    const canonical = first.get(sig);
    if (canonical === undefined) first.set(sig, node);
    else node.alias = canonical;
  };
  visit(root);
}

function eligible(node: NodeIR): boolean {
  if (node.children.size > 0 || node.rules.length === 0) return false;
  return node.kind === 'complete' || node.kind === 'multi';
}

/** The plan of a node's rules without source positions, names of rule nodes instead of the nodes. */
function signature(node: NodeIR): string {
  return JSON.stringify({ kind: node.kind, rules: node.rules, default: node.default }, function (key, value: unknown) {
    if (key === 'loc' || key === 'text' || key === 'builtin' || key === 'n' || key === 'chain' || key === 'annotations')
      return undefined;
    if (typeof value === 'bigint') return `${value}n`;
    if (value instanceof RObject || value instanceof RSet) return { $rego: toRegoText(value as Value) };
    if (
      value !== null &&
      typeof value === 'object' &&
      (value as Partial<NodeIR>).children instanceof Map &&
      this !== undefined &&
      key !== ''
    ) {
      return { $node: (value as NodeIR).path.join('.') };
    }
    return value;
  });
}
