/**
 * The live web end to end (issue 27 §4–§6): HTTP → PostgreSQL → a real Temporal dev server → the
 * worker's activities → the real engine with `SEARCH_PROVIDER=searxng` against a
 * SearXNG-compatible search server and a shop site, both started here on 127.0.0.1
 * (`FETCH_ALLOW_PRIVATE`). Requests are counted at the site.
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import JSZip from 'jszip';
import { WARCParser } from 'warcio';
import http from 'node:http';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createEngineFromConfig } from '../../src/enrichment';
import type { FetchRecord } from '../../src/enrichment/research/types';
import type { Worker } from '@temporalio/worker';
import { createHostPoliteness } from '../../src/enrichment/providers/host-limiter';
import { createRenderer, type Renderer } from '../../src/enrichment/providers/renderer';
import { createRenderWorker } from '../../temporal/worker';
import { enrichmentWorkflowId } from '../../src/contracts/workflows';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { bufferBody } from '../helpers/wire';

const TASK_QUEUE = 'test-e2e-live-web';

/** A product page whose JSON-LD names the product, its brand, SKU and price. */
function productPage(name: string, brand: string, sku: string): string {
  const ld = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name,
    sku,
    brand: { '@type': 'Brand', name: brand },
    offers: { '@type': 'Offer', price: '19.99', priceCurrency: 'EUR' },
  };
  return `<html><head><title>${name}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><h1>${name}</h1><p>By ${brand}. SKU ${sku}.</p></body></html>`;
}

/** A page whose product data only exists once its script ran: the script inserts the JSON-LD after 200 ms. */
const SCRIPT_PAGE = `<html><head><title>Script Widget</title></head><body><h1>Script Widget</h1><div id="app">Loading</div><script>
setTimeout(() => {
  const s = document.createElement('script');
  s.type = 'application/ld+json';
  s.textContent = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Script Widget', sku: 'SW-9', brand: { '@type': 'Brand', name: 'Scriptco' } });
  document.head.appendChild(s);
}, 200);
</script></body></html>`;

/** Requests the shop received, by path. */
const shopHits = new Map<string, number>();
const hits = (path: string): number => shopHits.get(path) ?? 0;

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let shop: { server: http.Server; base: string };
let searx: { server: http.Server; base: string };
let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let renderWorker: Worker;
let renderRun: Promise<void>;
let renderer: Renderer;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let auth: { Authorization: string };
let apiKey: string;

beforeAll(async () => {
  shop = await listen((req, res) => {
    const path = req.url ?? '/';
    shopHits.set(path, hits(path) + 1);
    if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
    if (path === '/private/hidden-widget') return res.writeHead(200, { 'content-type': 'text/html' }).end(productPage('Hidden Widget', 'Secret', 'HW-1'));
    if (path === '/script-widget') return res.writeHead(200, { 'content-type': 'text/html' }).end(SCRIPT_PAGE);
    if (path === '/kept-widget') return res.writeHead(200, { 'content-type': 'text/html', etag: '"k1"' }).end(productPage('Kept Widget', 'Globex', 'KW-7'));
    if (path === '/busy-widget') {
      if (hits(path) === 1) return res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/html' }).end('Too many requests');
      return res.writeHead(200, { 'content-type': 'text/html' }).end(productPage('Busy Widget', 'Acme', 'BW-1'));
    }
    return res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
  });
  // A SearXNG-compatible search API: `GET /search?q=…&format=json` → `{results: [{url, title, content}]}`.
  searx = await listen((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
    const slug = /hidden/i.test(q)
      ? '/private/hidden-widget'
      : /busy/i.test(q)
        ? '/busy-widget'
        : /kept/i.test(q)
          ? '/kept-widget'
          : /script/i.test(q)
            ? '/script-widget'
            : null;
    const results = slug ? [{ url: `${shop.base}${slug}`, title: q, content: q }] : [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
  });
  const config = loadConfig({
    ...process.env,
    SEARCH_PROVIDER: 'searxng',
    SEARXNG_URL: searx.base,
    FETCH_ALLOW_PRIVATE: 'true',
    FETCH_HOST_INTERVAL_MS: '50',
  });
  env = await startTestTemporal();
  worker = await runTestWorker(env, {
    taskQueue: TASK_QUEUE,
    knex: testKnex(),
    engine: createEngineFromConfig(config, { knex: testKnex() }),
    fetchRetryAttempts: 3,
    render: { enabled: true, maxAgeS: 3600 },
  });
  // The render worker, as runWorker starts it: its own task queue, RENDER_CONCURRENCY slots, real Chromium.
  renderer = createRenderer({ chromiumPath: config.render.chromiumPath, pagesPerBrowser: 5, userAgent: config.fetch.userAgent, allowPrivate: true });
  renderWorker = await createRenderWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: TASK_QUEUE,
    knex: testKnex(),
    renderer,
    politeness: createHostPoliteness(testKnex(), { perHost: 2, intervalMs: 50, leaseMs: 60_000, maxWaitMs: 60_000 }),
    concurrency: 1,
  });
  renderRun = renderWorker.run();
  app = testApiFor(env, TASK_QUEUE, { config });
  ({ auth, apiKey } = await createTestOrg('live web'));
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  renderWorker?.shutdown();
  await renderRun;
  await renderer?.close();
  await env?.teardown();
  await new Promise((r) => shop?.server.close(r));
  await new Promise((r) => searx?.server.close(r));
  await closeTestKnex();
});

