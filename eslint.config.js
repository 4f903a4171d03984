// Flat config: recommended rules for JS and TypeScript, plus the Temporal
// samples' rule that keeps workflow code deterministic (no Node built-ins, no
// I/O clients inside workflows/).
import js from '@eslint/js';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'));

/** Packages that do I/O: workflows reach them only through activities. */
const ioPackages = [
  'pg',
  'pgvector',
  '@prisma/client',
  '@prisma/adapter-pg',
  'openai',
  'express',
  'pino',
  '@temporalio/activity',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/testing',
  '@electric-sql/pglite',
];

export default defineConfig(
  { ignores: ['generated/**', 'dist/**', 'web/dist/**', 'node_modules/**', 'coverage/**', '.mnemo*/**', '.mnemo*', '.scratch*'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['web/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['test/**/*.ts'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...ioPackages].map((name) => ({
            name,
            message: 'Workflow code must be deterministic: do I/O in an activity (activities/) and call it through proxyActivities.',
          })),
          patterns: [
            { group: ['node:*'], message: 'Node built-ins are not available in the workflow sandbox: use an activity.' },
            {
              group: ['**/core/db/**', '**/activities/**', '**/api/**', '**/generated/**', 'pg-*'],
              message: 'Workflows may import types and pure helpers only: do I/O in an activity.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
);
