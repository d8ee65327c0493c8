import type { Knex } from 'knex';
import { closeTestKnex, testKnex } from '../helpers/db';

/**
 * An index on a column that every item update changes makes every update of `catalog_items`
 * non-HOT: PostgreSQL then writes a new entry in every index of the table for each update,
 * including the word index's many entries per row (docs/benchmarks.md "Restore regression").
 * `updated_at` and `current_version` change with every write, so no index may read them (the
 * delta feeds' and readiness' change tracking uses a log table instead, docs/feeds.md "Delta runs").
 */
afterAll(closeTestKnex);

/** The indexes of catalog_items reading `updated_at` or `current_version` (as a key, in an expression or a predicate). */
async function indexesOnEveryUpdateColumns(db: Knex | Knex.Transaction): Promise<Array<{ index: string; col: string }>> {
  const { rows } = await db.raw(
    `SELECT i.indexrelid::regclass::text AS index, a.attname AS col
       FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid
      WHERE i.indrelid = 'catalog_items'::regclass
        AND a.attname IN ('updated_at', 'current_version')
        AND (a.attnum = ANY(i.indkey)
             OR coalesce(pg_get_expr(i.indexprs, i.indrelid), '') ~ ('\\m' || a.attname || '\\M')
             OR coalesce(pg_get_expr(i.indpred, i.indrelid), '') ~ ('\\m' || a.attname || '\\M'))
      ORDER BY 1, 2`,
  );
  return rows;
}

it('no index of catalog_items reads a column that every update changes', async () => {
  expect(await indexesOnEveryUpdateColumns(testKnex())).toEqual([]);
});

it('the check names such an index (a key, an expression, a predicate) when one exists', async () => {
  const trx = await testKnex().transaction();
  try {
    await trx.raw('CREATE INDEX items_hot_probe_key ON catalog_items (catalog_id, updated_at)');
    await trx.raw('CREATE INDEX items_hot_probe_expr ON catalog_items ((current_version + 0))');
    await trx.raw("CREATE INDEX items_hot_probe_pred ON catalog_items (catalog_id) WHERE updated_at > '2000-01-01'");
    expect(await indexesOnEveryUpdateColumns(trx)).toEqual([
      { index: 'items_hot_probe_expr', col: 'current_version' },
      { index: 'items_hot_probe_key', col: 'updated_at' },
      { index: 'items_hot_probe_pred', col: 'updated_at' },
    ]);
  } finally {
    await trx.rollback();
  }
});
