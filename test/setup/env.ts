/**
 * Test environment, loaded by Jest before every test file (jest.config.js `setupFiles`) and by
 * `prepare.ts`: a separate database so tests never touch the development one. When `npm test`
 * runs the suites on several workers (`TEST_DATABASES` > 1, set by test/setup/run-jest.ts), each
 * worker uses its own database (test/setup/workers.ts); a plain `npx jest` uses the one.
 */
import { BASE_TEST_DATABASE_URL, workerDatabaseUrl } from './workers';

const workers = Number(process.env.TEST_DATABASES ?? '1');
const worker = workers > 1 ? Number(process.env.JEST_WORKER_ID ?? '1') : 1;
export const TEST_DATABASE_URL = workerDatabaseUrl(process.env.TEST_DATABASE_URL ?? BASE_TEST_DATABASE_URL, worker);
process.env.DATABASE_URL = TEST_DATABASE_URL;
process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
// Limits are tested by test/api/rate-limits.test.ts with its own configuration; the other suites
// send bursts from one organization and must not be throttled by the defaults.
process.env.RATE_LIMIT_RPS = process.env.RATE_LIMIT_RPS ?? '0';
process.env.AUTH_FAILURES_PER_MINUTE = process.env.AUTH_FAILURES_PER_MINUTE ?? '0';
process.env.MAX_CONCURRENT_JOBS = process.env.MAX_CONCURRENT_JOBS ?? '0';
