/**
 * How `npm test` spreads the suites over Jest workers (docs/testing.md, "Parallel suites"): each
 * worker has a test database of its own, so suites in different workers never see each other's
 * rows, locks or table sizes. Read by the set-up (which creates and migrates every worker's
 * database), by test/setup/env.ts (which points each worker at its own) and by the runner.
 */
import os from 'node:os';

/** Default database of the tests (worker 1's). */
export const BASE_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/catalog_enrichment_test';

/** The most workers the default picks: each durability suite runs several processes of its own. */
const MAX_DEFAULT_WORKERS = 4;

/**
 * How many Jest workers `npm test` runs: `TEST_WORKERS` when set (1 runs every suite in one
 * process, as before), else the machine's cores, at most 4.
 * @throws Error when TEST_WORKERS is not a whole number from 1 to 32
 */
export function testWorkers(): number {
  const set = process.env.TEST_WORKERS;
  if (set === undefined || set === '') return Math.max(1, Math.min(MAX_DEFAULT_WORKERS, os.availableParallelism()));
  const n = Number(set);
  if (!Number.isInteger(n) || n < 1 || n > 32) throw new Error(`TEST_WORKERS=${set}: a whole number from 1 to 32`);
  return n;
}

/**
 * The database of Jest worker `worker` (1-based): the base database for worker 1, the base's
 * name with `_<worker>` appended for the others (`catalog_enrichment_test_2`, …).
 * @param base a postgres:// URL whose path names the database
 */
export function workerDatabaseUrl(base: string, worker: number): string {
  if (worker <= 1) return base;
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/$/, '')}_${worker}`;
  return url.toString();
}
