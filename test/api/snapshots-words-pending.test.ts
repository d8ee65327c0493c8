import type { Server } from 'node:http';
import type { CatalogClient } from '@catalog-enrichment/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createServiceCaches } from '../../src/services/service-caches';
import { clearSearchTotals } from '../../src/services/catalog/search/items-search-totals';
import { filterSql } from '../../src/services/catalog/items/items-sql';
import type { JobRunner } from '../../src/services/job-runner';
import { countWithSearchIndex } from '../../src/services/catalog/search/search-count-index';
import { catchUpSearchWords } from '../../src/services/catalog/search/search-words';
import { restoreSnapshot } from '../../src/services/catalog/snapshots/snapshots';
import { TemporalJobRunner } from '../../temporal/client';
import type { searchIndexBuildWorkflow } from '../../workflows';
import { searchIndexWorkflowId } from '../../src/contracts/workflows';
import { noJobs } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { scopeOf } from '../helpers/review-apply';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import type { VariantEntry } from '../helpers/wire';

/**
 * Restores that leave the word index behind (migration 20261121210000,
 * src/services/catalog/search/search-words.ts): the restored rows keep their indexed `search_tsv`, carry their
 * restored vector in `search_tsv_pending`, and the catalog is flagged. Every search (list,
 * grouped list, raw-items, totals) must stay exact meanwhile; any write of a pending row settles
 * it; snapshots and duplicates store current vectors; the catch-up (run by
 * searchIndexBuildWorkflow on a real Temporal server, also when the restore finds it open and
 * cooling down) empties the pending vectors and clears the flag. The threshold is lowered to 1 item so small catalogs defer too.
 * The API is called through the typed client (packages/client).
 */

const TASK_QUEUE = 'test-search-words';
let server: Server;
let a: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client of `server` with `a`'s credential. */
let api: CatalogClient;
/** `{ params: { path: { catalog_id } } }` of a catalog route. */
const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });
/** `POST …/items/bulk` of catalog `c` with `items`, as `client` (default: {@link api}). */
const bulk = (c: string, items: Array<Record<string, unknown>>, client: CatalogClient = api) =>
  client.POST('/api/public/catalogs/{catalog_id}/items/bulk', { ...cat(c), body: { items } });
/** `POST …/snapshots` of catalog `c` (a manual snapshot), as `client`; resolves to the snapshot's id. */
async function snapshot(c: string, client: CatalogClient = api): Promise<string> {
  const res = await client.POST('/api/public/catalogs/{catalog_id}/snapshots', { ...cat(c), body: {} });
  return res.data!.id!;
}
/** `GET …/items` of catalog `c` searching `term`, as `client`. */
const listItems = (c: string, term: string, client: CatalogClient = api) =>
  client.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: c }, query: { search: term } } });
/** Catalogs the API asked searchIndexBuildWorkflow for (the recording runner below). */
const requested: string[] = [];

const recording: JobRunner = {
  ...noJobs,
  async startSearchIndexBuild(catalog) {
    requested.push(catalog.id);
    return true;
  },
};

/** The caches of every app of this file (search totals are cleared through them). */
const caches = createServiceCaches();

beforeAll(async () => {
  server = await listenTestApp(createApp({ config: loadConfig(), knex: testKnex(), jobRunner: recording, searchWordsDeferMinItems: 1, caches }));
  a = await createTestOrg('search words pending');
  api = typedClient(server, a.auth);
});

afterAll(async () => {
  if (server) await closeServer(server);
  await closeTestKnex();
});

const SILK = Array.from({ length: 12 }, (_, i) => ({ sku: `S-${i}`, title: `silk scarf ${i}`, color: i % 2 === 0 ? 'red' : 'blue', active: true }));

/**
 * Restores through the restore service (src/services/catalog/snapshots/snapshots.ts `restoreSnapshot`), whose
 * word-index deferral and catch-up request this file tests. The API's route runs restores as the
 * workflow snapshot-restore-<id>, whose own catch-up test/workflows/snapshot-restore.test.ts covers.
 * `deferMin`: snapshot items from which the word index is left behind (null: the default).
 */
async function serviceRestore(c: string, snapshotId: string, jobRunner: JobRunner = recording, deferMin: number | null = 1): Promise<void> {
  const deps = { knex: testKnex(), caches, jobRunner, ...(deferMin === null ? {} : { searchWordsDeferMinItems: deferMin }) };
  const result = await restoreSnapshot(deps, scopeOf(a.organizationId), c, snapshotId);
  expect(result.snapshot_id).toBe(snapshotId);
}

