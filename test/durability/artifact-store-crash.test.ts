/**
 * Blob writes audited at the store, under a crash (docs/testing.md, "Durability"): an enrichment
 * job started over HTTP on the production API process (`src/main.ts`) captures its sources
 * (`capture_source_artifacts`) into an S3-compatible store (s3rver on 127.0.0.1), run by the
 * production worker (`temporal/worker.ts`) fetching each item's own page from a shop on 127.0.0.1.
 * The worker is SIGKILLed after row {@link HELD}'s page was fetched and stored but before its
 * result was written: the test holds that row locked (`FOR UPDATE`, as the worker's row write
 * takes it), so the worker waits on the lock (`pg_stat_activity`) until the kill. A second worker
 * runs the row again (its engine is called twice; the page may come from the live page cache).
 *
 * What the store received is counted by the store (object writes completed, per key), not by the
 * service: every stored file a row references was written exactly once, including the held row's
 * page, captured by both attempts (content-addressed: the retry finds it there), and the only file no row
 * references is the killed attempt's evidence WARC. It fails if the artifact writer wrote a
 * content-addressed file again, if a finished row ran again, or if a row references a file the
 * store never received.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { engineCallsPerRow, spawnApi, spawnWorker, stopWorker, waitForBackendsGone } from '../fixtures/worker-cluster';
import { createTestOrg } from '../helpers/db';
import { startS3Server, type TestS3Server } from '../helpers/s3-server';
import { waitUntil } from '../helpers/wait';
import { contentKey } from '../../src/lib/blob-store';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-artifact-store-crash';
const ITEMS = 6;
/** The row whose result write the kill interrupts. */
const HELD = 3;

let s3: TestS3Server;
let shop: { server: http.Server; base: string; hits: (p: string) => number };
let dir: string;

/** A shop on 127.0.0.1: `/p/<n>` is "Widget <n>" with JSON-LD (the same bytes every time); requests counted by path. */
async function startShop(): Promise<typeof shop> {
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    seen.set(p, (seen.get(p) ?? 0) + 1);
    const m = /^\/p\/(\d+)$/.exec(p);
    if (!m) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const name = `Widget ${m[1]}`;
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name,
      sku: `W-${m[1]}`,
      offers: { '@type': 'Offer', price: `${m[1]}9.50`, priceCurrency: 'EUR' },
    };
    return res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<html><head><title>${name}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><h1>${name}</h1></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: (p) => seen.get(p) ?? 0 };
}

/** The processes' configuration: the S3 store, no search provider, loopback pages allowed, no shared data. */
function processEnv(): Record<string, string> {
  return {
    ...s3.env,
    SEARCH_PROVIDER: '',
    RESEARCH_ARCHIVES: '',
    SHARED_DATA_DIR: path.join(dir, 'no-shared-data'),
    FETCH_ALLOW_PRIVATE: 'true',
    FETCH_HOST_INTERVAL_MS: '0',
  };
}

const cluster = useTestCluster({
  async setUp() {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'artifact-crash-'));
    s3 = await startS3Server(fs.mkdtempSync(path.join(dir, 's3-')));
    shop = await startShop();
  },
  async tearDown() {
    await s3?.close();
    await new Promise((r) => shop?.server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  },
});

/** True while a backend of `appName` waits on a lock. */
async function waitsOnLock(appName: string): Promise<boolean> {
  const { rows } = await cluster.knex.raw(
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = ? AND wait_event_type = 'Lock' LIMIT 1",
    [appName],
  );
  return rows.length > 0;
}

