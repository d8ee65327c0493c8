/**
 * Jest: TypeScript through SWC. `npm test` runs it through test/setup/run-jest.ts (several workers, a
 * PostgreSQL test database each, then the `@runs-alone` suites); a plain `npx jest` shares one database. Tests live in
 * test/ (the service) and each workspace package's own test folder (packages/tool-server/test, …).
 * hyparquet / hyparquet-writer (the tool server's Parquet) ship ES modules only: SWC compiles them and their ESM-only dependencies to CommonJS too.
 */
const { suitesLeftOut } = require('./test/setup/labelled-data');

const esmPackages = ['hyparquet', 'hyparquet-writer'];
const escape = (file) => file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Suites that read ../shared/data, left out (and listed by the summary) when it is missing outside CI. */
const leftOut = suitesLeftOut().map(escape);
/** Suites `npm test` runs in a phase of their own (test/setup/run-jest.ts), left out of the parallel phase. */
const runAlone = JSON.parse(process.env.JEST_IGNORE_SUITES || '[]').map(escape);
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/packages'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', ...leftOut, ...runAlone],
  modulePathIgnorePatterns: ['<rootDir>/packages/[^/]+/dist/'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
    [`/node_modules/(${esmPackages.join('|')})/.+\\.m?js$`]: ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  // The workspace packages as their sources (tsconfig.json `paths` does the same for tsc and tsx).
  moduleNameMapper: { '^@catalog-enrichment/client$': '<rootDir>/packages/client/src/index.ts' },
  setupFiles: ['<rootDir>/test/setup/env.ts'],
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
};
