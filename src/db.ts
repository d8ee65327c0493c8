import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import { Model } from 'objection';
import { Client } from 'pg';
import { REPO_ROOT } from './config';
import { errorFields } from './lib/errors';

/**
 * Creates the Knex instance for a PostgreSQL URL and binds Objection models to it.
 * `jsonb` columns come back parsed; timestamps as `Date`.
 */
export function createKnex(databaseUrl: string, pool: { min: number; max: number } = { min: 0, max: 10 }): Knex {
  const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool });
  Model.knex(knex);
  return knex;
}

/**
 * Creates the database named in `databaseUrl` when it does not exist, by connecting to the
 * server's `postgres` database. Safe to call concurrently (a duplicate-database race is ignored).
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`Unsupported database name in DATABASE_URL: ${name}`);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } catch (err) {
      if (errorFields(err).code !== '42P04') throw err; // 42P04 duplicate_database: created concurrently
      return false;
    }
    return true;
  } finally {
    await client.end();
  }
}

/** Where knex migrations live: `migrations/*.ts`, applied in file-name (timestamp) order. */
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'migrations');

/**
 * Knex migration source over `migrations/`: loads each `.ts` file through `require`, which works
 * under tsx (the CLI) and under Jest's transform alike.
 */
const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return fs.readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{14}_.+\.ts$/.test(f)).sort();
  },
  getMigrationName: (file) => file.replace(/\.ts$/, ''),
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
