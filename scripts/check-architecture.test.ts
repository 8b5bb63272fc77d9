import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkArchitecture } from './check-architecture.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'steward-arch-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

type Case = { name: string; files: Record<string, string>; expected?: string };

describe('checkArchitecture', () => {
  it.each<Case>([
    {
      name: 'operator/ importing runtime/',
      files: { 'operator/a.ts': "import { x } from '../runtime/x.js';\n", 'runtime/x.ts': 'export const x = 1;\n' },
      expected: 'never import each other',
    },
    {
      name: 'runtime/ importing operator/',
      files: { 'runtime/a.ts': "export { y } from '../operator/y.js';\n", 'operator/y.ts': 'export const y = 1;\n' },
      expected: 'never import each other',
    },
    {
      name: 'api/ importing runtime/',
      files: { 'api/a.ts': "import '../runtime/x.js';\n", 'runtime/x.ts': '' },
      expected: 'api/ imports nothing of ours',
    },
    {
      name: 'rego/ importing runtime/',
      files: { 'rego/a.ts': "const m = await import('../runtime/x.js');\n", 'runtime/x.ts': '' },
      expected: 'rego/ depends on api/ at most',
    },
    {
      name: 'api/ doing I/O',
      files: { 'api/a.ts': "import { readFileSync } from 'node:fs';\n" },
      expected: 'do no I/O',
    },
    {
      name: 'runtime/ importing testing/',
      files: { 'runtime/a.ts': "import '../testing/t.js';\n", 'testing/t.ts': '' },
      expected: 'testing/ is imported only by tests',
    },
    {
      name: 'an import cycle',
      files: {
        'runtime/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
        'runtime/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      },
      expected: 'import cycle',
    },
    {
      name: 'platform/ importing runtime/',
      files: { 'platform/a.ts': "import '../runtime/x.js';\n", 'runtime/x.ts': '' },
      expected: 'platform/ depends on api/ at most',
    },
    {
      name: 'runtime/ importing cmd/',
      files: { 'runtime/a.ts': "import '../cmd/cli.js';\n", 'cmd/cli.ts': '' },
      expected: 'only cmd/ imports cmd/',
    },
    {
      name: 'cmd/ importing testing/',
      files: { 'cmd/a.ts': "import '../testing/t.js';\n", 'testing/t.ts': '' },
      expected: 'testing/ is imported only by tests',
    },
    {
      name: 'an import that resolves to nothing',
      files: { 'runtime/a.ts': "import './missing.js';\n" },
      expected: 'does not resolve',
    },
  ])('reports $name', ({ files, expected }) => {
    const v = checkArchitecture(tree(files));
    expect(v.map((x) => x.message).join('\n')).toContain(expected!);
  });

  it.each<Case>([
    {
      name: 'a type-only cycle',
      files: {
        'api/a.ts': "import type { B } from './b.js';\nexport type A = B;\n",
        'api/b.ts': "import type { A } from './a.js';\nexport type B = A | 1;\n",
      },
    },
    {
      name: 'tests importing testing/',
      files: { 'runtime/a.test.ts': "import '../testing/t.js';\n", 'testing/t.ts': '' },
    },
    {
      name: 'the rego conformance runner reading files',
      files: { 'rego/conformance/cli.ts': "import { readFileSync } from 'node:fs';\n" },
    },
    {
      name: 'runtime/ importing api/ and rego/',
      files: {
        'runtime/a.ts': "import '../api/x.js';\nimport '../rego/y.js';\n",
        'api/x.ts': '',
        'rego/y.ts': "import '../api/x.js';\n",
      },
    },
    {
      name: 'cmd/ importing runtime/ and operator/',
      files: {
        'cmd/cli.ts': "import '../runtime/r.js';\nimport '../operator/o.js';\n",
        'runtime/r.ts': "import '../platform/p.js';\n",
        'operator/o.ts': "import '../platform/p.js';\n",
        'platform/p.ts': "import '../api/x.js';\n",
        'api/x.ts': '',
      },
    },
  ])('allows $name', ({ files }) => {
    expect(checkArchitecture(tree(files))).toEqual([]);
  });

  it('holds for this repository', () => {
    expect(checkArchitecture(new URL('..', import.meta.url).pathname)).toEqual([]);
  });
});