/** A catalog restored to its silk scarves after they all became wool (and one was deleted, one added). */
async function restoredCatalog(): Promise<{ c: string; snapshotId: string }> {
  const c = await createTestCatalog(a.organizationId);
  expect((await bulk(c, SILK)).data!.items_failed).toBe(0);
  const snapshotId = await snapshot(c);
  await bulk(
    c,
    SILK.map((s) => ({ ...s, title: s.title.replace('silk', 'wool') })),
  );
  await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-11' }).delete();
  await bulk(c, [{ sku: 'N-1', title: 'wool hat' }]);
  await serviceRestore(c, snapshotId);
  return { c, snapshotId };
}

/** A row's search columns: its text, the indexed and pending vectors, and the vector its text gives now. */
interface WordRow {
  business_key: string;
  search_text: string;
  tsv: string;
  pending: string | null;
  computed: string;
}

const rowsOf = (c: string): Promise<WordRow[]> =>
  testKnex()('catalog_items')
    .where('catalog_id', c)
    .orderBy('business_key')
    .select(
      'business_key',
      'search_text',
      testKnex().raw('search_tsv::text AS tsv'),
      testKnex().raw('search_tsv_pending::text AS pending'),
      testKnex().raw('catalog_item_search_tsv(search_text)::text AS computed'),
    );

/** A search of catalog `c` for `term` through the items list (`/items`) or the raw items (`/raw-items`): its total and SKUs. */
async function apiSearch(c: string, term: string, path: '/items' | '/raw-items' = '/items'): Promise<{ total: number; skus: string[] }> {
  clearSearchTotals(caches.catalog);
  const params = { path: { catalog_id: c }, query: { search: term, limit: 100 } };
  const res =
    path === '/items'
      ? await api.GET('/api/public/catalogs/{catalog_id}/items', { params })
      : await api.GET('/api/public/catalogs/{catalog_id}/raw-items', { params });
  expect(res.response.status).toBe(200);
  return {
    total: res.data!.total!,
    skus: res.data!.items!.map((i) => String(i.data!.sku)).sort(),
  };
}

