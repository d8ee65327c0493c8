/**
 * Image runs (issue 21, the routes behind `service_image_run` / `_status` / `_list`): upscale and
 * process on the organization's hosted media produce hosted results; generative tools are recorded
 * as failed with the reason; missing fields, foreign or unhosted images are 422; runs are org-scoped
 * and listed newest first; the routes are in the OpenAPI document.
 */
import sharp from 'sharp';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { enrichmentStorage, hostBytes } from '../../src/services/enrichment/artifacts';
import { testApp } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bufferBody } from '../helpers/wire';

const app = testApp().callback();
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
let imageUrl: string;

beforeAll(async () => {
  org = await createTestOrg('image runs');
  other = await createTestOrg('image runs, other');
  const png = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  imageUrl = (await hostBytes(testKnex(), enrichmentStorage(loadConfig()), org.organizationId, png, 'image/png', 'test:blue'))!;
});
afterAll(closeTestKnex);

/** Reads a hosted result back through the public media route and returns its size and format. */
async function hostedMeta(url: string): Promise<{ width?: number; height?: number; format?: string }> {
  const res = await request(app).get(new URL(url).pathname).buffer(true).parse(bufferBody);
  expect(res.status).toBe(200);
  return sharp(res.body as Buffer).metadata();
}

test('upscale fits the image into size and hosts the result', async () => {
  const res = await request(app).post('/api/public/image-runs').set(org.auth).send({ tool: 'upscale', image_url: imageUrl, size: '200x200' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ tool: 'upscale', status: 'completed', error: null, num_options: 1 });
  expect(res.body.result_urls).toHaveLength(1);
  expect(await hostedMeta(res.body.result_urls[0])).toMatchObject({ width: 200, height: 100, format: 'png' });
  const status = await request(app).get(`/api/public/image-runs/${res.body.run_id}`).set(org.auth);
  expect(status.body).toEqual(res.body);
});

test('process squares and re-encodes as the enrich request’s image_processing does', async () => {
  const res = await request(app)
    .post('/api/public/image-runs')
    .set(org.auth)
    .send({ tool: 'process', image_url: imageUrl, processing: { make_square: true, output_format: 'webp', min_side_px: 100 } });
  expect(res.body.status).toBe('completed');
  expect(await hostedMeta(res.body.result_urls[0])).toMatchObject({ width: 200, height: 200, format: 'webp' });
});

test('generative tools are recorded as failed with the reason', async () => {
  const res = await request(app).post('/api/public/image-runs').set(org.auth).send({ tool: 'generate', prompt: 'a red chair' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'failed', result_urls: [] });
  expect(res.body.error).toMatch(/image model provider/);
});

test('missing fields, unhosted and foreign images are 422; another organization cannot read a run', async () => {
  const post = (body: object, auth = org.auth) => request(app).post('/api/public/image-runs').set(auth).send(body);
  expect((await post({ tool: 'upscale' })).body.detail[0].loc).toEqual(['body', 'image_url']);
  expect((await post({ tool: 'inpaint', image_url: imageUrl, prompt: 'x' })).body.detail[0].loc).toEqual(['body', 'mask_url']);
  expect((await post({ tool: 'edit', image_url: imageUrl })).body.detail[0].loc).toEqual(['body', 'prompt']);
  expect((await post({ tool: 'upscale', image_url: 'https://example.com/a.png' })).status).toBe(422);
  expect((await post({ tool: 'upscale', image_url: imageUrl }, other.auth)).status).toBe(422);
  expect((await post({ tool: 'sharpen', image_url: imageUrl })).status).toBe(422);
  const mine = await post({ tool: 'upscale', image_url: imageUrl });
  expect((await request(app).get(`/api/public/image-runs/${mine.body.run_id}`).set(other.auth)).status).toBe(403);
  expect((await request(app).get(`/api/public/image-runs/00000000-0000-4000-8000-000000000000`).set(org.auth)).status).toBe(404);
});

test('list: newest first, filtered, with the total; the routes are documented in OpenAPI', async () => {
  const all = await request(app).get('/api/public/image-runs?limit=100').set(org.auth);
  expect(all.body.total).toBeGreaterThanOrEqual(4);
  const times = all.body.runs.map((r: { created_at: string }) => r.created_at);
  expect([...times].sort().reverse()).toEqual(times);
  const failed = await request(app).get('/api/public/image-runs?status=failed').set(org.auth);
  expect(failed.body.runs.every((r: { status: string }) => r.status === 'failed')).toBe(true);
  expect((await request(app).get('/api/public/image-runs').set(other.auth)).body).toEqual({ runs: [], total: 0 });
  const doc = await request(app).get('/api/openapi.json');
  expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/public/image-runs', '/api/public/image-runs/{run_id}']));
});
