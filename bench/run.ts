/**
 * `npm run bench [-- name...]`: runs the named benchmarks (all when none) and writes their figures into
 * docs/benchmarks.md. Benchmarks are never timed unit tests; they run here, on demand.
 */
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';
import { writeSection } from './report.js';

const BENCHES: Record<string, () => Promise<{ markdown: string }>> = {
  rego: async () => (await import('./rego.js')).run(),
  gateway: async () => (await import('./gateway.js')).run(),
  hostile: async () => (await import('./hostile.js')).run(),
  startup: async () => (await import('./startup.js')).run(),
  parallel: async () => (await import('./parallel.js')).run(),
  plan: async () => (await import('./plan.js')).run(),
  connectors: async () => (await import('./connectors.js')).run(),
  operator: async () => (await import('./operator.js')).run(),
  proxy: async () => (await import('./proxy.js')).run(),
  tokens: async () => (await import('./tokens.js')).run(),
  memory: async () => (await import('./memory.js')).run(),
  console: async () => (await import('./console.js')).run(),
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = asked.length ? asked : Object.keys(BENCHES);
for (const name of names) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  console.log(`running ${name} …`);
  const { markdown } = await bench();
  writeSection(join(root, 'docs/benchmarks.md'), name, markdown);
  console.log(markdown);
}
