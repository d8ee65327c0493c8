import type { Knex } from 'knex';

/**
 * Snapshot links (a restore of an activity's `pre_apply` snapshot is shown on the
 * activity): a `pre_apply` snapshot records the review activity whose apply took it
 * (`activity_id`), and the `safety` snapshot a restore takes records the snapshot it restored
 * (`restored_snapshot_id`). Rows taken before this migration are linked from their reasons
 * (src/services/catalog/snapshots/snapshots.ts and src/services/review/apply.ts wrote the ids there).
 * Partial indexes: only linked rows are indexed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('catalog_snapshots', (t) => {
    t.uuid('activity_id');
    t.uuid('restored_snapshot_id');
  });
  await knex.raw('CREATE INDEX catalog_snapshots_activity_id_index ON catalog_snapshots (activity_id) WHERE activity_id IS NOT NULL');
  await knex.raw(
    'CREATE INDEX catalog_snapshots_restored_snapshot_id_index ON catalog_snapshots (restored_snapshot_id) WHERE restored_snapshot_id IS NOT NULL',
  );
  const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
  await knex.raw(
    `UPDATE catalog_snapshots SET activity_id = substring(reason from 'applying activity (${uuid})$')::uuid
     WHERE snapshot_type = 'pre_apply' AND reason ~ 'applying activity ${uuid}$'`,
  );
  await knex.raw(
    `UPDATE catalog_snapshots SET restored_snapshot_id = substring(reason from 'restoring snapshot (${uuid})$')::uuid
     WHERE snapshot_type = 'safety' AND reason ~ 'restoring snapshot ${uuid}$'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('catalog_snapshots', (t) => {
    t.dropIndex([], 'catalog_snapshots_activity_id_index');
    t.dropIndex([], 'catalog_snapshots_restored_snapshot_id_index');
    t.dropColumn('activity_id');
    t.dropColumn('restored_snapshot_id');
  });
}
