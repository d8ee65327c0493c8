// ESLint flat config. Workflow code runs in Temporal's deterministic sandbox: it may not import
// Node built-ins or I/O modules (docs/workflows.md, "Rules of the craft" 1). The workspace
// packages (packages/*) are installed by users on their own: the boundary rule below keeps the
// service and the packages from importing each other's files (docs/architecture.md, "Packages").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import path from 'node:path';

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);
const ioModules = ['pg', 'knex', 'objection', 'koa', 'openai', 'cheerio', 'pino', 'undici', 'axios'];

/** The service's folders (one program, deployed from this checkout). */
const SERVICE_DIRS = ['src', 'workflows', 'activities', 'temporal', 'migrations'];

/** The zone a repository-relative path lies in: `service`, `package:<folder>` or null (tests, benches, scripts: free to import both). */
function zoneOf(rel) {
  const [top, second] = rel.split(path.sep);
  if (SERVICE_DIRS.includes(top)) return 'service';
  if (top === 'packages' && second) return `package:${second}`;
  return null;
}

/**
 * `boundaries/relative-imports`: a relative import (or re-export, or `import()`) whose target lies in
 * another zone than the importing file: the service may not reach into a package's files, a package
 * not into the service's nor into another package's (it depends on that package by name instead).
 */
const relativeImportsRule = {
  meta: { type: 'problem', schema: [], messages: { crossing: "{{from}} may not import {{to}}'s files ({{spec}}): {{hint}}" } },
  create(context) {
    const root = context.cwd;
    const file = context.filename;
    const from = zoneOf(path.relative(root, file));
    if (!from) return {};
    const check = (node) => {
      const spec = node?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = zoneOf(path.relative(root, path.resolve(path.dirname(file), spec)));
      if (to === from) return;
      const hint =
        from === 'service' ? 'the service does not depend on the packages' : 'a package talks to the service over HTTP only and imports other packages by name';
      context.report({ node, messageId: 'crossing', data: { from, to: to ?? 'the repository', spec, hint } });
    };
    return {
      ImportDeclaration: (n) => check(n.source),
      ExportNamedDeclaration: (n) => check(n.source),
      ExportAllDeclaration: (n) => check(n.source),
      ImportExpression: (n) => check(n.source),
    };
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'coverage/**', 'dist/**', 'packages/*/dist/**'] },
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
            { group: ['@catalog-enrichment/*'], message: 'The service does not import the workspace packages (packages/*).' },
            {
              group: ['../src/*', '!../src/contracts', '../activities/*'],
              message: 'Workflows import values only from src/contracts/ (pure); anything else of src/ or activities/ as import type.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { boundaries: { rules: { 'relative-imports': relativeImportsRule } } },
    rules: { 'boundaries/relative-imports': 'error' },
  },
  {
    // By name, too: the service does not depend on the workspace packages (they depend on its HTTP API).
    files: ['src/**/*.ts', 'activities/**/*.ts', 'temporal/**/*.ts', 'migrations/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@catalog-enrichment/*'], message: 'The service does not import the workspace packages (packages/*).' }] },
      ],
    },
  },
  {
    // Services and activities never import the workflow bundle: what they share with it is in src/contracts/
    // (docs/architecture.md, rule 6 "No import cycles; arrows point down").
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@catalog-enrichment/*'], message: 'The service does not import the workspace packages (packages/*).' },
            { group: ['**/workflows/*'], message: 'Import workflow ids, job kinds and shapes from src/contracts/workflows.ts, not from the workflow bundle.' },
          ],
        },
      ],
    },
  },
  {
    // The extraction engine is pure (docs/architecture.md, "Map of folders" and rule 6): no database client and no import of the
    // models, services, deps or database factory, not even as a type. What it needs of the database (the live fetcher's
    // cache, robots.txt, host politeness, renderings) it declares as interfaces that src/services/fetching/ implements.
    // (After the src/ block above, which it replaces for these files, so that block's patterns are repeated.)
    files: ['src/enrichment/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['pg', 'knex', 'objection'].map((name) => ({
            name,
            message: 'src/enrichment/ is pure: no database client. Declare an interface the service implements (src/services/fetching/).',
          })),
          patterns: [
            { group: ['@catalog-enrichment/*'], message: 'The service does not import the workspace packages (packages/*).' },
            { group: ['**/workflows/*'], message: 'Import workflow ids, job kinds and shapes from src/contracts/workflows.ts, not from the workflow bundle.' },
            {
              regex: '^(\\.\\./)+(models|services|db|deps)(/|$)',
              message: 'src/enrichment/ sits below the models and services: it imports neither (the service wires its stores in).',
            },
          ],
        },
      ],
    },
  },
  {
    // The contracts are part of the workflow bundle (docs/architecture.md, "Map of folders": contracts/): no value import but @temporalio/common
    // (after the src/ block above, which it replaces for these files; the pattern covers the packages too).
    files: ['src/contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/common$)',
              message: 'src/contracts/ is imported by the workflow bundle: values only from @temporalio/common, anything else as import type.',
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
  {
    // Jest's configuration and reporters are CommonJS (Jest loads them with require), so they require their helpers.
    files: ['jest.config.js', 'test/setup/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
