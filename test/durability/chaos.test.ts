// @runs-alone: restarts PostgreSQL, which every other suite's database lives in (docs/testing.md "Parallel suites").
// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * The chaos soak's short version (the 10-minute run is `npx tsx bench/chaos.ts`): a mixed
 * workload through the HTTP API of 2 API and 2 worker processes, while APIs and workers are
 * SIGKILLed and the Temporal dev server and PostgreSQL restarted at random moments, each kind at
 * least once. The audit (test/fixtures/chaos-audit.ts) compares what was sent with the database
 * and the trigger-kept write record and must find nothing lost or done twice (docs/testing.md,
 * "What the chaos soak proves").
 *
 * `CHAOS_FAULTS` (e.g. `worker,api,temporal`) narrows the fault kinds; by default all four. The
 * PostgreSQL restart needs root and the local Debian cluster: under CI (`CI=true`, as root) its
 * absence fails the run; outside CI it is left out with a warning (test/helpers/prerequisites.ts).
 */
import type { Knex } from 'knex';
import { chaosViolations, faultKinds, localPgCluster, runChaos } from '../fixtures/chaos';
import { closeTestKnex, testKnex } from '../helpers/db';
import { prerequisite } from '../helpers/prerequisites';
import { quietTemporalRuntime } from '../helpers/temporal';
import { TEST_DATABASE_URL } from '../setup/env';

/**
 * Seconds of workload (CHAOS_TEST_SECONDS); faults every 10–25 s, and on until each kind struck
 * (one round of the four kinds takes about 70 s, so the soak runs at least that long).
 */
const SECONDS = Number(process.env.CHAOS_TEST_SECONDS ?? 60);

let knex: Knex;
beforeAll(() => {
  quietTemporalRuntime();
  knex = testKnex();
});
afterAll(async () => {
  // The soak leaves about 280,000 items behind; suites after it whose planner estimates are
  // table-wide (test/api/item-grid-count.test.ts) expect the shared test table to stay small.
  await knex.raw(
    `DELETE FROM catalog_items WHERE catalog_id IN
       (SELECT c.id FROM catalogs c JOIN organizations o ON o.id = c.organization_id WHERE o.name = 'chaos')`,
  );
  await knex.raw('ANALYZE catalog_items');
  await closeTestKnex();
}, 300_000);

test('a short soak under every kind of kill and restart loses nothing and does nothing twice', async () => {
  const kinds = faultKinds(process.env.CHAOS_FAULTS).filter(
    (k) =>
      k !== 'postgres_restarted' ||
      prerequisite(
        localPgCluster(TEST_DATABASE_URL) !== null,
        'a local Debian PostgreSQL cluster, restartable as root (pg_ctlcluster)',
        'run the tests as root',
      ),
  );
  const report = await runChaos(knex, TEST_DATABASE_URL, {
    seconds: SECONDS,
    faultEvery: [10, 25],
    faults: kinds,
    seed: 2026_11_27,
    log: () => undefined,
  });
  console.log('chaos', JSON.stringify({ ...report, audit: { ...report.audit, violations: report.audit.violations.slice(0, 50) } }));
  expect(chaosViolations(report, kinds)).toEqual([]);
  // Each fault kind asked for struck, and no other.
  const struck = Object.fromEntries(Object.entries(report.faults).map(([kind, n]) => [kind, n > 0]));
  expect(struck).toEqual({
    api_killed: kinds.includes('api_killed'),
    worker_killed: kinds.includes('worker_killed'),
    temporal_restarted: kinds.includes('temporal_restarted'),
    postgres_restarted: kinds.includes('postgres_restarted'),
  });
  // The soak did real work of every kind, and the audit looked at it.
  expect(Object.values(report.units).every((n) => n.finished > 0)).toBe(true);
  expect(report.audit.rows).toBeGreaterThan(0);
  expect(report.audit.webhooks).toBe(report.audit.jobs);
  expect(report.audit.changes_applied).toBeGreaterThan(0);
  expect(report.audit.import_lines).toBeGreaterThan(0);
  expect(report.audit.flow_rows).toBeGreaterThan(0);
}, 900_000);
