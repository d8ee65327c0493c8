/**
 * The catalog console's item grid: server time of `GET /dashboard/catalogs/{id}/items`
 * pages on a `BENCH_ITEMS`-item catalog (default 1,000,000), signed in with a dashboard session,
 * over HTTP on loopback (the request's whole time: query, count, tree counts, render). Cases: the
 * default order, an equality filter, a data-field sort, filter + sort, a word search, a taxonomy
 * node, and a filter matching no item (the worst case: the count and the page read every row).
 * Grid field indexes (src/services/catalog/grid/grid-indexes.ts): the first request of each case
 * records the indexes it needs (`index_notices`: what the page said), then the bench builds them
 * in-process with the workflow's own function (`reconcileGridIndexes`; the bench app starts no
 * workflows) and prints each build's time (`grid_indexes`); the cases are measured after that.
 * Each case: the first page `BENCH_ROUNDS` times (default 10), then `BENCH_DEEP` pages (default
 * 10) walked by the page's own "Next" cursor; p50 / p95 of each. Target: p95 ≤ 300 ms on every
 * page at 1,000,000 items. Also API word searches (`api_search_p95_ms`), and with `BENCH_CHURN=1`
 * the churn sequence (Qualities, "fast right after churn": `churn`): a snapshot, 12 % of
 * the items changed, the restore, the word index caught up, every case and the searches measured
 * (`after_restore`), the churn maintenance pass, measured again (`after_maintenance`); target
 * ≤ 100 ms p95 through it. Also the completeness page: `completeness_cold_ms` (from the
 * completeness counters, or one scan of the catalog when a profile has rules; target ≤ 300 ms)
 * and `completeness_warm_ms` (again, from the app's cache while nothing changed). Prints one
 * JSON line.
 *
 * The catalog (20-field bench schema, bench/lib.ts, plus `category_id` and a 10-node taxonomy
 * whose nodes require `size`) is seeded once with INSERT … SELECT generate_series and kept for
 * later runs (organization "bench console grid"). This branch adds a migration: run it on its own
 * database, e.g. `BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/catalog_enrichment_bench_grid`.
 */
import './env';
import { createCatalogClient } from '@catalog-enrichment/client';
import { loadConfig } from '../src/config';
import { SESSION_COOKIE } from '../src/middleware/session';
import { createOrganizationWithKey } from '../src/services/access/auth';
import { signIn } from '../src/services/access/sessions';
import type { Scope } from '../src/services/access/scope';
import { reconcileGridIndexes } from '../src/services/catalog/grid/grid-indexes';
import { churnWarrantsMaintenance, maintainSearchIndexes } from '../src/services/catalog/search/index-maintenance';
import { buildSearchIndex } from '../src/services/catalog/search/search-count-index';
import { catchUpSearchWords } from '../src/services/catalog/search/search-words';
import { restoreSnapshot } from '../src/services/catalog/snapshots/snapshots';
import { normalizeTaxonomy } from '../src/services/catalog/taxonomy';
import { type Bench, createBenchCatalog, loadAvg, runBench, seedSql, since } from './lib';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const DEEP = Number(process.env.BENCH_DEEP ?? 10);
/** BENCH_CHURN=1: also measure right after a snapshot restore, then after the churn maintenance pass. */
const CHURN = process.env.BENCH_CHURN === '1';
/** Rounds of each case in the churn phases (default 5). */
const CHURN_ROUNDS = Number(process.env.BENCH_CHURN_ROUNDS ?? 5);
const SEARCH_TERMS = ['olive boot', 'sku-12345', 'wool', 'acme red'];
const KINDS = ['Shirt', 'Trousers', 'Jacket', 'Sneaker', 'Boot', 'Scarf', 'Hat', 'Sock', 'Dress', 'Sweater'];

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]);
}

/**
 * The benchmark of this file's header on a running {@link Bench}, with `N` items; returns its figures
 * (the JSON line's fields).
 */
