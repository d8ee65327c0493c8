/** Jest: TypeScript through SWC; one process (tests share one PostgreSQL test database). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  setupFiles: ['<rootDir>/test/setup/env.ts'],
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
};
