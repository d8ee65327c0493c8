/**
 * API entrypoint (`npm run api`): config → database (created and migrated when missing) →
 * Temporal client → createApp() → listen. On SIGINT/SIGTERM it stops taking connections, answers the
 * requests in flight (at most SHUTDOWN_GRACE_MS), then closes Temporal and PostgreSQL.
 */
import { loadConfig } from './config';
import { createKnex, ensureDatabase, migrateLatest } from './db';
import { createApp } from './app';
import { logger } from './lib/logger';
import { capabilityReport, capabilitySummary } from './services/capabilities';
import { connectTemporalClient, TemporalJobRunner } from '../temporal/client';

/** How long requests in flight may run on after SIGTERM before their connections are closed (ms). */
const SHUTDOWN_GRACE_MS = 25_000;

async function main(): Promise<void> {
  const config = loadConfig();
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl);
  await migrateLatest(knex);
  const client = await connectTemporalClient(config);
  // What this API accepts: a request needing a capability that is off is refused at once (503).
  const capabilities = capabilityReport(config);
  logger.info({ capabilities }, `API capabilities: ${capabilitySummary(capabilities)}`);
  const app = createApp({ config, knex, jobRunner: new TemporalJobRunner(client, config) });
  const server = app.listen(config.port, () => {
    // PORT=0 takes any free port: the log names the one bound.
    const bound = server.address();
    logger.info({ port: typeof bound === 'object' && bound ? bound.port : config.port }, `API listening on ${config.publicUrl}`);
  });
  const stop = async (signal: string): Promise<void> => {
    logger.info({ signal }, 'API stopping: no new connections, finishing requests in flight');
    // close() stops accepting and resolves once every request in flight has been answered; idle
    // keep-alive connections are closed at once, and a request still running after the grace
    // period is cut so a stuck client cannot hold the shutdown forever.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await closed;
    clearTimeout(grace);
    await client.connection.close().catch(() => undefined);
    await knex.destroy();
    logger.info('API stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  logger.fatal({ err }, 'API failed to start');
  process.exit(1);
});
