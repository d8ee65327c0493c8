// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * End to end: a deployment configured as a clone without ../shared (no archive
 * folder, no live search) starts and enriches from the items' own data with a notice; web
 * archives written here with warcio (WARC and WACZ of real product pages of ../shared/data) are
 * uploaded through HTTP, indexed by the Temporal workflow into PostgreSQL, and researched by the
 * organization's jobs only; values cite the captures' original URLs; a corrupted WACZ is refused;
 * readiness needs a worker polling the task queue, and a sync request without one answers 503.
 * The API and the worker have different data directories and share only the blob store: what the API receives, the worker indexes and researches, and nothing stays in either.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createEngineFromConfig } from '../../src/enrichment';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import type { JobRunner } from '../../src/services/job-runner';
import { registerConfiguredArchives } from '../../src/services/research-archives/archives';
import { archiveIndexFetcher, archiveIndexSearch } from '../../src/services/research-archives/search';
import { TemporalJobRunner } from '../../temporal/client';
import { pageItem, PAGES_SCHEMA } from '../../bench/eval/pages';
import { writeWacz, writeWarc } from '../fixtures/warc';
import { SHARED_DATA } from '../helpers/data';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const TASK_QUEUE = 'test-e2e-research-archives';
/** Best Buy CA, John Lewis, Almedina, Amazon FR (as test/e2e/enrich-http.test.ts). */
const PAGE_IDS = [
  '2c42fb6035ff369f80148ebbe5ad62c93fe1532e0435e7ec1be87474cb5578d7',
  '4e545337e1205c88bdb099402a53153050ce51b1f99cf77e1598ddabbbabd390',
  '91f0a111a06e65b04300672fe3707e2b92250d2e60d99c08d19115e7cca11e8e',
  '64915d8c2251307c4c8d4c9f3e506a26d4740e2a806b13e33622b3c889b2b037',
];
type IndexRecord = Parameters<typeof pageItem>[0] & { id: string; url: string; file: string; captured_at: string };
const index: IndexRecord[] = JSON.parse(fs.readFileSync(path.join(ZYTE, 'page-index.json'), 'utf8'));
const labels: Record<string, Record<string, string[] | string>> = JSON.parse(fs.readFileSync(path.join(ZYTE, 'ground-truth.json'), 'utf8'));
const pages = PAGE_IDS.map((id) => index.find((p) => p.id === id)!);
const iso = (c: string) => `${c.slice(0, 4)}-${c.slice(4, 6)}-${c.slice(6, 8)}T${c.slice(8, 10)}:${c.slice(10, 12)}:${c.slice(12, 14)}Z`;
const archived = (p: IndexRecord) => ({ url: p.url, date: iso(p.captured_at), body: fs.readFileSync(path.join(ZYTE, p.file)) });

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'research-archives-'));
// A clone without ../shared: the default archives are looked for in a folder that does not exist.
/** A process's configuration: its own DATA_DIR, the shared blob store. */
const processConfig = (dataDir: string) =>
  loadConfig({
    ...process.env,
    SHARED_DATA_DIR: path.join(dir, 'no-shared-data'),
    RESEARCH_ARCHIVES: '',
    DATA_DIR: path.join(dir, dataDir),
    BLOB_DIR: path.join(dir, 'blobs'),
    S3_BUCKET: '',
  });
const config = processConfig('api');
const workerConfig = processConfig('worker');
/** Files under `folder` of the test's directory (relative), recursively. */
const filesUnder = (folder: string): string[] =>
  fs.existsSync(path.join(dir, folder))
    ? (fs.readdirSync(path.join(dir, folder), { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, folder, f)).isFile())
    : [];

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let a: { Authorization: string };
let b: { Authorization: string };
const warcFile = path.join(dir, 'two-pages.warc.gz');
const waczWarc = path.join(dir, 'inner.warc');
const waczFile = path.join(dir, 'one-page.wacz');
const badWacz = path.join(dir, 'corrupted.wacz');

beforeAll(async () => {
  await writeWarc(warcFile, pages.slice(0, 2).map(archived), { gzip: true });
  await writeWarc(waczWarc, pages.slice(2, 3).map(archived));
  await writeWacz(waczFile, waczWarc);
  await writeWacz(badWacz, waczWarc, { corrupt: true });
  env = await startTestTemporal();
  const knex = testKnex();
  const storage = enrichmentStorage(workerConfig);
  const engine = createEngineFromConfig(workerConfig, {
    archiveIndex: { search: archiveIndexSearch(knex), fetcher: archiveIndexFetcher(knex, storage.blobs) },
  });
  // The worker checks a flow's enrich node against the same research settings as the API.
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine, storage, research: workerConfig });
  app = testApiFor(env, TASK_QUEUE, { config, concurrency: 2 });
  a = (await createTestOrg('archives A')).auth;
  b = (await createTestOrg('archives B')).auth;
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
  fs.rmSync(dir, { recursive: true, force: true });
});

