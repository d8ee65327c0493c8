/**
 * Durability of feed runs through real processes (docs/feeds.md, "Durability"): the production
 * worker (`temporal/worker.ts`) runs feedRunWorkflow over a catalog of {@link ITEMS} items in
 * pages of {@link PAGE}, some with a bad GTIN, and is SIGKILLed while the first page has written
 * its part blob and waits inside its transaction to record the page. A second worker retries the
 * page (after the page activity's heartbeat timeout) and finishes the run.
 *
 * The moment is made, not waited for: the test holds `feed_run_pages` in SHARE mode, so the page's
 * insert waits (`pg_stat_activity` `wait_event_type = 'Lock'`) until the kill; the worker's
 * connections carry `client_connection_check_interval` (PGOPTIONS), so PostgreSQL ends the dead
 * worker's backend while it waits and the page's transaction never commits.
 *
 * Proves: the file is byte for byte the file of an uninterrupted run of the same feed, and the
 * issue list is the same with no duplicate; the counters count every item once. A second case
 * kills the worker mid-run (two pages recorded, the third waiting on the held issues table):
 * the retried pages activity resumes after the recorded pages (an item of the first page changed
 * after the kill does not reach the file) and the file, issues and item state are the same.
 */
import { feedRunWorkflowId } from '../../src/contracts/feed-workflows';
import { loadConfig } from '../../src/config';
import { bufferOf } from '../../src/lib/blob-store';
import { createBlobStore } from '../../src/lib/blob-stores';
import { newId } from '../../src/lib/ids';
import { FeedRun } from '../../src/models/feed-run';
import { createFeed } from '../../src/services/feeds/feeds';
import { insertFeedRun } from '../../src/services/feeds/runs';
import { startFeedRunWorkflow } from '../../temporal/feed-schedules';
import { spawnWorker, stopWorker, waitForBackendsGone, CONNECTION_CHECK_ENV, type WorkerProcess } from '../fixtures/worker-cluster';
import { createTestCatalog } from '../helpers/catalogs';
import { createTestOrg } from '../helpers/db';
import { waitUntil } from '../helpers/wait';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-feed-run-durability';
const ITEMS = 10;
const PAGE = 3;
const WORKER_ENV = CONNECTION_CHECK_ENV;

const cluster = useTestCluster();

/**
 * A feed over {@link ITEMS} items `K-0`…`K-9` in id order (so item i is on page i / {@link PAGE});
 * the items `bad` says have a GTIN with a wrong check digit (default every third).
 * @returns the feed's id and the items' ids in order
 */
async function seedFeed(organizationId: string, bad: (i: number) => boolean = (i) => i % 3 === 0): Promise<{ feedId: string; itemIds: string[] }> {
  const { knex } = cluster;
  const schema = {
    type: 'object',
    properties: { sku: { type: 'string' }, title: { type: 'string' }, price: { type: 'number' }, gtin: { type: 'string' } },
    required: ['sku'],
  };
  const catalogId = await createTestCatalog(organizationId, { schema_definition: schema });
  const itemIds = Array.from({ length: ITEMS }, () => newId()).sort();
  await knex('catalog_items').insert(
    itemIds.map((id, i) => ({
      id,
      catalog_id: catalogId,
      business_key: `K-${i}`,
      data: JSON.stringify({ sku: `K-${i}`, title: `Kettle ${i}`, price: 20 + i, gtin: bad(i) ? '4006381333932' : '4006381333931' }),
    })),
  );
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'crash-test', organizationIds: [organizationId] } };
  const { feed } = await createFeed(knex, scope, catalogId, {
    channel: 'google_merchant_center',
    format: 'xml',
    target_country: 'US',
    language: 'en',
    currency: 'USD',
    mapping: {
      id: 'sku',
      title: 'title',
      description: 'title',
      link: { template: 'https://shop.example/{sku}' },
      image_link: { template: 'https://shop.example/{sku}.jpg' },
      availability: { value: 'in_stock' },
      brand: { value: 'Acme' },
      price: 'price',
      gtin: 'gtin',
      condition: { value: 'new' },
    },
  });
  return { feedId: feed.id, itemIds };
}

/**
 * Starts a run of the feed on the cluster as the API does (temporal/feed-schedules.ts), in pages
 * of {@link PAGE} with a 3 s page heartbeat timeout. @returns the run id
 */
async function startRun(feedId: string): Promise<string> {
  const { knex, client } = cluster;
  const feed = await knex('feeds').where('id', feedId).first();
  const run = await insertFeedRun(knex, feed, false);
  await startFeedRunWorkflow(client, TASK_QUEUE, { ...run, catalog_id: feed.catalog_id }, { page_items: PAGE, heartbeat_timeout_s: 3 });
  return run.id;
}

/** The run's file, issues (without run ids) and counters, from the blob store and SQL. */
async function outcome(runId: string) {
  const { knex } = cluster;
  const run = await FeedRun.query(knex).findById(runId).throwIfNotFound();
  const body = run.file_key ? await createBlobStore(loadConfig().blobStore).get(run.file_key) : null;
  const issues = await knex('feed_run_issues')
    .where('run_id', runId)
    .orderBy(['item_id', 'attribute', 'code'])
    .select('item_id', 'attribute', 'severity', 'code', 'value');
  return { status: run.status, file: body ? (await bufferOf(body)).toString('utf8') : null, issues, counts: [run.items_read, run.exported, run.excluded] };
}

