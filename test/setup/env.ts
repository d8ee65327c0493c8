/**
 * Test environment, loaded by Jest before every test file (jest.config.js `setupFiles`) and by
 * `prepare.ts`: a separate database so tests never touch the development one.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/catalog_enrichment_test';
process.env.DATABASE_URL = TEST_DATABASE_URL;
process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
// Limits are tested by test/api/rate-limits.test.ts with its own configuration; the other suites
// send bursts from one organization and must not be throttled by the defaults.
process.env.RATE_LIMIT_RPS = process.env.RATE_LIMIT_RPS ?? '0';
process.env.AUTH_FAILURES_PER_MINUTE = process.env.AUTH_FAILURES_PER_MINUTE ?? '0';
process.env.MAX_CONCURRENT_JOBS = process.env.MAX_CONCURRENT_JOBS ?? '0';
