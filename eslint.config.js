// Lint keeps the architecture of STYLE.md: dependencies point one way, no cycles, no I/O in api/ and rego/.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const IO_MODULES = [
  'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'net', 'node:net', 'http', 'node:http', 'https', 'node:https',
  'http2', 'node:http2', 'child_process', 'node:child_process', 'dgram', 'node:dgram', 'dns', 'node:dns',
  'pg', '@electric-sql/pglite', 'ioredis', 'undici', 'fastify', '@kubernetes/client-node',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', '.data/**', 'charts/**', 'crds/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs', '**/*.js'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './api', from: ['./rego', './runtime', './operator', './testing'], message: 'api/ imports nothing of ours but api/.' },
            { target: './rego', from: ['./runtime', './operator', './testing'], message: 'rego/ depends on api/ at most.' },
            { target: './operator', from: './runtime', message: 'operator/ and runtime/ never import each other.' },
            { target: './runtime', from: './operator', message: 'operator/ and runtime/ never import each other.' },
            {
              target: ['./api', './rego', './runtime', './operator'],
              from: './testing',
              except: [],
              message: 'testing/ is imported only by tests and dev tooling.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests may import the test instruments.
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: { 'import-x/no-restricted-paths': 'off' },
  },
  {
    files: ['api/**/*.ts', 'rego/**/*.ts'],
    ignores: ['rego/conformance/**', 'rego/wasm/**', '**/*.test.ts', '**/test/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: IO_MODULES.map((name) => ({ name, message: 'api/ and rego/ do no I/O.' })) }],
    },
  },
);
