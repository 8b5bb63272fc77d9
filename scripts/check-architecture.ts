/**
 * The dependency rules of STYLE.md, checked over the import graph (part of `npm run lint`):
 * - api/ imports nothing of ours but api/; rego/ nothing but api/ and rego/; platform/ (the shared plumbing:
 *   logging, configuration, shutdown, the Kubernetes client) nothing but api/ and platform/;
 * - operator/ and runtime/ never import each other; only cmd/ (the CLI, the environment's edge) imports both, and
 *   nothing of the product outside cmd/ imports cmd/ (bin/, the checkout's launcher, and the tooling around the
 *   product (testing/, bench/, scripts/) may: they build settings from environments as the CLI does);
 * - testing/ is imported only by tests, benchmarks and dev scripts;
 * - api/ and rego/ import no I/O module (except rego/conformance and rego/wasm, which read files);
 * - no import cycles among modules (type-only imports excluded: they vanish at run time).
 * Exit 1 with one line per violation.
 */
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Violation {
  file: string;
  message: string;
}

const IO_MODULES = new Set([
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'child_process',
  'dgram',
  'dns',
  'tls',
  'worker_threads',
  'pg',
  '@electric-sql/pglite',
  'ioredis',
  'undici',
  'fastify',
  '@kubernetes/client-node',
]);
const LAYERS = ['api', 'rego', 'platform', 'runtime', 'operator', 'cmd', 'testing', 'test', 'bench', 'scripts', 'bin'];
const IMPORT =
  /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

const isTest = (rel: string) => /\.test\.ts$/.test(rel) || /(^|\/)test\//.test(rel);
const layerOf = (rel: string) => rel.split('/')[0]!;

function listFiles(root: string, dir: string, out: string[]): string[] {
  for (const name of readdirSync(join(root, dir))) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const rel = dir ? `${dir}/${name}` : name;
    if (statSync(join(root, rel)).isDirectory()) listFiles(root, rel, out);
    else if (/\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Resolves `./x.js` to the .ts file the project actually has. */
function resolveImport(root: string, from: string, spec: string): string | undefined {
  const base = resolve(root, dirname(from), spec);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate);
  }
  return undefined;
}

export function checkArchitecture(root: string): Violation[] {
  const files = LAYERS.filter((l) => existsSync(join(root, l))).flatMap((l) => listFiles(root, l, []));
  const violations: Violation[] = [];
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const layer = layerOf(file);
    const edges: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[3] ?? m[4]!;
      const typeOnly = m[2] !== undefined;
      if (!spec.startsWith('.')) {
        const mod = spec.replace(/^node:/, '');
        const ioExempt = file.startsWith('rego/conformance/') || file.startsWith('rego/wasm/') || isTest(file);
        if ((layer === 'api' || layer === 'rego') && !ioExempt && !typeOnly && IO_MODULES.has(mod)) {
          violations.push({ file, message: `imports the I/O module ${spec}: api/ and rego/ do no I/O` });
        }
        continue;
      }
      const target = resolveImport(root, file, spec);
      // NB: tests may hold import statements as fixture text, and may import across layers.
      if (isTest(file)) {
        if (target && !typeOnly) edges.push(target);
        continue;
      }
      if (!target) {
        violations.push({ file, message: `imports ${spec}, which does not resolve to a file` });
        continue;
      }
      const to = layerOf(target);
      if (!typeOnly) edges.push(target);
      if (layer === 'api' && to !== 'api' && !isTest(file))
        violations.push({ file, message: `imports ${target}: api/ imports nothing of ours but api/` });
      if (layer === 'rego' && to !== 'rego' && to !== 'api' && !isTest(file))
        violations.push({ file, message: `imports ${target}: rego/ depends on api/ at most` });
      if (layer === 'platform' && target.includes('/') && to !== 'platform' && to !== 'api')
        violations.push({ file, message: `imports ${target}: platform/ depends on api/ at most` });
      if (to === 'cmd' && ['api', 'rego', 'platform', 'runtime', 'operator'].includes(layer))
        violations.push({ file, message: `imports ${target}: only cmd/ imports cmd/` });
      if ((layer === 'operator' && to === 'runtime') || (layer === 'runtime' && to === 'operator')) {
        violations.push({ file, message: `imports ${target}: operator/ and runtime/ never import each other` });
      }
      if (
        to === 'testing' &&
        ['api', 'rego', 'platform', 'runtime', 'operator', 'cmd'].includes(layer) &&
        !isTest(file)
      ) {
        violations.push({ file, message: `imports ${target}: testing/ is imported only by tests and dev tooling` });
      }
    }
    graph.set(file, edges);
  }
  for (const cycle of findCycles(graph))
    violations.push({ file: cycle[0]!, message: `import cycle: ${cycle.join(' -> ')}` });
  return violations;
}

/** Tarjan's strongly connected components; every component with more than one module is a cycle. */
function findCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.reverse());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const violations = checkArchitecture(root);
  for (const v of violations) console.error(`${v.file}: ${v.message}`);
  if (violations.length) process.exit(1);
  console.log('architecture: dependency rules hold');
}
