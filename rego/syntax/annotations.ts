/**
 * METADATA comment blocks (`# METADATA` followed by YAML in comments) attached to the package or
 * rule that follows them, as OPA does for rego.metadata.rule() / rego.metadata.chain().
 */
import { parse as parseYAML } from 'yaml';
import { diagnostic, type Diagnostic } from '../errors.js';
import { RObject, fromJS, type Value } from '../value.js';
import type { Annotations, Comment, Module } from './ast.js';

const SCOPES = new Set(['rule', 'document', 'package', 'subpackages']);

export function parseAnnotations(mod: Module): { errors: Diagnostic[] } {
  const errors: Diagnostic[] = [];
  const blocks: Comment[][] = [];
  let cur: Comment[] | undefined;
  const cs = mod.comments;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    if (cur !== undefined) {
      const prev = cs[i - 1]!;
      if (c.loc.row === prev.loc.row + 1 && c.loc.col === 1) {
        cur.push(c);
        continue;
      }
      cur = undefined;
    }
    if (c.text.trim().startsWith('METADATA')) {
      cur = [c];
      blocks.push(cur);
    }
  }
  for (const b of blocks) {
    const head = b[0]!;
    const yamlText = b
      .slice(1)
      .map((c) => (c.text.startsWith(' ') ? c.text.slice(1) : c.text))
      .join('\n');
    let raw: unknown;
    try {
      raw = yamlText.trim() === '' ? {} : parseYAML(yamlText);
    } catch (e) {
      errors.push(diagnostic('rego_parse_error', `yaml: ${(e as Error).message.split('\n')[0]}`, head.loc, mod.source));
      continue;
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      errors.push(diagnostic('rego_parse_error', 'yaml: unmarshal errors: expected a mapping', head.loc, mod.source));
      continue;
    }
    const lastRow = b[b.length - 1]!.loc.row;
    const target = nextNode(mod, lastRow);
    const obj = raw as Record<string, unknown>;
    const scope = typeof obj.scope === 'string' ? obj.scope : target?.kind === 'package' ? 'package' : 'rule';
    if (!SCOPES.has(scope)) {
      errors.push(diagnostic('rego_parse_error', `invalid annotation scope '${scope}'`, head.loc, mod.source));
      continue;
    }
    const ann: Annotations = {
      loc: head.loc,
      scope,
      value: annotationValue(obj, scope),
      ...(typeof obj.title === 'string' ? { title: obj.title } : {}),
      ...(typeof obj.description === 'string' ? { description: obj.description } : {}),
      ...(obj.entrypoint === true ? { entrypoint: true } : {}),
    };
    mod.annotations.push(ann);
    if (target?.kind === 'rule' && (scope === 'rule' || scope === 'document')) target.rule.annotations = ann;
    if (target?.kind === 'package' && scope !== 'package' && scope !== 'subpackages') {
      errors.push(
        diagnostic(
          'rego_parse_error',
          `annotation scope '${scope}' must be applied to rule (have package)`,
          head.loc,
          mod.source,
        ),
      );
    }
  }
  return { errors };
}

type Target = { kind: 'package' } | { kind: 'rule'; rule: Module['rules'][number] };

function nextNode(mod: Module, afterRow: number): Target | undefined {
  let best: { row: number; t: Target } | undefined;
  if (mod.package.loc.row > afterRow) best = { row: mod.package.loc.row, t: { kind: 'package' } };
  for (const r of mod.rules) {
    if (r.loc.row > afterRow && (best === undefined || r.loc.row < best.row))
      best = { row: r.loc.row, t: { kind: 'rule', rule: r } };
  }
  return best?.t;
}

/** OPA's JSON form of annotations: authors and related_resources normalized to objects. */
function annotationValue(obj: Record<string, unknown>, scope: string): Value {
  const out = new RObject();
  out.set('scope', scope);
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'scope' || v === undefined || v === null) continue;
    if (k === 'authors' && Array.isArray(v)) {
      out.set(
        k,
        v.map((a) => (typeof a === 'string' ? parseAuthor(a) : fromJS(a))),
      );
    } else if (k === 'related_resources' && Array.isArray(v)) {
      out.set(
        k,
        v.map((a) => (typeof a === 'string' ? RObject.from([['ref', a]]) : fromJS(a))),
      );
    } else out.set(k, fromJS(v));
  }
  return out;
}

function parseAuthor(s: string): Value {
  const m = /^(.*?)\s*<([^>]+)>\s*$/.exec(s.trim());
  const o = new RObject();
  if (m) {
    if (m[1]) o.set('name', m[1]);
    o.set('email', m[2]!);
  } else if (s.includes('@') && !s.includes(' ')) o.set('email', s.trim());
  else o.set('name', s.trim());
  return o;
}
