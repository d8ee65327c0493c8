/**
 * `npx tsx bench/chaos.ts`: the chaos soak (test/fixtures/chaos.ts). For
 * `CHAOS_SECONDS` (default 600) a mixed workload runs through the HTTP API of 2 API and 2 worker
 * processes while an API or a worker is SIGKILLed, the Temporal dev server restarted and
 * PostgreSQL restarted every `CHAOS_FAULT_MIN_S`–`CHAOS_FAULT_MAX_S` seconds (default 20–60), each
 * kind at least once. `CHAOS_FAULTS` (e.g. `worker,api,temporal`) narrows the kinds;
 * `CHAOS_RESTART_POSTGRES=0`, or no root / local Debian cluster, leaves PostgreSQL alone.
 * Prints the figures and the audit as JSON; exits 1 when the audit (test/fixtures/chaos-audit.ts)
 * found anything lost or done twice, or a 5xx outside a fault window. Uses the test database
 * (`TEST_DATABASE_URL`).
 */
import { createKnex } from '../src/db';
import { logger } from '../src/lib/logger';
import { TEST_DATABASE_URL } from '../test/setup/env';
import { chaosViolations, faultKinds, localPgCluster, runChaos } from '../test/fixtures/chaos';

async function main(): Promise<void> {
  // The auditor's own connection errors while PostgreSQL restarts are expected: stdout carries the report alone.
  logger.level = process.env.LOG_LEVEL ?? 'error';
  const knex = createKnex(TEST_DATABASE_URL);
  try {
    const restartPostgres = process.env.CHAOS_RESTART_POSTGRES !== '0' && localPgCluster(TEST_DATABASE_URL) !== null;
    const faults = faultKinds(process.env.CHAOS_FAULTS).filter((k) => k !== 'postgres_restarted' || restartPostgres);
    const report = await runChaos(knex, TEST_DATABASE_URL, {
      seconds: Number(process.env.CHAOS_SECONDS ?? 600),
      faultEvery: [Number(process.env.CHAOS_FAULT_MIN_S ?? 20), Number(process.env.CHAOS_FAULT_MAX_S ?? 60)],
      faults,
      seed: Number(process.env.CHAOS_SEED ?? Date.now() % 2 ** 31),
      log: (line) => console.error(`[chaos] ${line}`),
    });
    const violations = chaosViolations(report, faults);
    console.log(JSON.stringify({ ...report, violations }, null, 2));
    if (violations.length) process.exitCode = 1;
  } finally {
    await knex.destroy();
  }
}

void main();
