/**
 * Jest: TypeScript through SWC; one process (tests share one PostgreSQL test database).
 * hyparquet / hyparquet-writer (the tool server's Parquet) ship ES modules only: SWC compiles them and their ESM-only dependencies to CommonJS too.
 */
const esmPackages = ['hyparquet', 'hyparquet-writer'];
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
    [`/node_modules/(${esmPackages.join('|')})/.+\\.m?js$`]: ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  setupFiles: ['<rootDir>/test/setup/env.ts'],
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
};