const SCHEMA = [
  { name: 'brand', type: 'string', description: 'brand name' },
  { name: 'sku', type: 'string', description: 'seller SKU' },
];

/** The fetch outcomes the job's only row keeps in its evidence. */
async function rowFetches(jobId: string): Promise<FetchRecord[]> {
  const row = await testKnex()('enrichment_rows').where({ job_id: jobId, row_index: 0 }).first('evidence');
  return (row.evidence?.fetches ?? []) as FetchRecord[];
}

test('a page robots.txt forbids is never requested and the row says robots_denied for it', async () => {
  const res = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: [{ name: 'Hidden Widget' }], output_schema: SCHEMA, speed: 'fast' });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('completed');
  expect(hits('/private/hidden-widget')).toBe(0);
  expect(hits('/robots.txt')).toBeGreaterThanOrEqual(1);
  expect(await rowFetches(res.body.job_id)).toContainEqual(
    expect.objectContaining({ url: `${shop.base}/private/hidden-widget`, outcome: 'robots_denied', status: 0 }),
  );
  expect(res.body.results[0].after_data.brand).toBeUndefined();
}, 60_000);

test('429 with Retry-After reschedules the row through Temporal, then one success', async () => {
  const res = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: [{ name: 'Busy Widget' }], output_schema: SCHEMA, speed: 'fast' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'completed', successful: 1 });
  expect(res.body.results[0].after_data).toMatchObject({ brand: 'Acme', sku: 'BW-1' });
  expect(res.body.results[0].after_data.sources.brand).toEqual([`${shop.base}/busy-widget`]);
  expect(hits('/busy-widget')).toBe(2);
  expect((await rowFetches(res.body.job_id)).filter((f) => f.url === `${shop.base}/busy-widget`)).toEqual([
    expect.objectContaining({ outcome: 'ok', status: 200 }),
  ]);
  // The row activity's second attempt ran after a failure of type FetchRetryLater (no sleep in the activity).
  const history = await env.client.workflow.getHandle(enrichmentWorkflowId(res.body.job_id)).fetchHistory();
  const started = history.events!.map((e) => e.activityTaskStartedEventAttributes).filter((a) => a && a.attempt! > 1);
  expect(started).toContainEqual(expect.objectContaining({ attempt: 2 }));
  expect(started[0]!.lastFailure?.applicationFailureInfo?.type).toBe('FetchRetryLater');
}, 60_000);

