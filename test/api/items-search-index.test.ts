import request from 'supertest';
import type { Server } from 'node:http';
import { newId } from '../../src/lib/ids';
import { clearSearchTotals, filterSql, searchCountStats } from '../../src/services/catalog-items';
import { buildSearchIndex, countWithSearchIndex, scheduleSearchIndexBuild, SEARCH_INDEX_MAX_PENDING, SEARCH_INDEX_MIN_ITEMS, searchIndexStats } from '../../src/services/search-count-index';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

/**
 * The search count index (migration 20261121190500, src/services/search-count-index.ts): totals
 * served from it must equal a direct SQL count of the same filter, through both of its paths
 * (postings of frequent words; GIN look-up of rare parts), after every kind of write since the
 * build (service writes, raw SQL, snapshot restore, a write in flight during a rebuild), and it
 * must step aside when too many items changed.
 */

let server: Server;
let a: Awaited<ReturnType<typeof createTestOrg>>;
const url = (c: string, rest = '') => `/api/public/catalogs/${c}${rest}`;

/** Minimum item count of a frequent word in these small catalogs. */
const MIN_DF = 20;
const COLORS = ['red', 'blue', 'green', 'olive'];
const KINDS = ['scarf', 'boot', 'boots', 'hat', 'sock', 'shirt'];

/** Item i: frequent words (colors, kinds, wool), rare ones (woolen, zeta<i>, numbers), Unicode. */
function item(i: number): Record<string, unknown> {
  return {
    sku: `S-${i}`,
    title: `${COLORS[i % 4]} ${KINDS[i % 6]} ${i}`,
    material: i % 3 === 0 ? 'wool' : i % 50 === 1 ? 'woolen blend' : 'cotton',
    note: i % 40 === 0 ? `zeta${i} café` : 'plain',
    price: (i % 7) + 0.5,
  };
}

const TERMS = [
  'wool', 'woo', 'w', 'woolen', 'red', 'red wool', 'red woo', 'wool red', 'red wool scarf', 'RED Wool', 'red red', 'olive boot',
  'olive boots', 'boot', 'bo', 'b', 's', 'sku', 'sku s', 'zeta40', 'zeta', 'red zeta', 'green zeta80', 'café', 'caf', 'red café',
  '1', '12', '5', 'red 1', 'scarf 1', 'cotton 0', 'nothing', 'red nothing', 'nothing red', 'plain', 'plain red hat',
];

async function apiTotal(c: string, term: string): Promise<number> {
  clearSearchTotals();
  const res = await request(server).get(url(c, '/items')).query({ search: term, limit: 3 }).set(a.auth);
  expect(res.status).toBe(200);
  return res.body.total;
}

