import type { Knex } from 'knex';

/**
 * Snapshot restores as durable workflows: one row per restore, written by the API when
 * it starts `snapshot-restore-<id>` and by the workflow's activity as it runs. `status`: queued →
 * restoring → completed (with `result`, the restore answer) or failed (with `error` and
 * `failure`). At most
 * one open (queued or restoring) restore per snapshot: a retried request joins it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('snapshot_restores', (t) => {
    t.uuid('id').primary();
    t.uuid('organization_id').notNullable();
    // No foreign key to `catalogs`: its check would take a key-share lock on the catalog row,
    // which waits behind a running restore's (or apply's) row lock, so asking for a restore would
    // block on the work it should only start. Deleting the catalog deletes its snapshots, and so
    // its restores (snapshot_id's cascade).
    t.uuid('catalog_id').notNullable();
    t.uuid('snapshot_id').notNullable().references('catalog_snapshots.id').onDelete('CASCADE');
    t.string('status', 16).notNullable().defaultTo('queued');
    t.jsonb('result');
    t.text('error');
    /** Why a failed restore failed: `not_applicable` (the catalog or snapshot changed so it cannot run: 409) or `error` (attempts spent). */
    t.string('failure', 16);
    t.string('requested_by_kind', 16).notNullable();
    t.string('requested_by_id', 200).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['catalog_id', 'created_at']);
  });
  await knex.raw("CREATE UNIQUE INDEX snapshot_restores_open ON snapshot_restores (snapshot_id) WHERE status IN ('queued', 'restoring')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('snapshot_restores');
}
