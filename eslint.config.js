// TypeScript lint rules. The architecture (dependency direction, no cycles, no I/O in api/ and rego/) is
// checked over the import graph by scripts/check-architecture.ts, which `npm run lint` runs after eslint.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'dist-bench/**',
      'coverage/**',
      '.data/**',
      'charts/**',
      'crds/**',
      'runtime/console/assets/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs', '**/*.js'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
);