describe('restore with the word index left behind', () => {
  it('flags the catalog, keeps the indexed vectors, and asks for the catch-up', async () => {
    requested.length = 0;
    const { c } = await restoredCatalog();
    expect((await testKnex()('catalogs').where('id', c).first('search_words_pending')).search_words_pending).toBe(true);
    expect(requested).toEqual([c]);
    const rows = await rowsOf(c);
    expect(rows.map((r) => r.business_key)).toEqual(SILK.map((s) => s.sku).sort());
    for (const r of rows) {
      expect(r.search_text).toContain('silk');
      if (r.business_key === 'S-11') {
        // Deleted and inserted back: a new row, indexed as usual.
        expect([r.tsv, r.pending]).toEqual([r.computed, null]);
      } else {
        // Updated in place: the index still holds the wool words, the restored ones are pending.
        expect(r.tsv).toContain("'wool'");
        expect(r.pending).toBe(r.computed);
      }
    }
  });

  it('answers every kind of search exactly from the current vectors meanwhile', async () => {
    const { c } = await restoredCatalog();
    const all = SILK.map((s) => s.sku).sort();
    expect(await apiSearch(c, 'silk')).toEqual({ total: 12, skus: all });
    expect(await apiSearch(c, 'wool')).toEqual({ total: 0, skus: [] });
    expect(await apiSearch(c, 'silk red')).toEqual({
      total: 6,
      skus: SILK.filter((s) => s.color === 'red')
        .map((s) => s.sku)
        .sort(),
    });
    expect(await apiSearch(c, 'wo')).toEqual({ total: 0, skus: [] });
    expect(await apiSearch(c, 's-3')).toEqual({ total: 1, skus: ['S-3'] }); // words plus literal match
    expect(await apiSearch(c, 'silk', '/raw-items')).toEqual({ total: 12, skus: all });
    expect(await apiSearch(c, 'wool', '/raw-items')).toEqual({ total: 0, skus: [] });
    // No search count index here (12 items): totals are counted from the rows' current vectors
    // (with an index, test/api/search-words-pending-delta.test.ts).
    const counted = await testKnex().transaction((trx) => countWithSearchIndex(trx, c, 'silk'), { isolationLevel: 'repeatable read' });
    expect(counted).toEqual({ fallback: 'missing' });
    // What the plain word-index condition would answer: the stale index (shows the test is real).
    const plain = filterSql(c, { search: 'wool' });
    expect((await testKnex().raw(`SELECT count(*)::int AS n FROM catalog_items WHERE ${plain.sql}`, plain.bindings)).rows[0].n).toBe(11);
  });

  it('matches products through their variants in the grouped view', async () => {
    const c = await createTestCatalog(a.organizationId, { product_id_field: 'pid' });
    const variants = [
      { sku: 'V-1', pid: 'P1', title: 'silk tie' },
      { sku: 'V-2', pid: 'P2', title: 'cotton tie' },
    ];
    expect((await bulk(c, variants)).data!.items_failed).toBe(0);
    const snapshotId = await snapshot(c);
    await bulk(
      c,
      variants.map((v) => ({ ...v, title: v.title.replace(/silk|cotton/, 'linen') })),
    );
    await serviceRestore(c, snapshotId);
    expect((await testKnex()('catalogs').where('id', c).first('search_words_pending')).search_words_pending).toBe(true);
    const res = await listItems(c, 'silk');
    expect(res.data!.total).toBe(1);
    expect((res.data!.items![0].data.variants as VariantEntry[]).map((v) => v.sku)).toEqual(['V-1']);
    expect((await listItems(c, 'linen')).data!.total).toBe(0);
    // A later write finds the restored product by its business id (not a second product).
    await bulk(c, [{ sku: 'V-3', pid: 'P1', title: 'silk bow' }]);
    expect(await testKnex()('catalog_items').where({ catalog_id: c, entity_type: 'product' }).count({ n: '*' })).toEqual([{ n: '2' }]);
  });

  it('settles a pending row on any other write, whichever columns it changes', async () => {
    const { c } = await restoredCatalog();
    const s0 = await testKnex()('catalog_items').where({ catalog_id: c, business_key: 'S-0' }).first('id');
    // Only a boolean: the text is unchanged, so the pending vector becomes the indexed one.
    const put = await api.PUT('/api/public/catalogs/{catalog_id}/items/{item_id}', {
      params: { path: { catalog_id: c, item_id: s0.id } },
      body: { active: false },
    });
    expect(put.response.status).toBe(200);
    // New text through the service, and a raw SQL writer relying on the search-column trigger.
    await bulk(c, [{ sku: 'S-1', title: 'velvet scarf 1', color: 'blue' }]);
    await testKnex()('catalog_items')
      .where({ catalog_id: c, business_key: 'S-2' })
      .update({ data: JSON.stringify({ sku: 'S-2', title: 'felt cap' }) });
    const rows = Object.fromEntries((await rowsOf(c)).map((r) => [r.business_key, r]));
    for (const sku of ['S-0', 'S-1', 'S-2']) expect([sku, rows[sku].tsv, rows[sku].pending]).toEqual([sku, rows[sku].computed, null]);
    expect(rows['S-1'].tsv).toContain("'velvet'");
    expect(rows['S-2'].tsv).toContain("'felt'");
    expect(rows['S-3'].pending).toBe(rows['S-3'].computed);
    expect(await apiSearch(c, 'velvet')).toEqual({ total: 1, skus: ['S-1'] });
  });

  it('stores current vectors in snapshots and duplicates of a catalog that is behind', async () => {
    const { c } = await restoredCatalog();
    const manual = await snapshot(c);
    const stored = await testKnex().raw(
      'SELECT count(*)::int AS n, count(*) FILTER (WHERE search_tsv = catalog_item_search_tsv(search_text))::int AS current FROM catalog_snapshot_items WHERE snapshot_id = ?',
      [manual],
    );
    expect(stored.rows[0]).toEqual({ n: 12, current: 12 });
    const dup = await api.POST('/api/public/catalogs/{catalog_id}/duplicate', { ...cat(c), body: { name: 'copy', include_items: true } });
    expect(dup.response.status).toBe(200);
    const copy = await rowsOf(dup.data!.id);
    expect(copy).toHaveLength(12);
    for (const r of copy) expect([r.tsv, r.pending]).toEqual([r.computed, null]);
  });

  it('is caught up: every pending vector moved into the index, the flag cleared, searches back on the index', async () => {
    const { c } = await restoredCatalog();
    const batches: number[] = [];
    const caught = await catchUpSearchWords(testKnex(), c, (n) => batches.push(n));
    expect(caught).toMatchObject({ rows: 11, cleared: true });
    expect(batches).toEqual([11]);
    for (const r of await rowsOf(c)) expect([r.business_key, r.tsv, r.pending]).toEqual([r.business_key, r.computed, null]);
    expect((await testKnex()('catalogs').where('id', c).first('search_words_pending')).search_words_pending).toBe(false);
    expect(await apiSearch(c, 'silk')).toEqual({ total: 12, skus: SILK.map((s) => s.sku).sort() });
    expect(await apiSearch(c, 'wool')).toEqual({ total: 0, skus: [] });
    // Idempotent: nothing left to move.
    expect(await catchUpSearchWords(testKnex(), c)).toMatchObject({ rows: 0, cleared: true });
  });

  it('restores a catalog below the threshold with its word index up to date', async () => {
    const small = await listenTestApp(createApp({ config: loadConfig(), knex: testKnex(), jobRunner: recording, caches }));
    const smallApi = typedClient(small, a.auth);
    try {
      const c = await createTestCatalog(a.organizationId);
      await bulk(c, SILK, smallApi);
      const snapshotId = await snapshot(c, smallApi);
      await bulk(
        c,
        SILK.map((s) => ({ ...s, title: 'wool' })),
        smallApi,
      );
      requested.length = 0;
      await serviceRestore(c, snapshotId, recording, null);
      expect((await testKnex()('catalogs').where('id', c).first('search_words_pending')).search_words_pending).toBe(false);
      expect(requested).toEqual([]);
      for (const r of await rowsOf(c)) expect([r.tsv, r.pending]).toEqual([r.computed, null]);
    } finally {
      await closeServer(small);
    }
  });
});

