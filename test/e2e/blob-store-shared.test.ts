/**
 * Files every process reaches: an API and a worker with DIFFERENT data directories
 * and one blob store. What the worker writes (source artifacts, the row's evidence WARC, hosted
 * media) is served by the API's file routes, and nothing lands in either data directory. Run on
 * both backends: a shared folder (BLOB_DIR) and an S3-compatible server on 127.0.0.1 (s3rver).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadConfig, type Config } from '../../src/config';
import type { FetchedPage } from '../../src/enrichment/research/types';
import type { EngineUsage, EnrichInput, EnrichmentEngine, EnrichmentResult, Evidence } from '../../src/enrichment/types';
import { enrichmentStorage } from '../../src/services/enrichment/rows/artifacts';
import { contentKey } from '../../src/lib/blob-store';
import { createBlobStore } from '../../src/lib/blob-stores';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { startS3Server, type TestS3Server } from '../helpers/s3-server';
import { runTestWorker, startTestTemporal, testApiFor, type RunningTestWorker } from '../helpers/temporal';
import { bufferBody } from '../helpers/wire';

const QUEUE = 'test-blob-store-shared';
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2213fbc0000000049454e44ae426082',
  'hex',
);
const NO_USAGE: EngineUsage = { search_calls: 0, pages_fetched: 0, llm_calls: 0, llm_prompt_tokens: 0, llm_completion_tokens: 0 };

/** An engine that "fetches" one product page (reported through on_fetched) naming a PNG image. */
function pageEngine(): EnrichmentEngine {
  const fetcher = {
    async fetch(url: string): Promise<FetchedPage> {
      const base = { url, final_url: url, fetched_at: '2026-11-27T00:00:00.000Z', status: 200 };
      if (url.endsWith('.png')) return { ...base, content_type: 'image/png', body: PNG };
      const body = Buffer.from(`<html><title>${url}</title><h1>Acme</h1></html>`);
      const exchange = { url, started_at: base.fetched_at, request_headers: [['Host', 'shop.example']] as Array<[string, string]>, status: 200 };
      const headers: Array<[string, string]> = [['Content-Type', 'text/html; charset=utf-8']];
      return { ...base, content_type: 'text/html; charset=utf-8', body, exchanges: [{ ...exchange, response_headers: headers, body }] };
    },
  };
  const research = async (input: EnrichInput) => {
    const url = `https://shop.example/${String(input.item.name).replace(/\W+/g, '-')}`;
    input.options.on_fetched?.(await fetcher.fetch(url));
    const evidence: Evidence = { queries: [String(input.item.name)], search_results: [], documents: [{ url, brand: 'Acme' }] };
    return { evidence, usage: NO_USAGE };
  };
  const extract = async (input: EnrichInput, evidence: Evidence) => {
    const url = String((evidence.documents[0] as { url: string }).url);
    const result: EnrichmentResult = {
      original_data: input.item,
      after_data: {
        ...input.item,
        brand: 'Acme',
        images: ['https://img.example/photo.png'],
        sources: { brand: [url] },
        source_explanations: { brand: `From ${url}.` },
      },
      all_sources: [url],
      review_info: { reasoning: 'test', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
    };
    return { result, usage: NO_USAGE };
  };
  return {
    fetcher,
    research,
    extract,
    async enrich(input: EnrichInput) {
      const { evidence } = await research(input);
      return { result: (await extract(input, evidence)).result, evidence, usage: NO_USAGE };
    },
  };
}

const dirs = { blobs: '', api: '', worker: '' };
let env: TestWorkflowEnvironment;
let s3: TestS3Server;

/** A process's configuration: its own DATA_DIR, the shared blob store of `backend`. */
function processConfig(dataDir: string, backend: 'filesystem' | 's3'): Config {
  const store = backend === 's3' ? s3.env : { BLOB_DIR: dirs.blobs, S3_BUCKET: '' };
  return loadConfig({ ...process.env, DATA_DIR: dataDir, PUBLIC_URL: 'https://svc.test', ...store });
}

/** Files under `dir` (relative), recursively. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

/** The raw bytes of a supertest response. */
const raw = (r: request.Test) => r.buffer(true).parse(bufferBody);

beforeAll(async () => {
  for (const k of Object.keys(dirs) as Array<keyof typeof dirs>) dirs[k] = fs.mkdtempSync(path.join(os.tmpdir(), `blob-shared-${k}-`));
  env = await startTestTemporal();
  s3 = await startS3Server(fs.mkdtempSync(path.join(dirs.blobs, 's3-')));
}, 180_000);

afterAll(async () => {
  await s3?.close();
  await env?.teardown();
  await closeTestKnex();
  for (const dir of Object.values(dirs)) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(['filesystem', 's3'] as const)('on the %s blob store', (backend) => {
  let worker: RunningTestWorker;
  let api: ReturnType<typeof testApiFor>;
  beforeAll(async () => {
    const queue = `${QUEUE}-${backend}`;
    worker = await runTestWorker(env, {
      taskQueue: queue,
      knex: testKnex(),
      engine: pageEngine(),
      storage: enrichmentStorage(processConfig(dirs.worker, backend)),
    });
    api = testApiFor(env, queue, { config: processConfig(dirs.api, backend) });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
  });

  test('artifacts, the evidence WARC and hosted media written by the worker are served by the API', async () => {
    const org = await createTestOrg('blob store shared');
    const res = await request(api)
      .post('/api/public/enrich')
      .set(org.auth)
      .send({
        items: [{ name: 'Acme kettle' }],
        output_schema: [
          { name: 'brand', type: 'string', description: 'Brand' },
          { name: 'images', type: 'array', array_element_type: 'image_url', description: 'Product images' },
        ],
        capture_source_artifacts: true,
        host_media: true,
      });
    expect(res.status).toBe(200);
    const [result] = res.body.results;
    const artifacts = result.source_artifacts as Array<{ url: string; sha256: string; content_type: string }>;
    const page = artifacts.find((a) => a.url === 'https://shop.example/Acme-kettle')!;
    expect(page).toBeDefined();
    const got = await raw(request(api).get(`/api/public/artifacts/${page.sha256}`).set(org.auth));
    expect(got.status).toBe(200);
    expect(createHash('sha256').update(got.body).digest('hex')).toBe(page.sha256);

    const wacz = await raw(request(api).get(`/api/public/enrich/${res.body.job_id}/evidence.wacz`).set(org.auth));
    expect(wacz.status).toBe(200);
    expect(wacz.headers['content-type']).toBe('application/wacz');

    const hosted = new URL(result.after_data.images[0]).pathname;
    expect(hosted).toMatch(/^\/api\/public\/media\/[0-9a-f]{64}\.png$/);
    const media = await raw(request(api).get(hosted));
    expect(media.status).toBe(200);
    expect(Buffer.from(media.body).equals(PNG)).toBe(true);

    // Everything is in the shared store; neither process's own data directory holds a blob.
    expect(await createBlobStore(processConfig(dirs.api, backend).blobStore).head(contentKey('artifacts', page.sha256))).not.toBeNull();
    expect(filesUnder(dirs.worker)).toEqual([]);
    expect(filesUnder(dirs.api).filter((f) => !f.startsWith('uploads'))).toEqual([]);
  }, 120_000);
});
