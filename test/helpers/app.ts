import type Koa from 'koa';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import type { ServiceCaches } from '../../src/services/service-caches';
import type { JobRunner } from '../../src/services/job-runner';
import { refusingJobs } from '../fixtures/job-runners';
import { testKnex } from './db';

/**
 * A JobRunner for API tests of routes that never start durable jobs (catalogs, items, auth,
 * validation). Starting a job through it fails loudly, so a test that needs Temporal cannot
 * pass by accident; those tests use the real dev server (test/e2e, test/workflows). (A search
 * index build it refuses is only logged by the API: searches count through GIN meanwhile.)
 */
export const noJobs: JobRunner = refusingJobs('this test has no Temporal server');

export { acceptingJobs } from '../fixtures/job-runners';

/**
 * The real Koa app on the test database, for supertest: `request(testApp().callback())`.
 * `caches`: the app's caches when the test reads them (fresh ones otherwise).
 */
export function testApp(jobRunner: JobRunner = noJobs, caches?: ServiceCaches): Koa {
  return createApp({ config: loadConfig(), knex: testKnex(), jobRunner, caches });
}
