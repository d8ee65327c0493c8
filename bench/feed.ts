/**
 * Feed run benchmark (docs/benchmarks.md, "Feeds"): a Google Merchant Center TSV feed of a catalog
 * of N items with realistic GMC fields (sku, title, description, link, image_link, price and
 * currency, brand, GTIN-13 with a valid GS1 check digit except every 500th, availability,
 * condition; every 10th item is a product with two variants carrying their own GTIN, colour and
 * size). The items are COPYed with their search columns (bench/limits.ts `copyItems` does the same
 * for flat items). Measured through the path users take: a feed made by the feed service, runs
 * started by the service's `startFeedRun` on a real Temporal dev server with an in-process worker
 * (bench/job-common.ts), waited for as `feed-run-<run_id>`:
 *
 * - `full_items_per_s`: items read per second of a full TSV run, end to end (start to completed);
 * - `raw_pull_rows_per_s`: the ceiling, a raw keyset SELECT of the same catalog's rows (pages of
 *   5,000, the columns a page reads) in the same run;
 * - `rss_mb`: the process's RSS (it hosts the worker) sampled every 200 ms during the full run,
 *   at 10 %, 50 % and 100 % of the items read, and its peak;
 * - `readiness_build_ms`: the first channel readiness of the catalog with the feed's mapping (it
 *   builds the kept state: one scan); `readiness_p95_ms`: 5 calls right after 1,000 items changed
 *   their price (the first refreshes those items, docs/channels.md "Readiness");
 * - `delta_ms`: a delta run after 1,000 items changed their price, start to completed;
 * - `state_rows` / `state_ok`: the feed's item state (docs/feeds.md "Delta runs") holds one row per
 *   exported item after the full run, and the delta updated that generation in place (same rows).
 *
 *   npx tsx bench/feed.ts [--items 1000000] [--page-items 500]      env: BENCH_DATABASE_URL
 */
import './env';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { Knex } from 'knex';
import { newId } from '../src/lib/ids';
import { FEED_PAGE_ITEMS, feedRunWorkflowId } from '../src/contracts/feed-workflows';
import { createServiceCaches } from '../src/services/service-caches';
import { searchTextOf, searchWordsOf } from '../src/services/catalog/items/items-keys';
import { channelReadiness } from '../src/services/channels/readiness';
import { createFeed } from '../src/services/feeds/feeds';
import { startFeedRun } from '../src/services/feeds/runs';
import { TemporalJobRunner } from '../temporal/client';
import { benchEngine, startJobBench, type JobBench } from './job-common';
import { loadAvg, since } from './lib';

/** Catalog fields of the feed catalog (all strings but price). */
const FIELDS = [
  'sku',
  'product_id',
  'title',
  'description',
  'link',
  'image_link',
  'price',
  'currency',
  'brand',
  'gtin',
  'availability',
  'condition',
  'color',
  'size',
];

/** Explicit mapping (Google attribute → catalog field), as a client sends it. */
const MAPPING = {
  id: 'sku',
  title: 'title',
  description: 'description',
  link: 'link',
  image_link: 'image_link',
  price: 'price',
  availability: 'availability',
  condition: 'condition',
  brand: 'brand',
  gtin: 'gtin',
  color: 'color',
  size: 'size',
};

const BRANDS = ['Acme', 'Northwind', 'Contoso', 'Fabrikam', 'Tailspin', 'Wingtip', 'Litware', 'Proseware'];
const KINDS = ['Shirt', 'Trousers', 'Jacket', 'Sneaker', 'Boot', 'Scarf', 'Hat', 'Sock', 'Dress', 'Sweater'];
const COLORS = ['red', 'blue', 'green', 'black', 'white', 'navy', 'olive', 'grey'];

/** A GTIN-13 from a 12-digit body with its GS1 check digit (weights 1,3 from the left); `bad` adds 1 to it. */
export function gtin13(body: number, bad = false): string {
  const d = String(body).padStart(12, '0');
  let sum = 0;
  for (let k = 0; k < 12; k++) sum += Number(d[k]) * (k % 2 === 0 ? 1 : 3);
  const check = (10 - (sum % 10)) % 10;
  return d + String(bad ? (check + 1) % 10 : check);
}

