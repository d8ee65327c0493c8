/**
 * Run by `npm test` before Jest: builds the Temporal CLI when missing (tests start dev servers
 * from it), creates the test database and applies the migrations. Prints what it does.
 */
import { loadConfig } from '../../src/config';
import { createKnex, ensureDatabase, migrateLatest } from '../../src/db';
import { ensureTemporalCli } from '../../temporal/cli-binary';
import { ensureLocalPostgres } from '../../src/lib/local-postgres';
import { TEST_DATABASE_URL } from './env';

async function main(): Promise<void> {
  const config = loadConfig();
  console.log('[test setup] Temporal CLI:', await ensureTemporalCli(config.temporalCliCache, (l) => console.log('[test setup]', l)));
  await ensureLocalPostgres(TEST_DATABASE_URL, (l) => console.log('[test setup]', l));
  const created = await ensureDatabase(TEST_DATABASE_URL);
  console.log(`[test setup] test database ${created ? 'created' : 'present'}: ${TEST_DATABASE_URL}`);
  const knex = createKnex(TEST_DATABASE_URL);
  try {
    const applied = await migrateLatest(knex);
    console.log(`[test setup] migrations applied: ${applied.length ? applied.join(', ') : 'none pending'}`);
  } finally {
    await knex.destroy();
  }
}

main().catch((err) => {
  console.error('[test setup] failed:', err);
  process.exit(1);
});
