import type { Server } from 'node:http';
import type { CatalogClient } from '@catalog-enrichment/client';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createServiceCaches } from '../../src/services/service-caches';
import { clearSearchTotals } from '../../src/services/catalog/search/items-search-totals';
import { filterSql } from '../../src/services/catalog/items/items-sql';
import { buildSearchIndex, countWithSearchIndex } from '../../src/services/catalog/search/search-count-index';
import { foldSearchDelta } from '../../src/services/catalog/search/search-count-fold';
import { catchUpSearchWords, pendingWordMatches } from '../../src/services/catalog/search/search-words';
import { restoreSnapshot } from '../../src/services/catalog/snapshots/snapshots';
import { gridPage, loadGridCatalog } from '../../src/services/catalog/grid/item-grid';
import { parseGridQuery } from '../../src/services/catalog/grid/item-grid-query';
import { noJobs } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { scopeOf } from '../helpers/review-apply';

/**
 * Searches while the word index is behind a large restore, through the search count index's
 * delta (migration 20261207090000; src/services/catalog/search/search-words.ts
 * `pendingWordMatches`; docs/large-catalogs.md "Searches while the word index catches up"): the
 * window's start is recorded, the items whose pending words may match are read from the delta,
 * every answer (items API and console grid) equals the one from reading every row, frequent-word totals come from the index's
 * postings, and after a fold or a rebuild (the delta no longer covers the window) searches read
 * every row again. The restore threshold is lowered to 1 item so a small catalog defers.
 */

let server: Server;
let api: CatalogClient;
let a: Awaited<ReturnType<typeof createTestOrg>>;
const caches = createServiceCaches();
const knex = () => testKnex();

beforeAll(async () => {
  server = await listenTestApp(createApp({ config: loadConfig(), knex: testKnex(), jobRunner: noJobs, searchWordsDeferMinItems: 1, caches }));
  a = await createTestOrg('search words pending delta');
  api = typedClient(server, a.auth);
});

afterAll(async () => {
  if (server) await closeServer(server);
  await closeTestKnex();
});

const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });
const N = 40;
/** Item i: silk for even i, cotton for odd; "scarf" for all; i < 10 also "rare". */
const item = (i: number, material = i % 2 === 0 ? 'silk' : 'cotton') => ({ sku: `S-${i}`, title: `${material} scarf ${i}${i < 10 ? ' rare' : ''}` });

/**
 * A catalog of {@link N} items with a search count index (frequent words: silk, cotton, scarf),
 * snapshotted, then rewritten (even items silk → wool, items 0-4 lose "rare", item 30 gains it)
 * and restored with the word index left behind.
 */
async function pendingCatalog(): Promise<string> {
  const c = await createTestCatalog(a.organizationId);
  const items = Array.from({ length: N }, (_, i) => item(i));
  expect((await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { ...cat(c), body: { items } })).data!.items_failed).toBe(0);
  expect(await buildSearchIndex(knex(), c, { minDf: 15 })).not.toBeNull();
  const snap = await api.POST('/api/public/catalogs/{catalog_id}/snapshots', { ...cat(c), body: {} });
  const changed = items.map((x, i) => {
    let title = i % 2 === 0 ? x.title.replace('silk', 'wool') : x.title;
    if (i < 5) title = title.replace(' rare', '');
    if (i === 30) title += ' rare';
    return { ...x, title };
  });
  await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { ...cat(c), body: { items: changed } });
  // The restore's word index is left behind: the indexed vectors are the rewritten ones, the restored ones pending.
  await restoreSnapshot({ knex: knex(), caches, jobRunner: noJobs, searchWordsDeferMinItems: 1 }, scopeOf(a.organizationId), c, snap.data!.id!);
  return c;
}

/** The API's answer for `term` (total and SKUs, cold: no cached total). */
async function apiSearch(c: string, term: string): Promise<{ total: number; skus: string[] }> {
  clearSearchTotals(caches.catalog);
  const res = await api.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: c }, query: { search: term, limit: 100 } } });
  expect(res.response.status).toBe(200);
  return { total: res.data!.total!, skus: res.data!.items!.map((i) => String(i.data!.sku)).sort() };
}

/** The answer from every row's current vector (the form that reads the whole catalog). */
async function everyRow(c: string, term: string): Promise<{ total: number; skus: string[] }> {
  const w = filterSql(c, { search: term, words_pending: true });
  const { rows } = await knex().raw(`SELECT data->>'sku' AS sku FROM catalog_items WHERE ${w.sql}`, w.bindings);
  return { total: rows.length, skus: rows.map((r: { sku: string }) => r.sku).sort() };
}

