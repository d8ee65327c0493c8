import type { Knex } from 'knex';
import { Client } from 'pg';
import { createKnex, databaseOf, ensureDatabase, migrateLatest } from '../../src/db';
import { TEST_DATABASE_URL } from '../setup/env';

/** A suite's own migrated database (see {@link createOwnDatabase}). */
export interface OwnDatabase {
  url: string;
  knex: Knex;
  /** Closes the Knex instance and drops the database. */
  drop(): Promise<void>;
}

/** Drops a database when it exists, ending its sessions first (an interrupted run may have left some). */
async function dropDatabase(url: string): Promise<void> {
  const { name, adminUrl } = databaseOf(url);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database for one suite whose results depend on what the whole database holds (planner
 * statistics of a shared table, migrations that touch every row): the worker's test database's
 * name with `_<suffix>` appended, dropped first if a previous run left it, created and migrated
 * (about a second). Drop it in `afterAll`.
 */
export async function createOwnDatabase(suffix: string): Promise<OwnDatabase> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname.replace(/\/$/, '')}_${suffix}`;
  const own = url.toString();
  await dropDatabase(own);
  await ensureDatabase(own);
  const knex = createKnex(own, { min: 0, max: 5 });
  await migrateLatest(knex);
  return {
    url: own,
    knex,
    async drop() {
      await knex.destroy();
      await dropDatabase(own);
    },
  };
}

/**
 * Rows of table `relname` the transaction fetched so far (index, bitmap and sequential reads, from
 * `pg_stat_xact_user_tables`): the measure of the plan checks that run in an own database, where
 * what a statement reads must not depend on what the planner believes about the table.
 */
export async function rowsReadInTransaction(trx: Knex.Transaction, relname: string): Promise<number> {
  const { rows } = await trx.raw('SELECT coalesce(idx_tup_fetch, 0) + seq_tup_read AS n FROM pg_stat_xact_user_tables WHERE relname = ?', [relname]);
  return Number(rows[0]?.n ?? 0);
}