/** The outcome of an uninterrupted run of `feedId` (the reference a killed run is compared with). */
async function referenceOutcome(feedId: string): Promise<Awaited<ReturnType<typeof outcome>>> {
  const reference = await startRun(feedId);
  await cluster.client.workflow.getHandle(feedRunWorkflowId(reference)).result();
  return outcome(reference);
}

/**
 * Lets a second worker finish run `runId` (after the first was killed) and checks it against the
 * reference: completed, the workflow's own counters counting every item once (the resumed
 * activity's heartbeated progress plus what it wrote after), the same counts, file and issues.
 */
async function finishAsReference(runId: string, expected: Awaited<ReturnType<typeof outcome>>): Promise<void> {
  const { temporal, client } = cluster;
  const second = cluster.track(await spawnWorker(temporal, TASK_QUEUE, { env: WORKER_ENV }));
  expect(await client.workflow.getHandle(feedRunWorkflowId(runId)).result()).toMatchObject({ phase: 'completed', pages: 4, items_read: ITEMS });
  await stopWorker(second);
  const got = await outcome(runId);
  expect(got.status).toBe('completed');
  expect(got.counts).toEqual(expected.counts);
  expect(got.file).toBe(expected.file);
  expect(got.issues).toEqual(expected.issues);
}

/**
 * Starts a run of `feedId` while the test holds `table` in SHARE mode, waits until `worker`'s
 * commit of a page waits on that lock (`pg_stat_activity`, this database only), SIGKILLs the
 * worker and waits for its backends to be gone, then releases the lock (the killed page's
 * transaction never commits).
 * @param what which page waits, for the timeout's message
 * @returns the run's id
 */
async function startRunAndKillWhileHeld(feedId: string, worker: WorkerProcess, table: 'feed_run_pages' | 'feed_run_issues', what: string): Promise<string> {
  const { knex } = cluster;
  const trx = await knex.transaction();
  try {
    await trx.raw(`LOCK TABLE ${table} IN SHARE MODE`);
    const runId = await startRun(feedId);
    await waitUntil(
      async () =>
        (
          await knex.raw(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = ? AND wait_event_type = 'Lock' AND query LIKE ?`,
            [worker.appName, `%${table}%`],
          )
        ).rows.length > 0,
      `${what} to wait on the held ${table} table`,
      60_000,
      20,
    );
    worker.child.kill('SIGKILL');
    await worker.exited;
    await waitForBackendsGone(knex, worker);
    return runId;
  } finally {
    await trx.rollback();
  }
}

test('the worker SIGKILLed while a page waits to commit: the retried run writes the same file and issues, none twice', async () => {
  const org = await createTestOrg('feed run durability');
  const { feedId } = await seedFeed(org.organizationId);
  const { knex, temporal } = cluster;
  const first = cluster.track(await spawnWorker(temporal, TASK_QUEUE, { env: WORKER_ENV }));

  const expected = await referenceOutcome(feedId);
  expect(expected.status).toBe('completed');
  expect(expected.counts).toEqual([ITEMS, 6, 4]);
  expect(expected.issues.filter((i) => i.code === 'invalid_gtin')).toHaveLength(4);

  const runId = await startRunAndKillWhileHeld(feedId, first, 'feed_run_pages', 'the first page');
  expect(await knex('feed_run_pages').where('run_id', runId).count({ n: '*' })).toEqual([{ n: '0' }]);

  await finishAsReference(runId, expected);
  const [{ n, distinct }] = (
    await knex.raw('SELECT count(*)::int AS n, count(DISTINCT (item_id, attribute, code))::int AS distinct FROM feed_run_issues WHERE run_id = ?', [runId])
  ).rows;
  expect(n).toBe(distinct);
  expect(await knex('feed_run_pages').where('run_id', runId).orderBy('page_index').pluck('page_index')).toEqual([0, 1, 2, 3]);
}, 400_000);

test('the worker SIGKILLed mid-run (two pages recorded, the third waiting to commit): the retry resumes after the recorded pages, same file and issues', async () => {
  const org = await createTestOrg('feed run durability mid-run');
  // Only the third page (items 6–8) has issues, so only its commit waits on the held issues table.
  const { feedId, itemIds } = await seedFeed(org.organizationId, (i) => i === 7);
  const { knex, temporal } = cluster;
  const first = cluster.track(await spawnWorker(temporal, TASK_QUEUE, { env: WORKER_ENV }));

  const expected = await referenceOutcome(feedId);
  expect(expected.status).toBe('completed');
  expect(expected.counts).toEqual([ITEMS, 9, 1]);

  const runId = await startRunAndKillWhileHeld(feedId, first, 'feed_run_issues', 'the third page');
  expect(await knex('feed_run_pages').where('run_id', runId).orderBy('page_index').pluck('page_index')).toEqual([0, 1]);
  // An item of the first page changes after the kill: a retry that wrote the recorded pages
  // again would put the new title in the file; resuming after them keeps the page as recorded.
  await knex('catalog_items')
    .where('id', itemIds[0])
    .update({ data: JSON.stringify({ sku: 'K-0', title: 'Kettle 0, renamed', price: 20, gtin: '4006381333931' }) });

  await finishAsReference(runId, expected);
  expect(await knex('feed_run_pages').where('run_id', runId).orderBy('page_index').pluck('page_index')).toEqual([0, 1, 2, 3]);
  // The run's item state generation holds each exported item once.
  expect(await knex('feed_item_state').where('state_id', runId).count({ n: '*' })).toEqual([{ n: '9' }]);
}, 400_000);