const item = (p: IndexRecord) => pageItem(p, labels[p.id], 'A');
type Result = { after_data: Record<string, unknown> & { sources: Record<string, string[]> }; review_info: { debug_log?: string[] } };

async function uploadReady(
  auth: { Authorization: string },
  file: string,
): Promise<{ id: string; progress: { records_read: number; pages_indexed: number; skipped: Record<string, number> } }> {
  const res = await request(app).post('/api/public/research-archives').set(auth).attach('file', file);
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ status: 'indexing', name: path.basename(file), configured: false });
  return waitUntil(
    async () => {
      const got = await request(app).get(`/api/public/research-archives/${res.body.id}`).set(auth);
      if (got.body.status === 'failed') throw new Error(got.body.error);
      return got.body.status === 'ready' ? got.body : null;
    },
    'the archive to be indexed',
    60_000,
  );
}

test('with no research source, a sync job completes from the items own data and its notices say how to add one', async () => {
  const ready = await request(app).get('/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body.checks).toEqual({ postgres: 'ok', temporal: 'ok', worker: 'ok' });
  expect(ready.body.research).toMatchObject({ live_search: null, archive_folders: [], archive_files: [] });

  const items = [{ name: 'Acme kettle', brand: 'Acme', color: 'red' }];
  const res = await request(app)
    .post('/api/public/enrich')
    .set(a)
    .send({ items, output_schema: [{ name: 'color', type: 'string', description: 'Colour' }], speed: 'fast' });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('completed');
  expect(res.body.notices.join(' ')).toMatch(/no research source is configured.*POST \/api\/public\/research-archives/);
  expect(res.body.results[0].after_data.color).toBe('red');
}, 60_000);

test("with no research source, a flow enrich node's job reads its rows' own data and carries the same notice as a job", async () => {
  const c = await createTestOrg('archives C (flows)');
  const catalogId = await createTestCatalog(c.organizationId, {
    schema_definition: { type: 'object', properties: { name: { type: 'string' }, color: { type: 'string' } } },
  });
  const schema = [{ name: 'color', type: 'string', description: 'Colour' }];
  const job = await request(app)
    .post('/api/public/enrich')
    .set(c.auth)
    .send({ catalog_id: catalogId, items: [{ name: 'Acme kettle', color: 'red' }], output_schema: schema, speed: 'fast' });
  expect(job.status).toBe(200);
  const saved = await request(app)
    .post(`/api/public/catalogs/${catalogId}/activities/${job.body.job_id}/save-workflow`)
    .set(c.auth)
    .send({ workflow_name: 'enrich' });
  expect(saved.status).toBe(200);
  const started = await request(app)
    .post(`/api/public/workflows/${saved.body.workflow_id}/execute`)
    .set(c.auth)
    .send({ input: [{ name: 'Globex lamp', color: 'blue' }] });
  expect(started.status).toBe(200);
  const runId = started.body.workflow_run_id;
  const run = await waitUntil(
    async () => {
      const res = await request(app).get(`/api/public/workflows/runs/${runId}`).set(c.auth);
      return res.body.status === 'running' ? null : res.body;
    },
    'the flow run to end',
    90_000,
  );
  expect(run.status).toBe('completed');
  const node = await testKnex()('flow_run_nodes').where({ run_id: runId, node_id: 'enrich' }).first('job_id');
  const child = await request(app).get(`/api/public/enrich/${node.job_id}`).set(c.auth);
  expect(child.status).toBe(200);
  expect(child.body.notices).toEqual(
    expect.arrayContaining([expect.stringMatching(/no research source is configured.*POST \/api\/public\/research-archives/)]),
  );
  expect(child.body.results[0].after_data.color).toBe('blue');
  // The run's poll shows the enrich node's job and its notices.
  expect(run.nodes.find((n: { id: string }) => n.id === 'enrich')).toMatchObject({
    job_id: node.job_id,
    notices: expect.arrayContaining([expect.stringMatching(/no research source is configured/)]),
  });
}, 120_000);

test('a WARC upload is indexed and researched: values cite the capture URLs, the record is in the evidence', async () => {
  const archive = await uploadReady(a, warcFile);
  expect(archive.progress.pages_indexed).toBe(2);
  expect(archive.progress.records_read).toBe(3);
  expect(archive.progress.skipped).toEqual({ not_a_response: 1 });

  const res = await request(app)
    .post('/api/public/enrich')
    .set(a)
    .send({ items: pages.slice(0, 2).map(item), output_schema: PAGES_SCHEMA, speed: 'fast', include_debug_log: true });
  expect(res.status).toBe(200);
  // Archives are a research source: no notice says otherwise (a `speed` notice about models may stand).
  expect((res.body.notices ?? []).join(' ')).not.toMatch(/research source/);
  (res.body.results as Result[]).forEach((result, i) => {
    const truth = [labels[pages[i].id].price ?? []].flat().map(Number);
    expect(truth).toContain(Number(result.after_data.price));
    expect(result.after_data.sources.price).toEqual([pages[i].url]);
    const line = result.review_info.debug_log!.find((l) => l.startsWith(`document read: ${pages[i].url}`));
    expect(line).toMatch(new RegExp(`captured ${iso(pages[i].captured_at).slice(0, 19)}.*WARC record <urn:uuid:[0-9a-f-]+> at .*two-pages\\.warc\\.gz@\\d+`));
  });

  // Organization B has no archive: the same items find nothing, and B cannot see A's archive.
  const other = await request(app)
    .post('/api/public/enrich')
    .set(b)
    .send({ items: pages.slice(0, 1).map(item), output_schema: PAGES_SCHEMA, speed: 'fast' });
  expect(other.body.notices.join(' ')).toMatch(/no research source/);
  expect(other.body.results[0].after_data.sources.price).toBeUndefined();
  expect((await request(app).get(`/api/public/research-archives/${archive.id}`).set(b)).status).toBe(403);
  expect((await request(app).get('/api/public/research-archives').set(b)).body.archives).toEqual([]);

  // Deleted: it leaves the list and the research index.
  expect((await request(app).delete(`/api/public/research-archives/${archive.id}`).set(a)).status).toBe(200);
  expect((await request(app).get(`/api/public/research-archives/${archive.id}`).set(a)).status).toBe(404);
  expect(Number((await testKnex()('research_archive_pages').where({ archive_id: archive.id }).count('* as n'))[0].n)).toBe(0);
  expect(filesUnder('blobs').filter((f) => f.startsWith(`research-archives/${archive.id}`))).toEqual([]);
}, 180_000);

test('a WACZ upload is verified and researched; an item carrying its own URL is read from it first', async () => {
  const archive = await uploadReady(a, waczFile);
  expect(archive.progress.pages_indexed).toBe(1);
  // The upload and the WARC file the worker unpacked from it are in the shared store only.
  expect(
    filesUnder('blobs')
      .filter((f) => f.startsWith(`research-archives/${archive.id}/`))
      .sort(),
  ).toEqual([`research-archives/${archive.id}/one-page.wacz`, `research-archives/${archive.id}/warc/inner.warc`]);
  expect(filesUnder('worker')).toEqual([]);
  expect(filesUnder('api')).toEqual([]);
  const page = pages[2];
  const res = await request(app)
    .post('/api/public/enrich')
    .set(a)
    .send({ items: [{ ...item(page), url: page.url }], output_schema: PAGES_SCHEMA, speed: 'fast', include_debug_log: true });
  expect(res.status).toBe(200);
  const result = res.body.results[0] as Result;
  expect(result.after_data.sources.price).toEqual([page.url]);
  const log = result.review_info.debug_log!;
  expect(log.find((l) => l.startsWith('document read:'))).toContain(page.url);
  expect(log.filter((l) => l.startsWith('query:')).length).toBeLessThanOrEqual(2);
  await request(app).delete(`/api/public/research-archives/${archive.id}`).set(a);
  expect(filesUnder('blobs').filter((f) => f.startsWith(`research-archives/${archive.id}`))).toEqual([]);
}, 180_000);

test('a corrupted WACZ is refused with the hash that differs; other files are 415', async () => {
  const res = await request(app).post('/api/public/research-archives').set(a).attach('file', badWacz);
  expect(res.status).toBe(422);
  expect(JSON.stringify(res.body.detail)).toMatch(/WACZ refused: archive\/inner\.warc: SHA-256 differs from datapackage\.json/);
  const text = path.join(dir, 'notes.txt');
  fs.writeFileSync(text, 'hello');
  expect((await request(app).post('/api/public/research-archives').set(a).attach('file', text)).status).toBe(415);
});

test('a configured WACZ (RESEARCH_ARCHIVES) is indexed into the shared store and researched by every organization', async () => {
  const jobRunner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 1 });
  const [archive] = await registerConfiguredArchives({ knex: testKnex(), jobRunner, blobs: enrichmentStorage(workerConfig).blobs }, [waczFile]);
  try {
    expect(archive.file_path).toBe(waczFile);
    await waitUntil(
      async () => ((await testKnex()('research_archives').where({ id: archive.id }).first()).status === 'ready' ? true : null),
      'indexed',
      60_000,
    );
    // Its WARC file is in the shared store (any worker's research reads it), not in a data directory.
    expect(filesUnder('blobs')).toContain(`research-archives/${archive.id}/warc/inner.warc`);
    expect(filesUnder('worker')).toEqual([]);
    const page = pages[2];
    const res = await request(app)
      .post('/api/public/enrich')
      .set(b)
      .send({ items: [{ ...item(page), url: page.url }], output_schema: PAGES_SCHEMA, speed: 'fast' });
    expect(res.status).toBe(200);
    expect((res.body.results[0] as Result).after_data.sources.price).toEqual([page.url]);
  } finally {
    await testKnex()('research_archives').where({ id: archive.id }).delete();
  }
}, 180_000);