test('evidence: every fetch is kept as WARC 1.1; evidence.wacz downloads, parses with warcio and its hashes verify; the source opens as captured', async () => {
  await testKnex()('fetch_robots').where('origin', shop.base).delete();
  const res = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: [{ name: 'Kept Widget' }], output_schema: SCHEMA, speed: 'fast', capture_source_artifacts: true });
  expect(res.status).toBe(200);
  const result = res.body.results[0];
  const pageUrl = `${shop.base}/kept-widget`;
  expect(result.after_data).toMatchObject({ brand: 'Globex', sku: 'KW-7' });
  expect(result.after_data.sources.brand).toEqual([pageUrl]);

  // The row's fetch outcomes point at their WARC records; the cited source maps to its capture.
  const fetches = await rowFetches(res.body.job_id);
  const kept = fetches.find((f) => f.url === pageUrl)!;
  expect(kept).toMatchObject({ outcome: 'ok', warc_record_id: expect.stringMatching(/^<urn:uuid:/) });
  const capture: string = result.review_info.source_captures[pageUrl];
  expect(capture).toBe(`${res.body.job_id}/${kept.warc_record_id!.slice('<urn:uuid:'.length, -1)}`);

  const wacz = await request(app).get(`/api/public/enrich/${res.body.job_id}/evidence.wacz`).set(auth).buffer(true).parse(bufferBody);
  expect(wacz.status).toBe(200);
  const zip = await JSZip.loadAsync(wacz.body as Buffer);
  const datapackage = JSON.parse(await zip.file('datapackage.json')!.async('string'));
  expect(datapackage).toMatchObject({ profile: 'data-package', wacz_version: '1.1.1' });
  expect(datapackage.resources.map((r: { path: string }) => r.path).sort()).toEqual(['archive/data.warc.gz', 'indexes/index.cdxj', 'pages/pages.jsonl']);
  for (const r of datapackage.resources as Array<{ path: string; hash: string; bytes: number }>) {
    const bytes = await zip.file(r.path)!.async('nodebuffer');
    expect(bytes.length).toBe(r.bytes);
    expect(r.hash).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
  }
  const digest = JSON.parse(await zip.file('datapackage-digest.json')!.async('string'));
  expect(digest.hash).toBe(
    `sha256:${createHash('sha256')
      .update(await zip.file('datapackage.json')!.async('nodebuffer'))
      .digest('hex')}`,
  );

  // The WARC holds robots.txt and the page as request/response pairs (WARC/1.1), readable by warcio.
  const records: Array<{ type: string; uri: string; status?: number; id: string; version: string; body: string }> = [];
  for await (const record of new WARCParser([await zip.file('archive/data.warc.gz')!.async('nodebuffer')])) {
    const body = Buffer.from(await record.readFully(true)).toString('utf8');
    records.push({
      type: String(record.warcType),
      uri: String(record.warcTargetURI),
      status: record.httpHeaders ? Number(record.httpHeaders.statusCode) : undefined,
      id: String(record.warcHeaders.headers.get('WARC-Record-ID')),
      version: String(record.warcHeaders.protocol),
      body,
    });
  }
  expect(records.every((r) => r.version === 'WARC/1.1')).toBe(true);
  expect(records).toContainEqual(expect.objectContaining({ type: 'request', uri: `${shop.base}/robots.txt` }));
  expect(records).toContainEqual(expect.objectContaining({ type: 'response', uri: `${shop.base}/robots.txt`, status: 200 }));
  expect(records).toContainEqual(expect.objectContaining({ type: 'request', uri: pageUrl }));
  const response = records.find((r) => r.id === kept.warc_record_id)!;
  expect(response).toMatchObject({ type: 'response', uri: pageUrl, status: 200 });
  expect(response.body).toContain('Kept Widget');
  const cdxj = await zip.file('indexes/index.cdxj')!.async('string');
  expect(cdxj).toMatch(/kept-widget \d{14} \{/);
  const pagesJsonl = (await zip.file('pages/pages.jsonl')!.async('string'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(pagesJsonl[0]).toMatchObject({ format: 'json-pages-1.0' });
  expect(pagesJsonl.map((p) => p.url)).toContain(pageUrl);

  // The source as it was seen, from its record, sandboxed.
  const [captureJob, captureRecord] = capture.split('/');
  const seen = await request(app).get(`/api/public/enrich/${captureJob}/captures/${captureRecord}`).set(auth);
  expect(seen.status).toBe(200);
  expect(seen.headers['content-security-policy']).toBe('sandbox');
  expect(seen.headers['content-type']).toMatch(/text\/html/);
  expect(seen.text).toContain('Kept Widget');
  expect(seen.headers['x-source-url']).toBe(pageUrl);
  // The review dashboard serves the same capture to a signed-in reviewer, sandboxed too.
  const login = await request(app).post('/dashboard/login').type('form').send({ credential: apiKey, next: '/dashboard' });
  expect(login.status).toBe(303);
  const cookie = (login.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
  const inDashboard = await request(app).get(`/dashboard/captures/${captureJob}/${captureRecord}`).set('Cookie', cookie);
  expect(inDashboard.status).toBe(200);
  expect(inDashboard.headers['content-security-policy']).toBe('sandbox');
  expect(inDashboard.text).toContain('Kept Widget');

  // A job that kept no evidence answers 404 with a reason.
  const plain = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: [{ name: 'Nothing' }], output_schema: SCHEMA, speed: 'fast' });
  const none = await request(app).get(`/api/public/enrich/${plain.body.job_id}/evidence.wacz`).set(auth);
  expect(none.status).toBe(404);
  expect(none.body.detail).toMatch(/capture_source_artifacts/);
}, 60_000);

test('a page whose JSON-LD a script inserts is rendered in Chromium by the render activity and read from the rendered DOM', async () => {
  const res = await request(app)
    .post('/api/public/enrich')
    .set(auth)
    .send({ items: [{ name: 'Script Widget' }], output_schema: SCHEMA, speed: 'fast' });
  expect(res.status).toBe(200);
  const result = res.body.results[0];
  const pageUrl = `${shop.base}/script-widget`;
  expect(result.after_data).toMatchObject({ brand: 'Scriptco', sku: 'SW-9' });
  expect(result.after_data.sources.brand).toEqual([pageUrl]);
  expect(result.review_info.field_methods).toMatchObject({ brand: 'rendered', sku: 'rendered' });
  // Fetched statically once, then loaded by the browser once.
  expect(hits('/script-widget')).toBe(2);
  expect(await rowFetches(res.body.job_id)).toContainEqual(expect.objectContaining({ url: pageUrl, outcome: 'ok', rendered: true }));
  const host = await testKnex()('fetch_hosts').where('host', new URL(shop.base).host).first('render_needed');
  expect(host.render_needed).toBe(true);
  // The render ran as its own activity on the render task queue.
  const history = await env.client.workflow.getHandle(enrichmentWorkflowId(res.body.job_id)).fetchHistory();
  const scheduled = history.events!.map((e) => e.activityTaskScheduledEventAttributes).filter((a) => a?.activityType?.name === 'renderRowPages');
  expect(scheduled).toHaveLength(1);
  expect(scheduled[0]!.taskQueue?.name).toBe(`${TASK_QUEUE}-render`);
}, 90_000);
