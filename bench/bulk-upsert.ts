/**
 * Bulk upsert throughput through HTTP (`POST …/items/bulk`, 1000 items per request, strict
 * mode on a 20-field schema), then the same items again (every row matched by business key
 * and merged), compared with a raw PostgreSQL COPY of the same rows into the same table in
 * the same run. COPY supplies `search_text` and `search_tsv` as the service does, so both pay
 * the same index work and neither runs the search-column trigger; COPY is the floor of what
 * PostgreSQL needs for these rows. Prints one JSON line with the 1-minute load average at
 * start and end (the machine is shared). Target: ≥ 5,000 items/s over HTTP (creates).
 */
import './env';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { newId } from '../src/lib/ids';
import { searchTextOf, searchWordsOf } from '../src/services/catalog/items-keys';
import { benchItem, createBenchCatalog, loadAvg, since, runBench } from './lib';

const TOTAL = Number(process.env.BENCH_ITEMS ?? 50000);
const BATCH = 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);

runBench(async (b) => {
  const loadStart = loadAvg();
  const catalog = await createBenchCatalog(b, 'bulk upsert');
  const batches = Array.from({ length: TOTAL / BATCH }, (_, k) => Array.from({ length: BATCH }, (_, j) => benchItem(k * BATCH + j)));
  const bodies = batches.map((items) => JSON.stringify({ items }));
  // One bulk request through the typed client; the body text was serialized above, outside the timing.
  const bulk = (k: number) =>
    b.api.POST('/api/public/catalogs/{catalog_id}/items/bulk', {
      params: { path: { catalog_id: catalog } },
      body: { items: batches[k] },
      bodySerializer: () => bodies[k],
    });
  let next = 0;
  let created = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const k = next++;
        const { data, error, response } = await bulk(k);
        if (response.status !== 200 || !data || data.items_failed !== 0)
          throw new Error(`bulk failed: ${response.status} ${JSON.stringify(data ?? error).slice(0, 300)}`);
        created += data.items_created ?? 0;
      }
    }),
  );
  const httpMs = since(t0);

  // Update pass: the same items again (every row matched by business key and merged).
  const t1 = performance.now();
  next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const { response } = await bulk(next++);
        if (response.status !== 200) throw new Error(`bulk update failed: ${response.status}`);
      }
    }),
  );
  const updateMs = since(t1);

  // Raw COPY of the same rows into the same table (another catalog), same indexes and trigger.
  const copyCatalog = await createBenchCatalog(b, 'copy baseline');
  const client = await b.knex.client.acquireConnection();
  const t2 = performance.now();
  try {
    const stream = client.query(copyFrom('COPY catalog_items (id, catalog_id, entity_type, business_key, data, search_text, search_tsv) FROM STDIN'));
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
    const lines = function* () {
      for (const batch of batches) {
        yield batch
          .map((item) => {
            const text = searchTextOf(item);
            // Words are runs of [A-Za-z0-9] (bench data is ASCII): tsvector input needs no quoting.
            const tsv = (searchWordsOf(text) ?? []).join(' ');
            return `${newId()}\t${copyCatalog}\tproduct\t${esc(String(item.sku))}\t${esc(JSON.stringify(item))}\t${esc(text)}\t${tsv}\n`;
          })
          .join('');
      }
    };
    await pipeline(Readable.from(lines()), stream);
  } finally {
    await b.knex.client.releaseConnection(client);
  }
  const copyMs = since(t2);
  const count = await b.knex('catalog_items').where('catalog_id', catalog).count<{ n: string }[]>({ n: '*' });
  const itemCount = (await b.knex('catalogs').where('id', catalog).first('item_count')).item_count;
  const httpRate = TOTAL / (httpMs / 1000);
  const copyRate = TOTAL / (copyMs / 1000);
  return {
    bench: 'bulk_upsert_http',
    items: TOTAL,
    batch: BATCH,
    concurrency: CONCURRENCY,
    fields: 20,
    strict_mode: true,
    create_items_per_s: Math.round(httpRate),
    update_items_per_s: Math.round(TOTAL / (updateMs / 1000)),
    copy_items_per_s: Math.round(copyRate),
    http_create_to_copy_ratio: Number((httpRate / copyRate).toFixed(3)),
    rows_in_table: Number(count[0].n),
    item_count: itemCount,
    created,
    target_items_per_s: 5000,
    pass: httpRate >= 5000 && Number(count[0].n) === TOTAL && itemCount === TOTAL,
    load_start: loadStart,
  };
});
