/**
 * The chaos soak's short version (issue 29 §6; the 10-minute run is `npx tsx bench/chaos.ts`): a
 * mixed workload through the HTTP API of 2 API and 2 worker processes, while APIs and workers are
 * SIGKILLed and the Temporal dev server and PostgreSQL restarted at random moments. The audit,
 * from the database and the trigger-kept write record, must find nothing lost or done twice.
 */
import type { Knex } from 'knex';
import { chaosViolations, localPgCluster, runChaos } from '../fixtures/chaos';
import { closeTestKnex, testKnex } from '../helpers/db';
import { prerequisite } from '../helpers/prerequisites';
import { quietTemporalRuntime } from '../helpers/temporal';
import { TEST_DATABASE_URL } from '../setup/env';

/** Seconds of workload (CHAOS_TEST_SECONDS); faults every 15–30 s. */
const SECONDS = Number(process.env.CHAOS_TEST_SECONDS ?? 120);

let knex: Knex;
beforeAll(() => {
  quietTemporalRuntime();
  knex = testKnex();
});
afterAll(async () => {
  await closeTestKnex();
});

test('a short soak under kills and restarts loses nothing and does nothing twice', async () => {
  const restartPostgres =
    process.env.CHAOS_RESTART_POSTGRES !== '0' &&
    prerequisite(localPgCluster(TEST_DATABASE_URL) !== null, 'a local Debian PostgreSQL cluster, restartable as root (pg_ctlcluster)', 'run the tests as root');
  const report = await runChaos(knex, TEST_DATABASE_URL, {
    seconds: SECONDS,
    faultEvery: [15, 30],
    restartPostgres,
    seed: 2026_11_27,
    log: () => undefined,
  });
  console.log('chaos', JSON.stringify(report));
  expect(chaosViolations(report)).toEqual([]);
  // The soak did real work of every kind, and faults struck.
  expect(Object.values(report.units).every((n) => n.finished > 0)).toBe(true);
  expect(Object.values(report.faults).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
  expect(report.audit.jobs).toBeGreaterThan(0);
}, 900_000);
