/**
 * API entrypoint (`npm run api`): config → database (created and migrated when missing) →
 * Temporal client → createApp() → listen. Stops cleanly on SIGINT/SIGTERM.
 */
import { loadConfig } from './config';
import { createKnex, ensureDatabase, migrateLatest } from './db';
import { createApp } from './app';
import { logger } from './lib/logger';
import { connectTemporalClient, TemporalJobRunner } from '../temporal/client';

async function main(): Promise<void> {
  const config = loadConfig();
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl);
  await migrateLatest(knex);
  const client = await connectTemporalClient(config);
  const app = createApp({ config, knex, jobRunner: new TemporalJobRunner(client, config) });
  const server = app.listen(config.port, () => logger.info({ port: config.port }, `API listening on ${config.publicUrl}`));
  const stop = async (signal: string): Promise<void> => {
    logger.info({ signal }, 'API stopping');
    server.close();
    await client.connection.close().catch(() => undefined);
    await knex.destroy();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  logger.fatal({ err }, 'API failed to start');
  process.exit(1);
});
