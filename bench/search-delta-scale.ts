/**
 * Words-only counts against a large search count index delta (docs/large-catalogs.md, "The search
 * count index's delta"; docs/benchmarks.md, search-churn): on the indexed catalog of
 * `BENCH_DATABASE_URL` (bench/search-churn.ts's, kept between runs), counts five terms through
 * `countWithSearchIndex` (service function, no HTTP; 5 times each, p50 and max) with an empty
 * delta, after one UPDATE of `BENCH_DELTA_ITEMS` items (default 100,000) that appends frequent
 * words to their titles (so every delta row touches the terms: the worst case, each count reads
 * every row), and after `foldSearchDelta`. Every count is checked against a SQL count. Prints one
 * JSON line. Rewrites the titles of the catalog's odd items: ` red wool olive` appended, or taken
 * off again by the next run.
 */
import './env';
import { loadavg } from 'node:os';
import { createKnex } from '../src/db';
import { foldSearchDelta } from '../src/services/catalog/search/search-count-fold';
import { countWithSearchIndex } from '../src/services/catalog/search/search-count-index';
import { BENCH_DATABASE_URL } from './lib';

const TERMS = ['wool', 'olive boot', 'red', 'red shirt', 'sneaker'];

/** Runs the sequence of the module comment and prints its figures. */
async function main(): Promise<void> {
  const knex = createKnex(BENCH_DATABASE_URL, { min: 0, max: 2 });
  const items = Number(process.env.BENCH_DELTA_ITEMS ?? 100_000);
  const index = await knex('catalog_search_index').first('catalog_id');
  if (!index) throw new Error('no indexed catalog: run bench/search-churn.ts first');
  const c = index.catalog_id as string;
  const pending = async (): Promise<number> =>
    (await knex.raw('SELECT (c.search_logged - i.logged)::int AS n FROM catalogs c JOIN catalog_search_index i ON i.catalog_id = c.id WHERE c.id = ?', [c]))
      .rows[0].n;
  const counts = async () => {
    const out: Record<string, { p50_ms: number; max_ms: number; exact: boolean }> = {};
    for (const term of TERMS) {
      const ms: number[] = [];
      let total = -1;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const r = await knex.transaction((trx) => countWithSearchIndex(trx, c, term), { isolationLevel: 'repeatable read' });
        ms.push(performance.now() - t);
        total = 'total' in r ? r.total : -1;
      }
      ms.sort((a, b) => a - b);
      const sql = (
        await knex.raw('SELECT count(*)::int AS n FROM catalog_items WHERE catalog_id = ? AND search_tsv @@ catalog_item_search_query(?)', [c, term])
      ).rows[0].n;
      out[term] = { p50_ms: Math.round(ms[2]), max_ms: Math.round(ms[4]), exact: total === sql };
    }
    return { delta_rows: await pending(), load: Number(loadavg()[0].toFixed(1)), counts: out };
  };
  const result: Record<string, unknown> = { bench: 'search_delta_scale', delta_items: items };
  await foldSearchDelta(knex, c);
  result.empty = await counts();
  let t = performance.now();
  await knex.raw(
    `UPDATE catalog_items SET data = data || jsonb_build_object('title', CASE WHEN data->>'title' LIKE '% red wool olive'
       THEN left(data->>'title', -15) ELSE (data->>'title') || ' red wool olive' END)
     WHERE id IN (SELECT id FROM catalog_items WHERE catalog_id = ? AND (split_part(business_key, '-', 2))::int % 2 = 1 LIMIT ?)`,
    [c, items],
  );
  result.write_ms = Math.round(performance.now() - t);
  result.with_delta = await counts();
  t = performance.now();
  const fold = await foldSearchDelta(knex, c);
  result.fold = { ms: Math.round(performance.now() - t), rows: fold?.rows, postings_written: fold?.postings_written };
  result.folded = await counts();
  console.log(JSON.stringify(result));
  await knex.destroy();
}

void main();