export async function measureConsoleGrid(b: Bench, N: number = ITEMS): Promise<Record<string, unknown>> {
  const key = 'ck_benchconsolegrid';
  const organizationId = (await createOrganizationWithKey(b.knex, 'bench console grid', key)).organizationId;
  let catalog = (await b.knex('catalogs').where({ organization_id: organizationId, item_count: N }).first('id')) as { id: string } | undefined;
  let seedMs = 0;
  if (!catalog) {
    await b.knex('catalogs').where('organization_id', organizationId).delete();
    const id = await createBenchCatalog({ knex: b.knex, organizationId }, 'console grid');
    const taxonomy = normalizeTaxonomy(
      {
        name: 'Apparel',
        nodes: [
          { id: 'apparel', name: 'Apparel', parent: null, attributes: [{ name: 'size', type: 'string', required: true }] },
          ...KINDS.map((k) => ({ id: k.toLowerCase(), name: k, parent: 'apparel' })),
        ],
      },
      ['taxonomy'],
    );
    await b
      .knex('catalog_schemas')
      .where('catalog_id', id)
      .update({ taxonomy: JSON.stringify(taxonomy) });
    const t = performance.now();
    // Every 11th item has no category (unclassified); every 13th has no size.
    await b.knex.raw(
      `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at, updated_at)
       SELECT gen_random_uuid(), ?, 'product', 'SKU-' || g,
              (${seedSql('SKU')} - CASE WHEN g % 13 = 0 THEN 'size' ELSE '' END)
                || CASE WHEN g % 11 = 0 THEN '{}'::jsonb ELSE jsonb_build_object('category_id', lower((ARRAY[${KINDS.map((k) => `'${k}'`).join(',')}])[g % 10 + 1])) END,
              now() + g * interval '1 microsecond', now()
       FROM generate_series(0, ? - 1) AS g`,
      [id, N],
    );
    await b.knex('catalogs').where('id', id).update({ item_count: N });
    await b.knex.raw('VACUUM ANALYZE catalog_items');
    seedMs = since(t);
    catalog = { id };
  }
  const session = await signIn(b.knex, key, loadConfig().jwtSecret);
  const headers = { Cookie: `${SESSION_COOKIE}=${session.token}` };
  /** The typed client (packages/client) with the bench organization's key: the API calls go through it (the dashboard pages are no API routes: plain fetch). */
  const api = createCatalogClient({ baseUrl: b.baseUrl, token: key });
  const get = async (path: string): Promise<{ ms: number; next: string | null; count: string; notices: string[] }> => {
    const t = performance.now();
    const res = await fetch(`${b.baseUrl}${path}`, { headers, redirect: 'manual' });
    const body = await res.text();
    const ms = since(t);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
    const next = /id="next-page"\s+href="([^"]+)"/.exec(body)?.[1]?.replace(/&amp;/g, '&') ?? null;
    const count = /id="grid-count"\s*>\s*([^<]+)</.exec(body)?.[1]?.trim() ?? '';
    const notices = [...body.matchAll(/data-index-state="([a-z]+)">([^<]*)</g)].map((m) => `${m[1]}: ${m[2].trim()}`);
    return { ms, next, count, notices };
  };
  const base = `/dashboard/catalogs/${catalog.id}/items`;
  const cases: Record<string, string> = {
    default: '',
    filter_eq: 'f.brand=eq:Acme',
    sort_price: 'sort=price',
    filter_sort: 'f.color=eq:Red&sort=price&dir=desc',
    search: 'q=olive+boot',
    category: 'category=boot',
    filter_no_match: 'f.brand=eq:Nobody',
    no_match_sort: 'f.brand=eq:Nobody&sort=price',
    range_sort: 'f.price=range:10..12&sort=stock',
  };
  // Each case once (the grid records the field indexes it would use), then the indexes built.
  const notices: Record<string, string[]> = {};
  for (const [name, qs] of Object.entries(cases)) {
    const first = await get(qs ? `${base}?${qs}` : base);
    if (first.notices.length) notices[name] = first.notices;
  }
  const tIndexes = performance.now();
  const built = await reconcileGridIndexes(b.knex, catalog.id);
  const indexesMs = since(tIndexes);
  // The search count index a production catalog gets from its first API word searches (a workflow
  // the bench app cannot start): built in-process when missing, with the workflow's own function.
  const tSearchIndex = performance.now();
  const hasSearchIndex = await b.knex('catalog_search_index').where('catalog_id', catalog.id).first('catalog_id');
  const searchIndex = hasSearchIndex ? null : await buildSearchIndex(b.knex, catalog.id);
  const searchIndexMs = searchIndex ? since(tSearchIndex) : 0;
  const gridIndexes = (await b.knex('catalog_field_indexes').where('catalog_id', catalog.id).orderBy('requested_at')) as Array<{
    field: string;
    kind: string;
    state: string;
    build_ms: number | null;
  }>;
  /** Every case measured: first pages and deep pages, p50 / p95 each, and p95 over all. */
  const measure = async (which: Record<string, string>, rounds: number, deepPages: number) => {
    const out: Record<string, unknown> = {};
    const allFirst: number[] = [];
    const allDeep: number[] = [];
    for (const [name, qs] of Object.entries(which)) {
      const path = qs ? `${base}?${qs}` : base;
      await get(path); // warm-up
      const first: number[] = [];
      let page = await get(path);
      for (let r = 0; r < rounds; r++) first.push((page = await get(path)).ms);
      const deep: number[] = [];
      let next = page.next;
      for (let d = 0; d < deepPages && next; d++) {
        const p = await get(next);
        deep.push(p.ms);
        next = p.next;
      }
      allFirst.push(...first);
      allDeep.push(...deep);
      out[name] = {
        count: page.count,
        first_p50_ms: percentile(first, 50),
        first_p95_ms: percentile(first, 95),
        deep_pages: deep.length,
        ...(deep.length ? { deep_p50_ms: percentile(deep, 50), deep_p95_ms: percentile(deep, 95) } : {}),
      };
    }
    return { p95_first_ms: percentile(allFirst, 95), p95_deep_ms: allDeep.length ? percentile(allDeep, 95) : null, ...out };
  };
  /** API word searches (`GET …/items?search=`): p95 over `rounds` rounds of a few terms. */
  const searchP95 = async (rounds: number) => {
    const ms: number[] = [];
    for (let r = 0; r < rounds; r++)
      for (const term of SEARCH_TERMS) {
        const t = performance.now();
        const { response } = await api.GET('/api/public/catalogs/{catalog_id}/items', {
          params: { path: { catalog_id: catalog.id }, query: { search: term, limit: 50 } },
        });
        if (response.status !== 200) throw new Error(`search ${term}: ${response.status}`);
        ms.push(since(t));
      }
    return { api_search_p50_ms: percentile(ms, 50), api_search_p95_ms: percentile(ms, 95) };
  };
  const loadStart = loadAvg();
  const quiet = await measure(cases, ROUNDS, DEEP);
  // BENCH_CHURN=1: "fast right after churn" (Qualities): a snapshot, 12 % of the items
  // changed, the restore (the restore activity's service), the word index caught up (what the
  // restore workflow does next), grid pages and searches measured; then the churn maintenance
  // pass the workflow starts (maintainSearchIndexes) and the same measured again.
  let churn: Record<string, unknown> | null = null;
  if (CHURN) {
    const scope: Scope = { organizationId, principal: { kind: 'api_key', id: 'bench', organizationIds: [organizationId] } };
    const t0 = performance.now();
    const snap = await api.POST('/api/public/catalogs/{catalog_id}/snapshots', {
      params: { path: { catalog_id: catalog.id } },
      body: { reason: 'bench churn' },
    });
    const snapshotId = snap.data?.id;
    if (snap.response.status !== 200 || !snapshotId) throw new Error(`snapshot: ${snap.response.status}`);
    const snapshotMs = since(t0);
    await b.knex.raw(
      'UPDATE catalog_items SET data = data || \'{"season": "XX"}\', current_version = current_version + 1 WHERE catalog_id = ? AND (data->>\'stock\')::int % 25 < 3',
      [catalog.id],
    );
    const t1 = performance.now();
    const restored = await restoreSnapshot(
      { knex: b.knex, caches: b.caches, jobRunner: { startSearchIndexBuild: async () => true } },
      scope,
      catalog.id,
      snapshotId,
    );
    const restoreMs = since(t1);
    const t2 = performance.now();
    await catchUpSearchWords(b.knex, catalog.id);
    const catchUpMs = since(t2);
    // The restore's caller starts searchIndexBuildWorkflow, whose activity catches the words up (above)
    // and rebuilds the search count index: done here in-process with the same function.
    const tBuild = performance.now();
    await buildSearchIndex(b.knex, catalog.id);
    const searchIndexBuildMs = since(tBuild);
    const warranted = await churnWarrantsMaintenance(b.knex, catalog.id, restored.items_restored);
    const afterRestore = { ...(await measure(cases, CHURN_ROUNDS, 3)), ...(await searchP95(CHURN_ROUNDS)), load: loadAvg() };
    const t3 = performance.now();
    const maintenance = warranted ? await maintainSearchIndexes(b.knex) : [];
    const maintenanceMs = since(t3);
    const afterMaintenance = { ...(await measure(cases, CHURN_ROUNDS, 3)), ...(await searchP95(CHURN_ROUNDS)), load: loadAvg() };
    churn = {
      snapshot_ms: Math.round(snapshotMs),
      restore_ms: Math.round(restoreMs),
      items_restored: restored.items_restored,
      words_catch_up_ms: Math.round(catchUpMs),
      search_index_build_ms: Math.round(searchIndexBuildMs),
      maintenance_warranted: warranted,
      maintenance_ms: Math.round(maintenanceMs),
      maintenance: maintenance.map((m) => `${m.index} ${m.action}${m.rebuild_ms !== undefined ? ` ${m.rebuild_ms} ms` : ''}`),
      after_restore: afterRestore,
      after_maintenance: afterMaintenance,
    };
  }
  const completeness: number[] = [];
  for (let r = 0; r < 2; r++) {
    const t = performance.now();
    const res = await fetch(`${b.baseUrl}/dashboard/catalogs/${catalog.id}/completeness`, { headers });
    await res.text();
    if (res.status !== 200) throw new Error(`completeness: ${res.status}`);
    completeness.push(since(t));
  }
  return {
    bench: 'console_grid',
    items: N,
    rounds: ROUNDS,
    deep: DEEP,
    seed_ms: Math.round(seedMs),
    index_notices: notices,
    grid_indexes: gridIndexes.map((r) => `${r.kind}:${r.field} ${r.state} ${r.build_ms ?? '?'} ms`),
    grid_indexes_built_now: built.built.length,
    grid_indexes_ms: Math.round(indexesMs),
    search_index_built_now_ms: Math.round(searchIndexMs),
    ...quiet,
    ...(await searchP95(ROUNDS)),
    ...(churn ? { churn } : {}),
    completeness_cold_ms: Math.round(completeness[0]),
    completeness_warm_ms: Math.round(completeness[1]),
    load_start: loadStart,
  };
}

if (require.main === module) runBench((b) => measureConsoleGrid(b));
