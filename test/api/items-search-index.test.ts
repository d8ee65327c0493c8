import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CatalogClient } from '@catalog-enrichment/client';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { newId } from '../../src/lib/ids';
import { createServiceCaches } from '../../src/services/service-caches';
import { clearSearchTotals } from '../../src/services/catalog/search/items-search-totals';
import { filterSql } from '../../src/services/catalog/items/items-sql';
import { buildSearchIndex, countWithSearchIndex, SEARCH_INDEX_MAX_PENDING, SEARCH_INDEX_MIN_ITEMS } from '../../src/services/catalog/search/search-count-index';
import { TemporalJobRunner } from '../../temporal/client';
import type { searchIndexBuildWorkflow } from '../../workflows';
import { CATALOG_ID, JOB_KIND, ORGANIZATION_ID, SEARCH_INDEX_JOB_KIND, searchIndexWorkflowId } from '../../src/contracts/workflows';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

/**
 * The search count index (migration 20261121190500, src/services/catalog/search/search-count-index.ts): totals
 * served from it must equal a direct SQL count of the same filter, through both of its paths
 * (postings of frequent words; GIN look-up of rare parts), after every kind of write since the
 * build (service writes, raw SQL, snapshot restore, a write in flight during a rebuild), and it
 * must step aside when too many items changed. Builds the API asks for run as
 * searchIndexBuildWorkflow on a real Temporal dev server and worker; with Temporal unreachable
 * searches still answer, counted through GIN. The API is called through the typed client
 * (packages/client).
 */

const TASK_QUEUE = 'test-search-index';
const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
/** Starts builds on the test server, with no cool-down and fast retries. */
let runner: TemporalJobRunner;
let server: Server;
let a: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client of `server` with `a`'s credential. */
let api: CatalogClient;
/** `{ params: { path: { catalog_id } } }` of a catalog route. */
const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });
/** `POST …/items/bulk` of catalog `c` with `items`. */
const bulk = (c: string, items: Array<Record<string, unknown>>) => api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { ...cat(c), body: { items } });
/** `GET …/items` of catalog `c` searching `term` (a page of `limit` when given), as `client`. */
const search = (c: string, term: string, limit?: number, client: CatalogClient = api) =>
  client.GET('/api/public/catalogs/{catalog_id}/items', {
    params: { path: { catalog_id: c }, query: { search: term, ...(limit === undefined ? {} : { limit }) } },
  });

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

/** The caches of every app of this file (search totals are cleared and counted through them). */
const caches = createServiceCaches();
const { searchCountStats } = caches.catalog;

const TERMS = [
  'wool',
  'woo',
  'w',
  'woolen',
  'red',
  'red wool',
  'red woo',
  'wool red',
  'red wool scarf',
  'RED Wool',
  'red red',
  'olive boot',
  'olive boots',
  'boot',
  'bo',
  'b',
  's',
  'sku',
  'sku s',
  'zeta40',
  'zeta',
  'red zeta',
  'green zeta80',
  'café',
  'caf',
  'red café',
  '1',
  '12',
  '5',
  'red 1',
  'scarf 1',
  'cotton 0',
  'nothing',
  'red nothing',
  'nothing red',
  'plain',
  'plain red hat',
];

async function apiTotal(c: string, term: string): Promise<number> {
  clearSearchTotals(caches.catalog);
  const res = await search(c, term, 3);
  expect(res.response.status).toBe(200);
  return res.data!.total!;
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
  const res = await bulk(
    c,
    Array.from({ length: n }, (_, i) => item(i)),
  );
  expect(res.data!.items_failed).toBe(0);
  return c;
}

beforeAll(async () => {
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: fakeEngine() });
  runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, {}, { min_interval_s: 0, retry_initial_interval_s: 0.2 });
  server = await listenTestApp(createApp({ config: loadConfig(), knex: testKnex(), jobRunner: runner, caches }));
  a = await createTestOrg('search count index');
  api = typedClient(server, a.auth);
});

