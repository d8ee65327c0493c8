/**
 * Durability of research-archive indexing through real processes (docs/testing.md,
 * "Durability"): a WARC of {@link PAGES} pages is uploaded over HTTP to the production API
 * (`src/main.ts`) and indexed by the production worker (`temporal/worker.ts`), which is SIGKILLed
 * mid-way: after its first batch committed and while its next batch waits to commit. A second
 * worker's attempt (after the activity's heartbeat timeout) starts the archive over.
 *
 * The moment is made, not waited for: the test holds the archive row locked (`FOR UPDATE`) once
 * the first batch is in, so the worker's next batch, which writes the row's progress in its own
 * transaction, waits on the lock (`pg_stat_activity` `wait_event_type = 'Lock'`) until the kill.
 * It fails if the retry kept the dead attempt's committed pages beside its own (pages indexed
 * twice), lost some, or never finished.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { writeWarc } from '../fixtures/warc';
import { spawnApi, spawnWorker, stopWorker } from '../fixtures/worker-cluster';
import { createTestOrg } from '../helpers/db';
import { waitUntil } from '../helpers/wait';
import { INDEX_BATCH_PAGES } from '../../src/services/research-archives/indexing';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-archive-index-durability';
/** Many batches, so the kill lands with most of the archive still to index. */
const PAGES = INDEX_BATCH_PAGES * 8;

let dir: string;

const cluster = useTestCluster({
  setUp() {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-crash-'));
  },
  tearDown() {
    fs.rmSync(dir, { recursive: true, force: true });
  },
});

/** Page `i` of the test shop: a product page with JSON-LD, its own URL. */
function page(i: number) {
  const name = `Test lamp ${i}`;
  const ld = JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name,
    sku: `LAMP-${i}`,
    offers: { price: `${10 + i}.00`, priceCurrency: 'EUR' },
  });
  return {
    url: `https://shop.example/p/${i}`,
    date: '2026-11-01T00:00:00Z',
    body: `<html><head><title>${name}</title><script type="application/ld+json">${ld}</script></head><body><h1>${name}</h1></body></html>`,
  };
}

/** True while a backend of `appName` waits on a lock. */
async function waitsOnLock(appName: string): Promise<boolean> {
  const { rows } = await cluster.knex.raw(
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = ? AND wait_event_type = 'Lock' LIMIT 1",
    [appName],
  );
  return rows.length > 0;
}

/**
 * Locks the archive row once its first batch is committed (`pages_indexed` > 0, status still
 * `indexing`), in a transaction of the test's own; resolves with that transaction.
 */
async function lockAfterFirstBatch(archiveId: string): Promise<Knex.Transaction> {
  return waitUntil(
    async () => {
      const trx = await cluster.knex.transaction();
      const row = await trx('research_archives').where({ id: archiveId }).forUpdate().first('pages_indexed', 'status');
      if (row.status === 'indexing' && row.pages_indexed > 0) return trx;
      await trx.rollback();
      if (row.status !== 'indexing') throw new Error(`the archive is ${row.status} before the kill`);
      return null;
    },
    'the first batch committed',
    240_000,
    5,
  );
}

test('a worker killed mid-indexing: the next attempt starts over and every page is indexed exactly once', async () => {
  const { knex, temporal } = cluster;
  const org = await createTestOrg('archive index durability');
  const file = path.join(dir, 'shop.warc.gz');
  await writeWarc(
    file,
    Array.from({ length: PAGES }, (_, i) => page(i)),
    { gzip: true },
  );
  const first = cluster.track(await spawnWorker(temporal, TASK_QUEUE));
  const api = cluster.track(await spawnApi(temporal, TASK_QUEUE));
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(file)]), 'shop.warc.gz');
  const uploaded = await fetch(`http://127.0.0.1:${api.port}/api/public/research-archives`, { method: 'POST', headers: org.auth, body: form });
  expect(uploaded.status).toBe(202);
  const archiveId = ((await uploaded.json()) as { id: string }).id;

  const lock = await lockAfterFirstBatch(archiveId);
  let atKill: { pages: number; indexed: number };
  try {
    await waitUntil(() => waitsOnLock(first.appName).then((w) => w || null), "the worker's next batch to wait on the archive row", 120_000, 20);
    first.child.kill('SIGKILL');
    await first.exited;
    const [{ n }] = await knex('research_archive_pages').where({ archive_id: archiveId }).count({ n: '*' });
    const row = await lock('research_archives').where({ id: archiveId }).first('pages_indexed');
    atKill = { pages: Number(n), indexed: row.pages_indexed };
  } finally {
    await lock.rollback();
  }
  // Committed batches of the dead attempt are there, and no more than that: most pages were still to come.
  expect(atKill.pages).toBe(atKill.indexed);
  expect(atKill.pages).toBeGreaterThan(0);
  expect(atKill.pages).toBeLessThan(PAGES);

  const second = cluster.track(await spawnWorker(temporal, TASK_QUEUE));
  const done = await waitUntil(
    async () => {
      const row = await knex('research_archives').where({ id: archiveId }).first('status', 'pages_indexed', 'error');
      return row.status === 'indexing' ? null : row;
    },
    'the second attempt to finish',
    400_000,
    200,
  );
  await stopWorker(second);
  expect(done).toMatchObject({ status: 'ready', pages_indexed: PAGES, error: null });
  const [pages] = await knex('research_archive_pages')
    .where({ archive_id: archiveId })
    .select(knex.raw('count(*)::int AS rows'), knex.raw('count(DISTINCT url)::int AS urls'));
  expect(pages).toEqual({ rows: PAGES, urls: PAGES });
}, 900_000);