/** The console grid's first two pages (7 rows each, newest first) and count of every term equal the every-row answer. */
async function expectGridAsEveryRow(c: string): Promise<void> {
  const grid = await loadGridCatalog({ knex: knex(), caches }, scopeOf(a.organizationId), c);
  const options = { searchTotals: { caches: caches.catalog, jobRunner: noJobs } };
  for (const term of TERMS) {
    const q = parseGridQuery({ q: term }, grid.types);
    const first = await gridPage(knex(), grid, q, undefined, 7, options);
    const next = first.next_cursor ? await gridPage(knex(), grid, { ...q, cursor: first.next_cursor }, undefined, 7, options) : null;
    const w = filterSql(c, { search: term, words_pending: true });
    const { rows } = await knex().raw(`SELECT data->>'sku' AS sku FROM catalog_items WHERE ${w.sql} ORDER BY created_at DESC, id DESC LIMIT 14`, w.bindings);
    expect({ term, count: first.count, skus: [...first.rows, ...(next?.rows ?? [])].map((r) => String(r.data.sku)) }).toEqual({
      term,
      count: (await everyRow(c, term)).total,
      skus: rows.map((r: { sku: string }) => r.sku),
    });
  }
}

const TERMS = ['silk', 'wool', 'cotton', 'scarf', 'rare', 'silk rare', 'wool scarf', 'sil', 'scarf 3', 's-2', 'silk scarf 12', 'nothing'];

