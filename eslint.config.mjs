// ESLint flat config. Workflow code runs in Temporal's deterministic sandbox: it may not import
// Node built-ins or I/O modules (architecture.md, "Temporal rules of the craft" 1).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);
const ioModules = ['pg', 'knex', 'objection', 'koa', 'openai', 'cheerio', 'pino', 'undici', 'axios'];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'coverage/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...ioModules].map((name) => ({
            name,
            message: 'Workflows are deterministic: no Node built-ins or I/O modules (use activities).',
          })),
          patterns: [
            {
              group: ['../src/*', '../activities/*'],
              message: 'Workflows import only type definitions from activities (import type).',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
  },
);
