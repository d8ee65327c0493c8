/** `npm run migrate [-- down]`: creates the database when missing and applies (or rolls back) every migration. */
import { loadConfig } from '../config';
import { createKnex, ensureDatabase, migrateLatest, migrateRollbackAll } from '../db';

async function main(): Promise<void> {
  const config = loadConfig();
  if (await ensureDatabase(config.databaseUrl)) console.log(`created database ${config.databaseUrl}`);
  const knex = createKnex(config.databaseUrl);
  try {
    if (process.argv[2] === 'down') {
      await migrateRollbackAll(knex);
      console.log('rolled back every migration');
    } else {
      const applied = await migrateLatest(knex);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    }
  } finally {
    await knex.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
