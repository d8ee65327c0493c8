import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import { Model } from 'objection';
import { Client } from 'pg';
import { errorFields } from './lib/errors';
import { logger } from './lib/logger';

/**
 * Knex's own messages ("Connection Error: …" when the server restarts, deprecations) as
 * structured log lines of the process logger, component `knex`; Knex's default prints them with
 * console.log, in colour, among the output of a command (bench/chaos.ts's JSON report).
 */
function knexLog(): Knex.Config['log'] {
  const log = logger.child({ component: 'knex' });
  return {
    warn: (message: string) => log.warn(message),
    error: (message: string) => log.error(message),
    deprecate: (message: string) => log.warn(message),
    debug: (message: string) => log.debug(message),
  };
}

/**
 * Creates the Knex instance for a PostgreSQL URL and binds Objection models to it.
 * `jsonb` columns come back parsed; timestamps as `Date`. Knex's messages go to the process
 * logger ({@link knexLog}).
 */
export function createKnex(databaseUrl: string, pool: { min: number; max: number } = { min: 0, max: 10 }): Knex {
  const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool, log: knexLog() });
  Model.knex(knex);
  return knex;
}

/**
 * The database name of a PostgreSQL URL, and the URL of the same server's `postgres` database
 * (where CREATE and DROP DATABASE run).
 * @throws Error when the name holds anything but letters, digits, `_` and `-` (it is quoted into DDL)
 */
export function databaseOf(databaseUrl: string): { name: string; adminUrl: string } {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`Unsupported database name in DATABASE_URL: ${name}`);
  url.pathname = '/postgres';
  return { name, adminUrl: url.toString() };
}

/**
 * Creates the database named in `databaseUrl` when it does not exist, by connecting to the
 * server's `postgres` database. Safe to call concurrently (a duplicate-database race is ignored).
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const { name, adminUrl } = databaseOf(databaseUrl);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } catch (err) {
      // Created concurrently (the API and the worker start together): 42P04 duplicate_database,
      // or 23505 unique_violation on pg_database when both CREATEs ran at the same moment.
      const { code } = errorFields(err);
      if (code !== '42P04' && code !== '23505') throw err;
      return false;
    }
    return true;
  } finally {
    await client.end();
  }
}

/**
 * Where knex migrations live: `migrations/*.ts` next to `src/`, or their compiled `*.js` next to
 * `dist/src/` in the production build; applied in file-name (timestamp) order.
 */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

/** A migration file: timestamp, name, `.ts` source or `.js` build output (never `.d.ts`/`.map`). */
const MIGRATION_FILE = /^\d{14}_[^.]+\.(ts|js)$/;

/**
 * Knex migration source over {@link MIGRATIONS_DIR}: loads each file through `require`, which
 * works under tsx (the CLI), Jest's transform and plain node on the build alike. The name stored
 * in `knex_migrations` is the file name without its extension, so a database migrated from the
 * sources counts as up to date for the build and the other way round.
 */
const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((f) => MIGRATION_FILE.test(f))
      .sort();
  },
  getMigrationName: (file) => file.replace(/\.(ts|js)$/, ''),
  async getMigration(file) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path.join(MIGRATIONS_DIR, file));
  },
};

/** Applies every pending migration; returns the names applied. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest({ migrationSource });
  return applied as string[];
}

/** Rolls every migration back (tests and `npm run migrate -- down`). */
export async function migrateRollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback({ migrationSource }, true);
}