/** Item `i`: every 10th a product with variants i+1, i+2; every 500th GTIN invalid. */
function feedItem(i: number): { data: Record<string, unknown>; variantOf: number | null } {
  const group = i - (i % 10);
  const gtin = gtin13(400000000000 + i, i % 500 === 499);
  if (i % 10 === 1 || i % 10 === 2)
    return { data: { sku: `SKU-${i}`, product_id: `SKU-${group}`, gtin, color: COLORS[i % 8], size: ['S', 'M', 'L', 'XL'][i % 4] }, variantOf: group };
  const kind = KINDS[i % 10 === 0 ? (i / 10) % 10 : i % 10];
  return {
    data: {
      sku: `SKU-${i}`,
      product_id: `SKU-${i}`,
      title: `${BRANDS[i % 8]} ${kind} ${i}`,
      description: `Comfortable ${COLORS[(i * 7) % 8]} ${kind.toLowerCase()} made for everyday wear, model ${i % 997}. Machine washable, ships in 2 days.`,
      link: `https://shop.example.com/p/${i}`,
      image_link: `https://img.example.com/${i}.jpg`,
      price: (i % 1000) / 10 + 1,
      currency: 'EUR',
      brand: BRANDS[i % 8],
      ...(i % 10 === 0 ? {} : { gtin, color: COLORS[i % 8], size: ['S', 'M', 'L', 'XL'][i % 4] }),
      availability: i % 7 === 0 ? 'out_of_stock' : 'in_stock',
      condition: 'new',
    },
    variantOf: null,
  };
}

/** COPYs `n` feed items into the catalog (ids in generation order; a variant after its product). */
async function seedFeedItems(knex: Knex, catalogId: string, n: number): Promise<void> {
  const client = await knex.client.acquireConnection();
  try {
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
    const lines = function* () {
      let parentId = '';
      for (let k = 0; k < n; k += 1000) {
        const out: string[] = [];
        for (let i = k; i < Math.min(n, k + 1000); i++) {
          const { data, variantOf } = feedItem(i);
          const id = newId();
          if (i % 10 === 0) parentId = id;
          const text = searchTextOf(data);
          const tsv = (searchWordsOf(text) ?? []).join(' ');
          const parent = variantOf === null ? '\\N' : parentId;
          out.push(
            `${id}\t${catalogId}\t${variantOf === null ? 'product' : 'variant'}\t${parent}\t${esc(String(data.sku))}\t${esc(JSON.stringify(data))}\t${esc(text)}\t${tsv}\n`,
          );
        }
        yield out.join('');
      }
    };
    const stream = client.query(
      copyFrom('COPY catalog_items (id, catalog_id, entity_type, parent_id, business_key, data, search_text, search_tsv) FROM STDIN'),
    );
    await pipeline(Readable.from(lines()), stream);
  } finally {
    await knex.client.releaseConnection(client);
  }
  await knex('catalogs').where('id', catalogId).update({ item_count: n });
  await knex.raw('VACUUM ANALYZE catalog_items');
}

/** Rows/s of a raw keyset pull of the catalog (pages of 5,000, the columns a feed page reads). */
async function rawPull(knex: Knex, catalogId: string, n: number): Promise<number> {
  const t = performance.now();
  let after = '00000000-0000-0000-0000-000000000000';
  let read = 0;
  for (;;) {
    const { rows } = await knex.raw(
      `SELECT id, entity_type, parent_id, business_key, data FROM catalog_items WHERE catalog_id = ? AND id > ? ORDER BY id LIMIT 5000`,
      [catalogId, after],
    );
    if (!rows.length) break;
    read += rows.length;
    after = rows[rows.length - 1].id;
  }
  if (read !== n) throw new Error(`raw pull read ${read} of ${n}`);
  return n / (since(t) / 1000);
}

