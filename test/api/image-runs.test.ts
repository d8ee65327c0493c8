/**
 * Image runs (the routes behind `service_image_run` / `_status` / `_list`): upscale and
 * process on the organization's hosted media produce hosted results; generative tools are recorded
 * as failed with the reason; missing fields, foreign or unhosted images are 422; runs are org-scoped
 * and listed newest first; the routes are in the OpenAPI document. Called through the typed client
 * (packages/client); a tool outside the enum, the hosted media download and the OpenAPI document
 * itself (neither of them a route of the document) go through supertest.
 */
import sharp from 'sharp';
import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { loadConfig } from '../../src/config';
import { enrichmentStorage, hostBytes } from '../../src/services/enrichment/rows/artifacts';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bufferBody, type ValidationErrorBody } from '../helpers/wire';

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
let imageUrl: string;
/** The typed client with `org`'s credential. */
let api: CatalogClient;
/** `POST /api/public/image-runs`: the request body. */
type RunBody = paths['/api/public/image-runs']['post']['requestBody']['content']['application/json'];

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('image runs');
  other = await createTestOrg('image runs, other');
  api = typedClient(server, org.auth);
  const png = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  imageUrl = (await hostBytes(testKnex(), enrichmentStorage(loadConfig()), org.organizationId, png, 'image/png', 'test:blue'))!;
});
afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/**
 * Reads a hosted result back through the public media route and returns its size and format. The
 * media route is not in the OpenAPI document (and answers bytes), so supertest fetches it.
 */
async function hostedMeta(url: string): Promise<{ width?: number; height?: number; format?: string }> {
  const res = await request(server).get(new URL(url).pathname).buffer(true).parse(bufferBody);
  expect(res.status).toBe(200);
  return sharp(res.body as Buffer).metadata();
}

/** `POST /api/public/image-runs` with `body`, as `client` (default: `org`). */
const run = (body: RunBody, client: CatalogClient = api) => client.POST('/api/public/image-runs', { body });
/** `GET /api/public/image-runs/{run_id}`, as `client` (default: `org`). */
const getRun = (runId: string, client: CatalogClient = api) => client.GET('/api/public/image-runs/{run_id}', { params: { path: { run_id: runId } } });

test('upscale fits the image into size and hosts the result', async () => {
  const res = await run({ tool: 'upscale', image_url: imageUrl, size: '200x200' });
  expect(res.response.status).toBe(200);
  expect(res.data).toMatchObject({ tool: 'upscale', status: 'completed', error: null, num_options: 1 });
  expect(res.data!.result_urls).toHaveLength(1);
  expect(await hostedMeta(res.data!.result_urls[0])).toMatchObject({ width: 200, height: 100, format: 'png' });
  const status = await getRun(res.data!.run_id);
  expect(status.data).toEqual(res.data);
});

test('process squares and re-encodes as the enrich request’s image_processing does', async () => {
  const res = await run({ tool: 'process', image_url: imageUrl, processing: { make_square: true, output_format: 'webp', min_side_px: 100 } });
  expect(res.data!.status).toBe('completed');
  expect(await hostedMeta(res.data!.result_urls[0])).toMatchObject({ width: 200, height: 200, format: 'webp' });
});

test('generative tools are recorded as failed with the reason', async () => {
  const res = await run({ tool: 'generate', prompt: 'a red chair' });
  expect(res.response.status).toBe(200);
  expect(res.data).toMatchObject({ status: 'failed', result_urls: [] });
  expect(res.data!.error).toMatch(/image model provider/);
});

test('missing fields, unhosted and foreign images are 422; another organization cannot read a run', async () => {
  const detail = async (body: RunBody) => ((await run(body)).error as ValidationErrorBody).detail;
  const foreign = typedClient(server, other.auth);
  expect((await detail({ tool: 'upscale' }))[0].loc).toEqual(['body', 'image_url']);
  expect((await detail({ tool: 'inpaint', image_url: imageUrl, prompt: 'x' }))[0].loc).toEqual(['body', 'mask_url']);
  expect((await detail({ tool: 'edit', image_url: imageUrl }))[0].loc).toEqual(['body', 'prompt']);
  expect((await run({ tool: 'upscale', image_url: 'https://example.com/a.png' })).response.status).toBe(422);
  expect((await run({ tool: 'upscale', image_url: imageUrl }, foreign)).response.status).toBe(422);
  // A tool outside the enum: the client's types refuse it, so supertest sends it.
  expect((await request(server).post('/api/public/image-runs').set(org.auth).send({ tool: 'sharpen', image_url: imageUrl })).status).toBe(422);
  const mine = await run({ tool: 'upscale', image_url: imageUrl });
  expect((await getRun(mine.data!.run_id, foreign)).response.status).toBe(403);
  expect((await getRun('00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
});

test('list: newest first, filtered, with the total; the routes are documented in OpenAPI', async () => {
  const all = await api.GET('/api/public/image-runs', { params: { query: { limit: 100 } } });
  expect(all.data!.total).toBeGreaterThanOrEqual(4);
  const times = all.data!.runs.map((r) => r.created_at);
  expect([...times].sort().reverse()).toEqual(times);
  const failed = await api.GET('/api/public/image-runs', { params: { query: { status: 'failed' } } });
  expect(failed.data!.runs.every((r) => r.status === 'failed')).toBe(true);
  expect((await typedClient(server, other.auth).GET('/api/public/image-runs')).data).toEqual({ runs: [], total: 0 });
  // The document itself is not one of its routes: supertest reads it.
  const doc = await request(server).get('/api/openapi.json');
  expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/public/image-runs', '/api/public/image-runs/{run_id}']));
});