test('a worker killed between storing a row’s sources and writing its result: the store received each referenced file once', async () => {
  const { knex, temporal } = cluster;
  const org = await createTestOrg('artifact store durability');
  const first = cluster.track(await spawnWorker(temporal, TASK_QUEUE, { env: processEnv() }));
  const api = cluster.track(await spawnApi(temporal, TASK_QUEUE, { env: processEnv() }));
  const items = Array.from({ length: ITEMS }, (_, i) => ({ name: `Widget ${i}`, url: `${shop.base}/p/${i}` }));
  const created = await fetch(`http://127.0.0.1:${api.port}/api/public/enrich`, {
    method: 'POST',
    headers: { ...org.auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      items,
      async_mode: true,
      speed: 'fast',
      capture_source_artifacts: true,
      output_schema: [
        { name: 'sku', type: 'string', description: 'Stock keeping unit' },
        { name: 'price', type: 'number', description: 'Current selling price' },
      ],
    }),
  });
  const body = (await created.json()) as { job_id: string };
  expect([created.status, body]).toEqual([200, expect.objectContaining({ status: 'running' })]);
  const jobId = body.job_id;
  expect(jobId).toBeTruthy();

  // Hold row HELD's write: lock its (pending) row as the worker's write will.
  const lock = await waitUntil(
    async () => {
      const trx = await knex.transaction();
      const row = await trx('enrichment_rows').where({ job_id: jobId, row_index: HELD }).forUpdate().first('status');
      if (row?.status === 'pending') return trx;
      await trx.rollback();
      if (row) throw new Error(`row ${HELD} is ${row.status} before the lock`);
      return null;
    },
    'the job’s rows to exist',
    120_000,
    5,
  );
  try {
    await waitUntil(() => waitsOnLock(first.appName).then((w) => w || null), `the worker's write of row ${HELD} to wait on its lock`, 240_000, 20);
    expect(shop.hits(`/p/${HELD}`)).toBe(1);
    first.child.kill('SIGKILL');
    await first.exited;
  } finally {
    await lock.rollback();
  }
  // Its backend, blocked on the lock, ends once it gets it and finds the client gone (its
  // transaction is never committed).
  await waitForBackendsGone(knex, first);
  expect(await knex('enrichment_rows').where({ job_id: jobId, row_index: HELD }).first('status')).toEqual({ status: 'pending' });

  const second = cluster.track(await spawnWorker(temporal, TASK_QUEUE, { env: processEnv() }));
  const job = await waitUntil(
    async () => {
      const j = await knex('enrichment_jobs').where({ id: jobId }).first('status', 'completed_items');
      return j.status === 'running' || j.status === 'queued' ? null : j;
    },
    'the job to finish on the second worker',
    400_000,
    200,
  );
  await stopWorker(second);
  expect(job).toMatchObject({ status: 'completed', completed_items: ITEMS });
  // The held row ran twice (the engine calls the workers logged), and no other row did.
  const calls = engineCallsPerRow([first.output(), second.output()], jobId);
  expect(Array.from({ length: ITEMS }, (_, i) => calls.get(i) ?? 0)).toEqual(Array.from({ length: ITEMS }, (_, i) => (i === HELD ? 2 : 1)));

  const referenced = await knex('source_artifacts').where({ job_id: jobId }).select('sha256', 'row_index', 'content_type');
  const keys = new Map(referenced.map((r) => [contentKey('artifacts', r.sha256), r]));
  const writes = [...s3.writes()].filter(([key]) => key.startsWith('artifacts/'));
  // Each row references its page and its evidence WARC.
  expect(new Set(referenced.map((r) => r.row_index)).size).toBe(ITEMS);
  // Every referenced file reached the store exactly once: the held row's page, captured by both attempts, too.
  for (const key of keys.keys()) expect([key, s3.writes().get(key) ?? 0]).toEqual([key, 1]);
  // The one file nothing references is the killed attempt's evidence WARC (written before its row).
  const orphans = writes.filter(([key]) => !keys.has(key));
  expect(orphans).toHaveLength(1);
  expect(orphans[0][1]).toBe(1);
  // The production worker's fetcher keeps its state in the database (temporal/worker.ts wires
  // src/services/fetching/): the shop's robots.txt answer is stored for every worker.
  expect(shop.hits('/robots.txt')).toBeGreaterThan(0);
  expect(await knex('fetch_robots').where({ origin: shop.base }).first('outcome', 'http_status')).toEqual({ outcome: expect.any(String), http_status: 404 });
}, 900_000);