test('without a worker polling the task queue, /readyz is not ready and a sync enrich answers 503 at once', async () => {
  const lonely = testApiFor(env, 'test-no-worker-queue', { config });
  const ready = await request(lonely).get('/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body.checks.worker).toMatch(/no worker polls task queue test-no-worker-queue/);
  const res = await request(lonely)
    .post('/api/public/enrich')
    .set(a)
    .send({ items: [{ name: 'x' }], output_schema: [{ name: 'color', type: 'string', description: 'Colour' }] });
  expect(res.status).toBe(503);
  expect(res.body.detail).toMatch(/No worker polls task queue test-no-worker-queue/);
}, 60_000);

test('a configured WARC file whose indexing failed is retried at the next worker start; an unchanged file is not read again', async () => {
  const knex = testKnex();
  const runner = new TemporalJobRunner(env.client, { taskQueue: TASK_QUEUE, enrichConcurrency: 2 }, {}, {}, {}, {});
  // A worker start while Temporal is unreachable: the archive is registered, its indexing could not start.
  const down: JobRunner = Object.assign(Object.create(runner), {
    startResearchArchiveIndex: async () => {
      throw new Error('Temporal unreachable');
    },
  });
  const file = path.join(dir, 'configured.warc');
  await writeWarc(file, pages.slice(3, 4).map(archived));
  const deps = { knex, jobRunner: runner, blobs: enrichmentStorage(workerConfig).blobs };
  await expect(registerConfiguredArchives({ ...deps, jobRunner: down }, [file])).rejects.toThrow(/not indexed/);
  const [failed] = await knex('research_archives').whereNull('organization_id');
  expect(failed).toMatchObject({ status: 'failed', source_path: file });
  const settledArchive = (id: string) =>
    waitUntil(
      async () => {
        const row = await knex('research_archives').where({ id }).first();
        return row.status === 'indexing' ? null : row;
      },
      'the configured archive to be indexed',
      60_000,
    );
  try {
    // The next start retries it (same content, same archive), and it becomes researchable.
    expect((await registerConfiguredArchives(deps, [file])).map((a) => a.id)).toEqual([failed.id]);
    expect(await settledArchive(failed.id)).toMatchObject({ status: 'ready', pages_indexed: 1, error: null });
    // A ready archive is left alone.
    expect(await registerConfiguredArchives(deps, [file])).toEqual([]);

    // Same path, size and modification time: the stored hash is used, the file is not read. Changed
    // bytes with the old mtime therefore register nothing; once the mtime moves, the new content is hashed.
    const stat = fs.statSync(file);
    const bytes = fs.readFileSync(file);
    const at = bytes.indexOf('<title');
    bytes[at + 1] = 'T'.charCodeAt(0);
    fs.writeFileSync(file, bytes);
    fs.utimesSync(file, stat.atimeMs / 1000, stat.mtimeMs / 1000); // the old time, to the microsecond
    expect(await registerConfiguredArchives(deps, [file])).toEqual([]);
    expect(await knex('research_archives').whereNull('organization_id').count('* as n').first()).toEqual({ n: '1' });
    fs.utimesSync(file, stat.atime, new Date(stat.mtimeMs + 5000));
    const changed = await registerConfiguredArchives(deps, [file]);
    expect(changed).toHaveLength(1);
    expect(changed[0].id).not.toBe(failed.id);
    await settledArchive(changed[0].id);
  } finally {
    // Configured archives are every organization's: remove them for the other tests.
    await knex('research_archives').whereNull('organization_id').delete();
  }
}, 120_000);
