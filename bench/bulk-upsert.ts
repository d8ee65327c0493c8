/**
 * Bulk upsert throughput through HTTP (`POST …/items/bulk`, 1000 items per request, strict
 * mode on a 20-field schema), then the same items again (every row matched by business key
 * and merged), compared with a raw PostgreSQL COPY of the same rows into the same table in
 * the same run. COPY supplies `search_text` and `search_tsv` as the service does, so both pay
 * the same index work and neither runs the search-column trigger; COPY is the floor of what
 * PostgreSQL needs for these rows. Prints one JSON line with the 1-minute load average at
 * start and end (the machine is shared). Target: ≥ 5,000 items/s over HTTP (creates). Each pass also
 * prints where its time went, per stage of the write path (the route's `Server-Timing` header;
 * docs/benchmarks.md "Bulk upsert by stage"). The server is warmed first (see {@link warmUp}). `BENCH_SORT_FIELDS` (comma-separated data fields, e.g.
 * `price`): the HTTP catalog keeps their list sort keys from the start (docs/large-catalogs.md
 * "Sorting by a data field"), so the run shows their write cost against the COPY, which keeps none.
 */
import './env';
import { parseServerTiming } from '../src/lib/stage-timings';
import { copyItems } from './limits';
import { type Bench, benchItem, createBenchCatalog, loadAvg, since, runBench } from './lib';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 50000);
const BATCH = 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const SORT_FIELDS = (process.env.BENCH_SORT_FIELDS ?? '').split(',').filter((f) => f !== '');

/**
 * The benchmark of this file's header on a running {@link Bench}, with `TOTAL` items; returns its figures
 * (the JSON line's fields).
 */
export async function measureBulkUpsert(b: Bench, TOTAL: number = ITEMS): Promise<Record<string, unknown>> {
  const loadStart = loadAvg();
  await warmUp(b);
  const catalog = await createBenchCatalog(b, 'bulk upsert');
  // Recorded and ready while the catalog is empty: every write keeps their keys.
  for (const field of SORT_FIELDS) await b.knex('catalog_sort_fields').insert({ catalog_id: catalog, field, ready: true });
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
  const createStages = new StageSums();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const k = next++;
        const r0 = performance.now();
        const { data, error, response } = await bulk(k);
        if (response.status !== 200 || !data || data.items_failed !== 0)
          throw new Error(`bulk failed: ${response.status} ${JSON.stringify(data ?? error).slice(0, 300)}`);
        createStages.add(since(r0), response.headers.get('server-timing'));
        created += data.items_created ?? 0;
      }
    }),
  );
  const httpMs = since(t0);

  // Update pass: the same items again (every row matched by business key and merged).
  const updateStages = new StageSums();
  const t1 = performance.now();
  next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const r0 = performance.now();
        const { response } = await bulk(next++);
        if (response.status !== 200) throw new Error(`bulk update failed: ${response.status}`);
        updateStages.add(since(r0), response.headers.get('server-timing'));
      }
    }),
  );
  const updateMs = since(t1);

  // Raw COPY of the same rows into the same table (another catalog), same indexes and trigger.
  const copyCatalog = await createBenchCatalog(b, 'copy baseline');
  const copyMs = await copyItems(b, copyCatalog, batches.flat());
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
    sort_key_fields: SORT_FIELDS,
    strict_mode: true,
    create_items_per_s: Math.round(httpRate),
    update_items_per_s: Math.round(TOTAL / (updateMs / 1000)),
    copy_items_per_s: Math.round(copyRate),
    http_create_to_copy_ratio: Number((httpRate / copyRate).toFixed(3)),
    rows_in_table: Number(count[0].n),
    item_count: itemCount,
    created,
    create_stages_ms_per_1000: createStages.perThousand(TOTAL),
    create_stage_shares: createStages.shares(),
    update_stages_ms_per_1000: updateStages.perThousand(TOTAL),
    update_stage_shares: updateStages.shares(),
    target_items_per_s: 5000,
    pass: httpRate >= 5000 && Number(count[0].n) === TOTAL && itemCount === TOTAL,
    load_start: loadStart,
  };
}

/**
 * Brings the server to the state of one that has been running: two rounds of CONCURRENCY bulk
 * requests of BATCH items into a catalog of their own, so the JIT has compiled the write path and
 * the database pool holds its connections. Without it the first requests of the measured pass
 * paid both (a fresh process used about 35 ms more CPU per 1,000 items over its first 20,000 than
 * over the next; docs/benchmarks.md "Bulk upsert by stage"). The measured catalog's own first
 * request, which compiles its schema's validator, stays in the figure.
 */
async function warmUp(b: Bench): Promise<void> {
  const catalog = await createBenchCatalog(b, 'bulk upsert warm-up');
  for (let round = 0; round < 2; round++) {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, k) => {
        const items = Array.from({ length: BATCH }, (_, j) => benchItem((round * CONCURRENCY + k) * BATCH + j, 'WARM'));
        const { response } = await b.api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: catalog } }, body: { items } });
        if (response.status !== 200) throw new Error(`warm-up bulk request failed: ${response.status}`);
      }),
    );
  }
}

/**
 * Sums of the bulk route's `Server-Timing` stages (docs/benchmarks.md "Bulk upsert by stage")
 * over a pass, with the client's request time: `request_other` is what the stages do not cover
 * (HTTP, JSON parsing, schema checks of the body, the commit, the answer).
 */
class StageSums {
  private readonly ms: Record<string, number> = {};
  private requestMs = 0;

  /** Adds one request: its round-trip time in ms and its Server-Timing header. */
  add(requestMs: number, header: string | null): void {
    this.requestMs += requestMs;
    for (const [stage, ms] of Object.entries(parseServerTiming(header))) this.ms[stage] = (this.ms[stage] ?? 0) + ms;
  }

  /** Milliseconds per stage per 1,000 items (request time summed over concurrent requests). */
  perThousand(items: number): Record<string, number> {
    const staged = Object.values(this.ms).reduce((a, b) => a + b, 0);
    const all = { ...this.ms, request_other: this.requestMs - staged, request_total: this.requestMs };
    return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, Math.round((1000 * v) / items)]));
  }

  /** Each stage's share of the summed request time (0–1), largest first. */
  shares(): Record<string, number> {
    const staged = Object.values(this.ms).reduce((a, b) => a + b, 0);
    const all = { ...this.ms, request_other: this.requestMs - staged };
    return Object.fromEntries(
      Object.entries(all)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => [k, Number((v / this.requestMs).toFixed(3))]),
    );
  }
}

if (require.main === module) runBench((b) => measureBulkUpsert(b));