describe('catch-up in searchIndexBuildWorkflow', () => {
  let env: TestWorkflowEnvironment;
  let worker: RunningTestWorker;

  beforeAll(async () => {
    env = await startTestTemporal();
    worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: fakeEngine() });
  });

  afterAll(async () => {
    await worker?.stop();
    await env?.teardown();
  });

  it('runs after a restore by the restore service and leaves the catalog caught up and indexed', async () => {
    const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, {}, { min_interval_s: 0, retry_initial_interval_s: 0.2 });
    const app = await listenTestApp(createApp({ config: loadConfig(), knex: testKnex(), jobRunner: runner, searchWordsDeferMinItems: 1, caches }));
    const appApi = typedClient(app, a.auth);
    try {
      const c = await createTestCatalog(a.organizationId);
      await bulk(c, SILK, appApi);
      const snapshotId = await snapshot(c, appApi);
      await bulk(
        c,
        SILK.map((s) => ({ ...s, title: `wool ${s.sku}` })),
        appApi,
      );
      await serviceRestore(c, snapshotId, runner);
      // The API starts the build after answering: wait for it to exist before reading its result.
      const handle = env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c));
      await waitUntil(() => handle.describe().catch(() => null), 'search index workflow started');
      const result = await handle.result();
      expect(result.built).toMatchObject({ catalog_id: c, items: 12, words_caught_up: 12 });
      expect((await testKnex()('catalogs').where('id', c).first('search_words_pending')).search_words_pending).toBe(false);
      for (const r of await rowsOf(c)) expect([r.tsv, r.pending]).toEqual([r.computed, null]);
      clearSearchTotals(caches.catalog);
      expect((await listItems(c, 'silk scarf', appApi)).data!.total).toBe(12);
    } finally {
      await closeServer(app);
    }
  });

  it('catches up during the cool-down of an open workflow, signalled by the restore', async () => {
    // A 60 s minimum interval keeps the workflow open long after its build.
    const runner = new TemporalJobRunner(
      env.client,
      { taskQueue: TASK_QUEUE, enrichConcurrency: 2 },
      {},
      { min_interval_s: 60, retry_initial_interval_s: 0.2 },
    );
    const app = await listenTestApp(createApp({ config: loadConfig(), knex: testKnex(), jobRunner: runner, searchWordsDeferMinItems: 1, caches }));
    const appApi = typedClient(app, a.auth);
    const c = await createTestCatalog(a.organizationId);
    const handle = env.client.workflow.getHandle<typeof searchIndexBuildWorkflow>(searchIndexWorkflowId(c));
    try {
      await bulk(c, SILK, appApi);
      const snapshotId = await snapshot(c, appApi);
      expect(await runner.startSearchIndexBuild({ id: c, organization_id: a.organizationId })).toBe(true);
      await waitUntil(() => testKnex()('catalog_search_index').where('catalog_id', c).first('catalog_id'), 'first build done');
      await bulk(
        c,
        SILK.map((s) => ({ ...s, title: `wool ${s.sku}` })),
        appApi,
      );
      await serviceRestore(c, snapshotId, runner);
      await waitUntil(
        async () => (await testKnex()('catalogs').where({ id: c, search_words_pending: false }).first('id')) ?? null,
        'word index caught up',
        20_000,
      );
      for (const r of await rowsOf(c)) expect([r.tsv, r.pending]).toEqual([r.computed, null]);
      // Still cooling down: the catch-up did not wait for it, and no second build started.
      const description = await handle.describe();
      expect(description.status.name).toBe('RUNNING');
      const history = await handle.fetchHistory();
      const scheduled = history
        .events!.filter((e) => e.activityTaskScheduledEventAttributes)
        .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
      expect(scheduled).toEqual(['buildSearchIndex', 'catchUpSearchWords']);
    } finally {
      await closeServer(app);
      await handle.terminate('test done').catch(() => undefined);
    }
  });
});