describe('searches while the word index is behind (docs/large-catalogs.md)', () => {
  it('records the window and finds the items whose pending words may match in the delta', async () => {
    const c = await pendingCatalog();
    const st = await knex()('catalogs').where('id', c).first('search_words_pending', 'search_words_pending_from');
    const index = await knex()('catalog_search_index').where('catalog_id', c).first('logged');
    expect(st).toEqual({ search_words_pending: true, search_words_pending_from: index.logged });
    const matches = await knex().transaction((trx) => pendingWordMatches(trx, c, 'silk'), { isolationLevel: 'repeatable read' });
    const ids = await knex()('catalog_items')
      .where('catalog_id', c)
      .whereIn(
        'business_key',
        Array.from({ length: N / 2 }, (_, k) => `S-${2 * k}`),
      )
      .pluck('id');
    // The even items went silk → wool → silk: their changes touch "silk"; no odd item's does.
    expect([...(matches ?? [])].sort()).toEqual([...ids].sort());
  });

  it('answers every term as reading every row does, with index totals for frequent words', async () => {
    const c = await pendingCatalog();
    // The indexed vectors are stale: matching them alone would be wrong (shows the test is real).
    const stale = filterSql(c, { search: 'wool' });
    expect((await knex().raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${stale.sql}`, stale.bindings)).rows[0].n).toBe(N / 2);
    for (const term of TERMS) expect({ term, ...(await apiSearch(c, term)) }).toEqual({ term, ...(await everyRow(c, term)) });
    expect(await apiSearch(c, 'silk')).toEqual({ total: N / 2, skus: Array.from({ length: N / 2 }, (_, k) => `S-${2 * k}`).sort() });
    // Small pages of common terms walk the catalog in order (items-read.ts searchPage): the same rows.
    for (const term of ['silk', 'scarf', 'cotton scarf']) {
      const w = filterSql(c, { search: term, words_pending: true });
      const { rows } = await knex().raw(`SELECT data->>'sku' AS sku FROM catalog_items WHERE ${w.sql} ORDER BY created_at, id LIMIT 3 OFFSET 2`, w.bindings);
      const page = await api.GET('/api/public/catalogs/{catalog_id}/items', {
        params: { path: { catalog_id: c }, query: { search: term, limit: 3, offset: 2 } },
      });
      expect({ term, skus: page.data!.items!.map((i) => String(i.data!.sku)) }).toEqual({ term, skus: rows.map((r: { sku: string }) => r.sku) });
    }
    expect((await apiSearch(c, 'wool')).total).toBe(0);
    // Frequent words are counted from the postings and the delta (current vectors); rare parts
    // from the word index's candidates plus the items the delta names (0, 2, 4: "rare" and
    // "silk" restored, neither indexed).
    const count = (term: string) => knex().transaction((trx) => countWithSearchIndex(trx, c, term), { isolationLevel: 'repeatable read' });
    expect(await count('silk scarf')).toMatchObject({ total: N / 2, path: 'index' });
    expect(await count('rare')).toMatchObject({ total: 10, path: 'rare' });
    expect(await count('rare silk')).toMatchObject({ total: 5, path: 'rare' });
  });

  it('answers console grid searches as reading every row does: candidates and delta items for rare terms, a forced walk for common ones', async () => {
    const c = await pendingCatalog();
    const grid = await loadGridCatalog({ knex: knex(), caches }, scopeOf(a.organizationId), c);
    expect(grid.catalog.search_words_pending).toBe(true);
    const options = { searchTotals: { caches: caches.catalog, jobRunner: noJobs } };
    await expectGridAsEveryRow(c);
    const statements: string[] = [];
    const seen = (q: { sql: string }) => statements.push(q.sql);
    knex().on('query', seen);
    try {
      // How the rows were read: 'rare' (10 matches of 40) through the word index's candidates plus
      // the items the delta names; 'scarf' (all 40) by the walk of the grid's order.
      await gridPage(knex(), grid, parseGridQuery({ q: 'rare' }, grid.types), undefined, 7, options);
      expect(statements.some((s) => s.includes('OR id = ANY('))).toBe(true);
      expect(statements.some((s) => s.includes('enable_bitmapscan = off'))).toBe(false);
      statements.length = 0;
      await gridPage(knex(), grid, parseGridQuery({ q: 'scarf' }, grid.types), undefined, 7, options);
      expect(statements.some((s) => s.includes('enable_bitmapscan = off'))).toBe(true);
    } finally {
      knex().off('query', seen);
    }
  });

  it('reads every row again once a fold or a rebuild consumed the window', async () => {
    const c = await pendingCatalog();
    expect(await foldSearchDelta(knex(), c)).not.toBeNull();
    expect(await knex().transaction((trx) => pendingWordMatches(trx, c, 'silk'), { isolationLevel: 'repeatable read' })).toBeNull();
    expect(await knex().transaction((trx) => countWithSearchIndex(trx, c, 'rare'), { isolationLevel: 'repeatable read' })).toEqual({
      fallback: 'words_pending',
    });
    for (const term of TERMS) expect({ term, ...(await apiSearch(c, term)) }).toEqual({ term, ...(await everyRow(c, term)) });
    expect((await apiSearch(c, 'silk')).total).toBe(N / 2);
    // The grid too (its snapshot's flag set, no delta items: every row's current vector).
    await expectGridAsEveryRow(c);

    const d = await pendingCatalog();
    expect(await buildSearchIndex(knex(), d, { minDf: 15 })).not.toBeNull();
    expect(await knex().transaction((trx) => pendingWordMatches(trx, d, 'silk'), { isolationLevel: 'repeatable read' })).toBeNull();
    expect((await apiSearch(d, 'silk')).total).toBe(N / 2);
  });

  it('does not rely on the delta once the index was turned off and on again during the window', async () => {
    const c = await pendingCatalog();
    // What the log's overflow does (migration 20261205090000): the index off, its delta dropped.
    await knex()('catalogs').where('id', c).update({ search_indexed: false });
    await knex()('catalog_search_delta').where('catalog_id', c).delete();
    // A build turns the index on, then finds another build holding the catalog's build lock and
    // stops there: the index is on with its old log position, and the delta is gone.
    const holder = await knex().transaction();
    try {
      await holder.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`catalog-search-index:${c}`]);
      expect(await buildSearchIndex(knex(), c, { minDf: 15 })).toBeNull();
    } finally {
      await holder.rollback();
    }
    expect(await knex().transaction((trx) => pendingWordMatches(trx, c, 'silk'), { isolationLevel: 'repeatable read' })).toBeNull();
    expect((await apiSearch(c, 'silk')).total).toBe(N / 2);
  });

  it('clears the window with the catch-up, and records none for a catalog without an index', async () => {
    const c = await pendingCatalog();
    await catchUpSearchWords(knex(), c);
    expect(await knex()('catalogs').where('id', c).first('search_words_pending', 'search_words_pending_from')).toEqual({
      search_words_pending: false,
      search_words_pending_from: null,
    });
    for (const term of TERMS) expect({ term, ...(await apiSearch(c, term)) }).toEqual({ term, ...(await everyRow(c, term)) });

    const plain = await createTestCatalog(a.organizationId);
    await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { ...cat(plain), body: { items: [item(0)] } });
    const snap = await api.POST('/api/public/catalogs/{catalog_id}/snapshots', { ...cat(plain), body: {} });
    await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { ...cat(plain), body: { items: [item(0, 'wool')] } });
    await restoreSnapshot({ knex: knex(), caches, jobRunner: noJobs, searchWordsDeferMinItems: 1 }, scopeOf(a.organizationId), plain, snap.data!.id!);
    expect(await knex()('catalogs').where('id', plain).first('search_words_pending', 'search_words_pending_from')).toEqual({
      search_words_pending: true,
      search_words_pending_from: null,
    });
    expect(await apiSearch(plain, 'silk')).toEqual({ total: 1, skus: ['S-0'] });
  });
});
