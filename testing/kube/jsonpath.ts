/**
 * The JSONPath subset that CRD `additionalPrinterColumns` and `/scale` paths use: `.a.b`, `['a.b']`,
 * `[0]`, `[*]`, and filters `[?(@.type=="Ready")]` with == or != against a literal.
 */

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; path: string[]; op: '==' | '!='; value: unknown };

export class JsonPathError extends Error {}

const cache = new Map<string, Step[]>();

export function parseJsonPath(src: string): Step[] {
  const hit = cache.get(src);
  if (hit) return hit;
  let s = src.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  if (s.startsWith('$')) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      i++;
      const m = /^[A-Za-z0-9_\-$]+/.exec(s.slice(i));
      if (!m) throw new JsonPathError(`unexpected character at ${i} in ${src}`);
      steps.push({ kind: 'field', name: m[0] });
      i += m[0].length;
    } else if (c === '[') {
      const end = findClose(s, i);
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$/.test(inner) || /^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1), src));
      else throw new JsonPathError(`unsupported bracket expression [${inner}] in ${src}`);
    } else {
      throw new JsonPathError(`unexpected character '${c}' at ${i} in ${src}`);
    }
  }
  cache.set(src, steps);
  return steps;
}

function findClose(s: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let i = open; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') {
      depth--;
      if (depth === 0 && c === ']') return i;
    }
  }
  throw new JsonPathError(`unterminated [ in ${s}`);
}

function parseFilter(expr: string, src: string): Step {
  const m = /^@((?:\.[A-Za-z0-9_\-]+)+)\s*(==|!=)\s*(.+)$/.exec(expr.trim());
  if (!m) throw new JsonPathError(`unsupported filter ${expr} in ${src}`);
  const raw = m[3]!.trim();
  let value: unknown;
  if (/^".*"$/.test(raw) || /^'.*'$/.test(raw)) value = raw.slice(1, -1);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  else if (!Number.isNaN(Number(raw))) value = Number(raw);
  else throw new JsonPathError(`unsupported filter value ${raw} in ${src}`);
  return { kind: 'filter', path: m[1]!.slice(1).split('.'), op: m[2] as '==' | '!=', value };
}

/** Every value the path selects, in document order. */
export function evalJsonPath(root: unknown, src: string): unknown[] {
  let cur: unknown[] = [root];
  for (const step of parseJsonPath(src)) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (step.kind === 'field') {
        if (v && typeof v === 'object' && !Array.isArray(v) && step.name in v)
          next.push((v as Record<string, unknown>)[step.name]);
      } else if (step.kind === 'index') {
        if (Array.isArray(v)) {
          const idx = step.index < 0 ? v.length + step.index : step.index;
          if (idx >= 0 && idx < v.length) next.push(v[idx]);
        }
      } else if (step.kind === 'wildcard') {
        if (Array.isArray(v)) next.push(...v);
        else if (v && typeof v === 'object') next.push(...Object.values(v));
      } else {
        if (!Array.isArray(v)) continue;
        for (const item of v) {
          let x: unknown = item;
          for (const p of step.path) x = x && typeof x === 'object' ? (x as Record<string, unknown>)[p] : undefined;
          const eq = x === step.value;
          if ((step.op === '==') === eq && x !== undefined) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}

/** Sets a value at a simple `.a.b.c` path, creating objects on the way (for /scale writes). */
export function setSimplePath(root: Record<string, unknown>, src: string, value: unknown): void {
  const steps = parseJsonPath(src);
  let cur: Record<string, unknown> = root;
  steps.forEach((step, i) => {
    if (step.kind !== 'field') throw new JsonPathError(`not a simple path: ${src}`);
    if (i === steps.length - 1) cur[step.name] = value;
    else {
      const nxt = cur[step.name];
      if (!nxt || typeof nxt !== 'object' || Array.isArray(nxt)) cur[step.name] = {};
      cur = cur[step.name] as Record<string, unknown>;
    }
  });
}