/** Starts a run through the service and waits for its workflow; samples RSS against progress meanwhile. */
async function timedRun(jb: JobBench, runner: TemporalJobRunner, feedId: string, delta: boolean) {
  const scope = { organizationId: jb.organizationId, principal: { kind: 'api_key' as const, id: 'bench', organizationIds: [jb.organizationId] } };
  const samples: Array<{ read: number; total: number; rss: number }> = [];
  let runId = '';
  const sampler = setInterval(() => {
    if (!runId) return;
    const rss = process.memoryUsage().rss;
    void jb
      .knex('feed_runs')
      .select('items_read', 'total')
      .where('id', runId)
      .first()
      .then((r) => r && samples.push({ read: r.items_read, total: r.total ?? 0, rss }))
      .catch(() => undefined);
  }, 200);
  const t = performance.now();
  try {
    const run = await startFeedRun({ knex: jb.knex, jobRunner: runner }, scope, feedId, delta);
    runId = run.id;
    const progress = await jb.env.client.workflow.getHandle(feedRunWorkflowId(run.id)).result();
    const ms = since(t);
    const row = await jb.knex('feed_runs').where('id', run.id).first();
    if (row.status !== 'completed') throw new Error(`run ${run.id} ended ${row.status}: ${row.error}`);
    return { ms, progress, row, samples };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Creates a catalog with product/variant grouping (`product_id`) and the feed fields, and COPYs
 * `n` feed items into it (see the header). @returns the catalog id
 */
export async function createFeedCatalog(knex: Knex, organizationId: string, n: number): Promise<string> {
  const catalogId = newId();
  await knex('catalogs').insert({
    id: catalogId,
    organization_id: organizationId,
    name: `feed bench ${n}`,
    unique_id_field: 'sku',
    product_id_field: 'product_id',
    product_enabled: true,
    strict_mode: false,
    current_schema_version: '1.0.0',
    created_by_user_id: 'bench',
  });
  const properties = Object.fromEntries(FIELDS.map((f) => [f, { type: f === 'price' ? 'number' : 'string' }]));
  await knex('catalog_schemas').insert({
    id: newId(),
    catalog_id: catalogId,
    version: '1.0.0',
    schema_definition: JSON.stringify({ type: 'object', properties, required: ['sku'] }),
    created_by: 'bench',
    change_reason: 'bench',
  });
  await seedFeedItems(knex, catalogId, n);
  return catalogId;
}

const mb = (b: number) => Math.round(b / 1e6);

/**
 * The benchmark of this file's header with `n` items (a multiple of 10), on its own job bench
 * (database, Temporal dev server, worker); returns its figures.
 */
export async function measureFeed(n = 100_000, pageItems?: number): Promise<Record<string, unknown>> {
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'feed-bench-'));
  process.env.BLOB_DIR = blobDir;
  const jb = await startJobBench(benchEngine('echo'));
  const loadStart = loadAvg();
  try {
    let t = performance.now();
    const catalogId = await createFeedCatalog(jb.knex, jb.organizationId, n);
    const seedS = since(t) / 1000;
    const scope = { organizationId: jb.organizationId, principal: { kind: 'api_key' as const, id: 'bench', organizationIds: [jb.organizationId] } };
    const { feed } = await createFeed(jb.knex, scope, catalogId, {
      channel: 'google_merchant_center',
      format: 'tsv',
      target_country: 'DE',
      language: 'de',
      currency: 'EUR',
      mapping: MAPPING,
    });
    const tuning = pageItems ? { page_items: pageItems } : {};
    const runner = new TemporalJobRunner(jb.env.client, { taskQueue: jb.taskQueue, enrichConcurrency: 1 }, {}, {}, {}, {}, {}, {}, tuning);
    const pull = await rawPull(jb.knex, catalogId, n);
    const loadFull = loadAvg();
    const full = await timedRun(jb, runner, feed.id, false);
    const at = (p: number) => full.samples.find((s) => s.total > 0 && s.read >= p * s.total)?.rss;
    const exportable = n - n / 10;
    const badGtins = Array.from({ length: n }, (_, i) => i).filter((i) => i % 500 === 499 && i % 10 !== 0).length;
    const fileBytes = full.row.file_key ? fs.statSync(path.join(blobDir, full.row.file_key)).size : null;

    const caches = createServiceCaches();
    const readinessOf = () => channelReadiness({ knex: jb.knex, caches }, scope, catalogId, 'google_merchant_center', { mapping: MAPPING, currency: 'EUR' });
    // The first answer builds the kept readiness state (one scan); later ones refresh it.
    t = performance.now();
    await readinessOf();
    const readinessBuild = since(t);

    // 1,000 products (not parents) change their price.
    await jb.knex.raw(
      `UPDATE catalog_items SET data = jsonb_set(data, '{price}', to_jsonb((data->>'price')::numeric + 1)), updated_at = now()
       WHERE id IN (SELECT id FROM catalog_items WHERE catalog_id = ? AND entity_type = 'product' AND data->>'sku' !~ '(0|[49]99)$' ORDER BY id LIMIT 1000)`,
      [catalogId],
    );
    // Readiness right after the write (the first call refreshes the 1,000 items), 5 calls.
    const readiness: number[] = [];
    let ready = 0;
    for (let k = 0; k < 5; k++) {
      t = performance.now();
      ready = (await readinessOf()).ready;
      readiness.push(since(t));
    }
    readiness.sort((a, b) => a - b);
    const loadDelta = loadAvg();
    const stateRows = async (stateId: string | null) => Number((await jb.knex('feed_item_state').where('state_id', stateId).count({ n: '*' }))[0].n);
    const fullState = await stateRows(full.row.state_id);
    const delta = await timedRun(jb, runner, feed.id, true);
    const deltaState = await stateRows(delta.row.state_id);
    return {
      bench: 'feed',
      items: n,
      page_items: pageItems ?? FEED_PAGE_ITEMS,
      exportable,
      seed_s: Number(seedS.toFixed(1)),
      full_ms: Math.round(full.ms),
      full_items_per_s: Math.round(n / (full.ms / 1000)),
      target_items_per_s: 20000,
      raw_pull_rows_per_s: Math.round(pull),
      ratio_to_raw_pull: Number((n / (full.ms / 1000) / pull).toFixed(3)),
      full_counts: { items_read: full.row.items_read, exported: full.row.exported, excluded: full.row.excluded, warnings: full.row.warnings },
      counts_ok: full.row.items_read === exportable && full.row.excluded === badGtins && full.row.exported === exportable - badGtins,
      file_mb: fileBytes === null ? null : Number((fileBytes / 1e6).toFixed(1)),
      rss_mb: {
        at_10: mb(at(0.1) ?? 0),
        at_50: mb(at(0.5) ?? 0),
        at_100: mb(at(1) ?? full.samples.at(-1)?.rss ?? 0),
        peak: mb(Math.max(...full.samples.map((s) => s.rss))),
      },
      rss_samples: full.samples.length,
      readiness_build_ms: Math.round(readinessBuild),
      readiness_ms: readiness.map(Math.round),
      readiness_p95_ms: Math.round(readiness[readiness.length - 1]),
      readiness_ready: ready,
      target_readiness_ms_at_1m: 300,
      delta_ms: Math.round(delta.ms),
      delta_exported: delta.row.exported,
      delta_ok: delta.row.exported === 1000,
      state_rows: { full: fullState, after_delta: deltaState },
      state_ok: fullState === full.row.exported && deltaState === fullState && delta.row.state_id === full.row.state_id,
      target_delta_ms: 5000,
      load_start: loadStart,
      load_full_run: loadFull,
      load_delta: loadDelta,
      load_end: loadAvg(),
    };
  } finally {
    await jb.close();
    fs.rmSync(blobDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const arg = (name: string) => {
    const k = process.argv.indexOf(name);
    return k > 0 ? Number(process.argv[k + 1]) : undefined;
  };
  measureFeed(arg('--items') ?? 100_000, arg('--page-items'))
    .then((r) => {
      for (const [key, value] of Object.entries(r)) console.log(JSON.stringify({ bench: 'feed', figure: key, value }));
      console.log(JSON.stringify(r));
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