afterAll(async () => {
  if (server) await closeServer(server);
  await worker?.stop();
  await env?.teardown();
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
    const snap = await api.POST('/api/public/catalogs/{catalog_id}/snapshots', { ...cat(c), body: {} });
    // Creates, updates (a frequent word removed, a rare one added) and deletes through the API.
    await bulk(c, [
      { sku: 'N-1', title: 'red wool scarf' },
      { sku: 'S-3', material: 'silk', note: 'zeta3 woolen' },
      { sku: 'S-4', title: 'blue boots 4' },
    ]);
    const itemPath = (item_id: string) => ({ params: { path: { catalog_id: c, item_id } } });
    const s6 = await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-6' }).first('id');
    await api.PUT('/api/public/catalogs/{catalog_id}/items/{item_id}', { ...itemPath(s6.id), body: { title: 'olive boot 6' } });
    const s9 = await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-9' }).first('id');
    await api.DELETE('/api/public/catalogs/{catalog_id}/items/{item_id}', itemPath(s9.id));
    // Writers outside the service.
    await testKnex()('catalog_items').insert({ id: newId(), catalog_id: c, business_key: 'R-1', data: JSON.stringify({ sku: 'R-1', title: 'Red Wool 1200' }) });
    await testKnex()('catalog_items')
      .where({ catalog_id: c, business_key: 'S-12' })
      .update({ data: JSON.stringify({ sku: 'S-12', title: 'green hat' }) });
    await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-15' }).delete();
    const pending = await testKnex()('catalog_search_delta').where('catalog_id', c).count({ n: '*' });
    expect(Number(pending[0].n)).toBeGreaterThan(0);
    expect((await expectExact(c)).gin).toBe(0);

    const restored = await api.POST('/api/public/catalogs/{catalog_id}/snapshots/{snapshot_id}/restore', {
      params: { path: { catalog_id: c, snapshot_id: snap.data!.id! } },
    });
    expect(restored.response.status).toBe(200);
    expect((await expectExact(c)).gin).toBe(0);
    // A rebuild takes the log in: nothing pending, same totals.
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    expect(await testKnex()('catalog_search_delta').where('catalog_id', c).count({ n: '*' })).toEqual([{ n: '0' }]);
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
    await testKnex()('catalogs')
      .where('id', c)
      .increment('search_logged', SEARCH_INDEX_MAX_PENDING + 1);
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
    expect(await testKnex()('catalog_search_delta').where('catalog_id', c).count({ n: '*' })).toEqual([{ n: '0' }]);
    // Not indexed: writes are no longer logged; a rebuild indexes it again.
    await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-4' }).delete();
    expect(await testKnex()('catalog_search_delta').where('catalog_id', c).count({ n: '*' })).toEqual([{ n: '0' }]);
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    expect((await expectExact(c)).gin).toBe(0);
  });

  it('agrees with SQL on random words-only terms before and after random writes', async () => {
    // Deterministic pseudo-random data: a Zipf-like vocabulary of words that are prefixes of
    // one another (a, ab, abc…), digits and non-ASCII letters.
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const vocab = ['a', 'ab', 'abc', 'abd', 'b', 'ba', 'bab', 'c', 'ca', 'é', 'ét', 'été', '1', '12', '123', '2', '21', 'x9', 'x90'];
    const word = () => vocab[Math.floor(vocab.length * rnd() ** 2)];
    const text = () => Array.from({ length: 1 + Math.floor(rnd() * 5) }, word).join(' ');
    const c = await createTestCatalog(a.organizationId);
    await bulk(
      c,
      Array.from({ length: 400 }, (_, i) => ({ sku: `Q${i}`, title: text() })),
    );
    await buildSearchIndex(testKnex(), c, { minDf: 40 });
    const terms = () =>
      Array.from({ length: 40 }, () => {
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
      if (r < 0.4) await bulk(c, [{ sku, title: text() }]);
      else if (r < 0.7)
        await testKnex()('catalog_items')
          .where({ catalog_id: c, business_key: sku })
          .update({ data: JSON.stringify({ sku, title: text() }) });
      else await testKnex()('catalog_items').where({ catalog_id: c, business_key: sku }).delete();
    }
    expect((await expectExact(c, terms())).gin).toBe(0);
  });

  it('is built by a Temporal workflow when a large catalog is searched without one', async () => {
    const c = await seeded(120);
    // The threshold is on the catalog's item count; pretend this one is large.
    await testKnex()('catalogs').where('id', c).update({ item_count: SEARCH_INDEX_MIN_ITEMS });
    expect(await apiTotal(c, 'wool')).toBe(await sqlTotal(c, 'wool')); // GIN count; the build is only asked for
    const handle = env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c));
    await waitUntil(() => handle.describe().catch(() => null), 'search index workflow started');
    const result = await handle.result();
    expect(result.built).toMatchObject({ catalog_id: c, items: 120, min_df: 500 });
    expect(result.cooldown_ms).toBe(9 * result.built!.build_ms); // no minimum interval here: 10 × build time since its start
    expect(await testKnex()('catalog_search_index').where('catalog_id', c).first('item_count')).toEqual({ item_count: 120 });

    // Operators find it in the Temporal UI by catalog, organization and kind.
    const description = await handle.describe();
    expect(description.workflowId).toBe(`search-index-${c}`);
    expect(description.type).toBe('searchIndexBuildWorkflow');
    expect(description.taskQueue).toBe(TASK_QUEUE);
    expect(description.typedSearchAttributes.get(CATALOG_ID)).toBe(c);
    expect(description.typedSearchAttributes.get(ORGANIZATION_ID)).toBe(a.organizationId);
    expect(description.typedSearchAttributes.get(JOB_KIND)).toBe(SEARCH_INDEX_JOB_KIND);
    expect(await description.staticSummary()).toBe(`Search count index of catalog ${c}`);

    // Built with the default threshold (≥ 500 items), so every word of this catalog is rare.
    const before = { ...searchCountStats };
    expect(await apiTotal(c, 'red wool')).toBe(await sqlTotal(c, 'red wool'));
    expect(searchCountStats).toEqual({ ...before, rare: before.rare + 1 });
  });

  it('starts one build per catalog at a time: a start while one is open is a no-op, a closed one can run again', async () => {
    const c = await seeded(120);
    const catalog = { id: c, organization_id: a.organizationId };
    // A 2 s minimum interval keeps the workflow open (building, then cooling down) for 2 s.
    const spaced = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, {}, { min_interval_s: 2 });
    expect(await spaced.startSearchIndexBuild(catalog)).toBe(true);
    const first = await env.client.workflow.getHandle(searchIndexWorkflowId(c)).describe();
    expect(await spaced.startSearchIndexBuild(catalog)).toBe(false);
    expect(await runner.startSearchIndexBuild(catalog)).toBe(false);
    // Still one run: the no-op starts added none.
    expect((await env.client.workflow.getHandle(searchIndexWorkflowId(c)).describe()).runId).toBe(first.runId);
    const firstResult = await env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c), first.runId).result();
    expect(firstResult.built).toMatchObject({ catalog_id: c, items: 120 });
    expect(firstResult.cooldown_ms).toBeGreaterThanOrEqual(2000 - firstResult.built!.build_ms);

    // Closed: a later start runs a new build (a rebuild of the same catalog).
    await testKnex()('catalog_items').insert({ id: newId(), catalog_id: c, business_key: 'T-1', data: JSON.stringify({ sku: 'T-1', title: 'red wool' }) });
    expect(await runner.startSearchIndexBuild(catalog)).toBe(true);
    const second = env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c));
    expect((await second.result()).built).toMatchObject({ catalog_id: c, items: 121 });
    expect((await second.describe()).runId).not.toBe(first.runId);
  });

  it("runs one build at a time per worker: another catalog's build is deferred and retried", async () => {
    const [c1, c2] = [await seeded(120), await seeded(60)];
    // Holding c1's catalog row keeps its build waiting (its first statement updates that row).
    const hold = await testKnex().transaction();
    try {
      await hold.raw('SELECT 1 FROM catalogs WHERE id = ? FOR UPDATE', [c1]);
      expect(await runner.startSearchIndexBuild({ id: c1, organization_id: a.organizationId })).toBe(true);
      const h1 = env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c1));
      await waitUntil(async () => (await h1.describe()).raw.pendingActivities?.[0]?.state === STARTED, 'first build running');
      expect(await runner.startSearchIndexBuild({ id: c2, organization_id: a.organizationId })).toBe(true);
      const h2 = env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c2));
      const deferred = await waitUntil(
        async () => (await h2.describe()).raw.pendingActivities?.[0]?.lastFailure?.applicationFailureInfo?.type,
        'second build deferred',
      );
      expect(deferred).toBe('SearchIndexBuildBusy');
    } finally {
      await hold.rollback();
    }
    expect((await env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c1)).result()).built).toMatchObject({
      catalog_id: c1,
      items: 120,
    });
    expect((await env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c2)).result()).built).toMatchObject({
      catalog_id: c2,
      items: 60,
    });
  });

  it('answers searches with exact GIN totals when Temporal is unreachable', async () => {
    // A client whose lazy connection dials a port nothing listens on (two gRPC attempts, not the
    // default ten, so the refused start settles quickly), recording every start it is asked for.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const connection = Connection.lazy({ address: `127.0.0.1:${port}`, interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 2 }))] });
    const starts: Array<Promise<boolean>> = [];
    const down = new (class extends TemporalJobRunner {
      override startSearchIndexBuild(catalog: { id: string; organization_id: string }): Promise<boolean> {
        const started = super.startSearchIndexBuild(catalog);
        starts.push(started);
        return started;
      }
    })(new Client({ connection }), { taskQueue: TASK_QUEUE, enrichConcurrency: 2 });
    const downServer = await listenTestApp(createApp({ config: loadConfig(), knex: testKnex(), jobRunner: down, caches }));
    const downApi = typedClient(downServer, a.auth);
    try {
      const c = await seeded(120);
      await testKnex()('catalogs').where('id', c).update({ item_count: SEARCH_INDEX_MIN_ITEMS });
      const before = { ...searchCountStats };
      for (const term of ['wool', 'red wool', 'zeta']) {
        clearSearchTotals(caches.catalog);
        const res = await search(c, term, 3, downApi);
        expect(res.response.status).toBe(200);
        expect(res.data!.total).toBe(await sqlTotal(c, term));
      }
      expect(searchCountStats).toEqual({ ...before, gin: before.gin + 3 });
      // One request for the three searches (the API asks once per catalog per 30 s); it failed
      // (logged as a warning) without failing any search.
      expect(starts).toHaveLength(1);
      await expect(starts[0]).rejects.toThrow();
      expect(await testKnex()('catalog_search_index').where('catalog_id', c).first()).toBeUndefined();
    } finally {
      await closeServer(downServer);
      await Promise.allSettled(starts);
      await connection.close();
    }
  });

  it('leaves product-grouped catalogs and terms with punctuation to the GIN count', async () => {
    const g = await createTestCatalog(a.organizationId, { product_id_field: 'product_id', product_enabled: true });
    await bulk(
      g,
      Array.from({ length: 60 }, (_, i) => ({ sku: `V${i}`, product_id: `P${i % 10}`, title: `red wool ${i}` })),
    );
    await buildSearchIndex(testKnex(), g, { minDf: MIN_DF });
    const before = { ...searchCountStats };
    const res = await search(g, 'wool');
    expect(res.data!.total).toBe(10);
    const c = await seeded(60);
    await buildSearchIndex(testKnex(), c, { minDf: MIN_DF });
    expect(await apiTotal(c, 's-1')).toBe(await sqlTotal(c, 's-1'));
    expect(searchCountStats.index + searchCountStats.rare).toBe(before.index + before.rare);
  });
});