async function sqlTotal(c: string, term: string): Promise<number> {
  const where = filterSql(c, { search: term, top_level: false });
  return (await testKnex().raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${where.sql}`, where.bindings)).rows[0].n;
}

/** Every term's API total equals the SQL count; returns how many were counted by each path. */
async function expectExact(c: string, terms = TERMS): Promise<{ index: number; rare: number; gin: number }> {
  const before = { ...searchCountStats };
  for (const term of terms) expect([term, await apiTotal(c, term)]).toEqual([term, await sqlTotal(c, term)]);
  return { index: searchCountStats.index - before.index, rare: searchCountStats.rare - before.rare, gin: searchCountStats.gin - before.gin };
}

async function seeded(n = 300): Promise<string> {
  const c = await createTestCatalog(a.organizationId);
  const res = await request(server).post(url(c, '/items/bulk')).set(a.auth).send({ items: Array.from({ length: n }, (_, i) => item(i)) });
  expect(res.body.items_failed).toBe(0);
  return c;
}

beforeAll(async () => {
  server = testApp().listen(0);
  a = await createTestOrg('search count index');
});

afterAll(async () => {
  server.close();
  await closeTestKnex();
});

describe('search count index', () => {
  it('counts every term exactly, through postings for frequent words and GIN for rare parts', async () => {
    const c = await seeded();
    // Without an index every total is a GIN count.
    expect(await expectExact(c)).toMatchObject({ index: 0, rare: 0 });
    const built = await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    expect(built).toMatchObject({ catalog_id: c, items: 300, min_df: MIN_DF });
    const tokens = (await testKnex()('catalog_search_tokens').where('catalog_id', c).pluck('token')) as string[];
    expect(tokens).toEqual(expect.arrayContaining(['w:wool', 'w:red', 'p:wool', 'p:w', 'p:1']));
    expect(tokens).not.toContain('w:woolen');
    const paths = await expectExact(c);
    expect(paths.gin).toBe(0);
    expect(paths.index).toBeGreaterThan(15);
    expect(paths.rare).toBeGreaterThan(5);
  });

  it('stays exact after service writes, raw SQL writes and a snapshot restore', async () => {
    const c = await seeded();
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    const snap = await request(server).post(url(c, '/snapshots')).set(a.auth).send({});
    // Creates, updates (a frequent word removed, a rare one added) and deletes through the API.
    await request(server).post(url(c, '/items/bulk')).set(a.auth)
      .send({ items: [{ sku: 'N-1', title: 'red wool scarf' }, { sku: 'S-3', material: 'silk', note: 'zeta3 woolen' }, { sku: 'S-4', title: 'blue boots 4' }] });
    const s6 = await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-6' }).first('id');
    await request(server).put(url(c, `/items/${s6.id}`)).set(a.auth).send({ title: 'olive boot 6' });
    const s9 = await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-9' }).first('id');
    await request(server).delete(url(c, `/items/${s9.id}`)).set(a.auth);
    // Writers outside the service.
    await testKnex()('catalog_items').insert({ id: newId(), catalog_id: c, business_key: 'R-1', data: JSON.stringify({ sku: 'R-1', title: 'Red Wool 1200' }) });
    await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-12' }).update({ data: JSON.stringify({ sku: 'S-12', title: 'green hat' }) });
    await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-15' }).delete();
    const pending = await testKnex()('catalog_search_changes').where('catalog_id', c).count({ n: '*' });
    expect(Number(pending[0].n)).toBeGreaterThan(0);
    expect((await expectExact(c)).gin).toBe(0);

    const restored = await request(server).post(url(c, `/snapshots/${snap.body.id}/restore`)).set(a.auth);
    expect(restored.status).toBe(200);
    expect((await expectExact(c)).gin).toBe(0);
    // A rebuild takes the log in: nothing pending, same totals.
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    expect(await testKnex()('catalog_search_changes').where('catalog_id', c).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect((await expectExact(c)).gin).toBe(0);
  });

  it('logs a write that commits after a rebuild took its snapshot', async () => {
    const c = await seeded(120);
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    const trx = await testKnex().transaction();
    try {
      await trx('catalog_items').insert({ id: newId(), catalog_id: c, business_key: 'T-1', data: JSON.stringify({ sku: 'T-1', title: 'red wool' }) });
      // The rebuild's snapshot cannot see the uncommitted row; the row's log entry can't be
      // deleted as part of that snapshot either.
      await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
      await trx.commit();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
    expect(await apiTotal(c, 'red wool')).toBe(await sqlTotal(c, 'red wool'));
    expect(await apiTotal(c, 'wool')).toBe(await sqlTotal(c, 'wool'));
  });

  it('steps aside when too many items changed, and drops its log past the cap', async () => {
    const c = await seeded(120);
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    await testKnex()('catalogs').where('id', c).increment('search_logged', SEARCH_INDEX_MAX_PENDING + 1);
    const trx = await testKnex().transaction({ isolationLevel: 'repeatable read' });
    try {
      expect(await countWithSearchIndex(trx, c, 'wool')).toEqual({ fallback: 'stale' });
    } finally {
      await trx.rollback();
    }
    expect(await expectExact(c, ['wool', 'red wool'])).toMatchObject({ index: 0, rare: 0, gin: 2 });

    await testKnex()('catalogs').where('id', c).increment('search_logged', 1000000);
    await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-3' }).delete();
    expect(await testKnex()('catalogs').where('id', c).first('search_indexed')).toEqual({ search_indexed: false });
    expect(await testKnex()('catalog_search_changes').where('catalog_id', c).count({ n: '*' })).toEqual([{ n: '0' }]);
    // Not indexed: writes are no longer logged; a rebuild indexes it again.
    await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-4' }).delete();
    expect(await testKnex()('catalog_search_changes').where('catalog_id', c).count({ n: '*' })).toEqual([{ n: '0' }]);
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    expect((await expectExact(c)).gin).toBe(0);
  });

  it('agrees with SQL on random words-only terms before and after random writes', async () => {
    // Deterministic pseudo-random data: a Zipf-like vocabulary of words that are prefixes of
    // one another (a, ab, abc…), digits and non-ASCII letters.
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const vocab = ['a', 'ab', 'abc', 'abd', 'b', 'ba', 'bab', 'c', 'ca', 'é', 'ét', 'été', '1', '12', '123', '2', '21', 'x9', 'x90'];
    const word = () => vocab[Math.floor(vocab.length * rnd() ** 2)];
    const text = () => Array.from({ length: 1 + Math.floor(rnd() * 5) }, word).join(' ');
    const c = await createTestCatalog(a.organizationId);
    await request(server).post(url(c, '/items/bulk')).set(a.auth).send({ items: Array.from({ length: 400 }, (_, i) => ({ sku: `Q${i}`, title: text() })) });
    await buildSearchIndex(testKnex(), c, { minDf: 40 });
    const terms = () => Array.from({ length: 40 }, () => {
      const n = 1 + Math.floor(rnd() * 3);
      const ws = Array.from({ length: n }, word);
      const last = ws[n - 1];
      ws[n - 1] = last.slice(0, 1 + Math.floor(rnd() * last.length));
      return ws.join(' ');
    });
    const first = await expectExact(c, terms());
    expect(first.gin).toBe(0);
    expect(first.index).toBeGreaterThan(10);
    expect(first.rare).toBeGreaterThan(0);
    for (let k = 0; k < 30; k++) {
      const sku = `Q${Math.floor(rnd() * 450)}`;
      const r = rnd();
      if (r < 0.4) await request(server).post(url(c, '/items/bulk')).set(a.auth).send({ items: [{ sku, title: text() }] });
      else if (r < 0.7) await testKnex()('catalog_items').where({ catalog_id: c, business_key: sku }).update({ data: JSON.stringify({ sku, title: text() }) });
      else await testKnex()('catalog_items').where({ catalog_id: c, business_key: sku }).delete();
    }
    expect((await expectExact(c, terms())).gin).toBe(0);
  });

  it('is built in the background when a large catalog is searched without one', async () => {
    const c = await seeded(120);
    // The threshold is on the catalog's item count; pretend this one is large.
    await testKnex()('catalogs').where('id', c).update({ item_count: SEARCH_INDEX_MIN_ITEMS });
    const built = searchIndexStats.built;
    expect(await apiTotal(c, 'wool')).toBe(await sqlTotal(c, 'wool'));
    expect(scheduleSearchIndexBuild(testKnex(), c)).toBe(false); // already building (or just built)
    for (let i = 0; i < 100 && searchIndexStats.built === built; i++) await new Promise((r) => setTimeout(r, 100));
    expect(searchIndexStats.built).toBe(built + 1);
    expect(await testKnex()('catalog_search_index').where('catalog_id', c).first('item_count')).toEqual({ item_count: 120 });
    // Built with the default threshold (≥ 500 items), so every word of this catalog is rare.
    const before = { ...searchCountStats };
    expect(await apiTotal(c, 'red wool')).toBe(await sqlTotal(c, 'red wool'));
    expect(searchCountStats).toEqual({ ...before, rare: before.rare + 1 });
  });

  it('leaves product-grouped catalogs and terms with punctuation to the GIN count', async () => {
    const g = await createTestCatalog(a.organizationId, { product_id_field: 'product_id', product_enabled: true });
    await request(server).post(url(g, '/items/bulk')).set(a.auth).send({ items: Array.from({ length: 60 }, (_, i) => ({ sku: `V${i}`, product_id: `P${i % 10}`, title: `red wool ${i}` })) });
    await buildSearchIndex(testKnex(), g, { minDf: MIN_DF });
    const before = { ...searchCountStats };
    const res = await request(server).get(url(g, '/items')).query({ search: 'wool' }).set(a.auth);
    expect(res.body.total).toBe(10);
    const c = await seeded(60);
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    expect(await apiTotal(c, 's-1')).toBe(await sqlTotal(c, 's-1'));
    expect(searchCountStats.index + searchCountStats.rare).toBe(before.index + before.rare);
  });
});
