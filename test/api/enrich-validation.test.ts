/**
 * Validation of `POST /api/public/enrich` and the job routes for unknown and foreign jobs. Called
 * through the typed client (packages/client); bodies and queries its types refuse (unknown keys,
 * wrong types, values outside the enums, a missing required key) and malformed JSON go through
 * supertest.
 */
import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { enrichmentWorkflowId } from '../../src/contracts/workflows';
import { bodyOf, ValidationErrorBody } from '../helpers/wire';

/** `POST /api/public/enrich`: the JSON body. */
type EnrichBody = NonNullable<paths['/api/public/enrich']['post']['requestBody']>['content']['application/json'];
/** A field of `output_schema`. */
type OutputField = NonNullable<EnrichBody['output_schema']>[number];

const field: OutputField = { name: 'brand', type: 'string', description: 'Brand of the product' };

let server: Server;
beforeAll(async () => {
  server = await listenTestApp();
});
afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** Counts rows an enrich request could have written, to prove a refused request wrote nothing. */
async function jobRowCount(organizationId: string): Promise<number> {
  const [{ count }] = await testKnex()('enrichment_jobs').where({ organization_id: organizationId }).count({ count: '*' });
  return Number(count);
}

describe('POST /api/public/enrich validation (docs/api-enrichment.md "Enrichment jobs"; docs/api-reference.md "Errors")', () => {
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  /** The typed client with `org`'s credential. */
  let api: CatalogClient;
  /** `POST /api/public/enrich` with `body` through the typed client. */
  const post = (body: EnrichBody) => api.POST('/api/public/enrich', { body });
  /** `POST /api/public/enrich` with a body the client's types refuse, through supertest. */
  const postUntyped = (body: Record<string, unknown>) => request(server).post('/api/public/enrich').set(org.auth).send(body);

  beforeAll(async () => {
    org = await createTestOrg('enrich validation');
    api = typedClient(server, org.auth);
  });
  afterEach(async () => {
    expect(await jobRowCount(org.organizationId)).toBe(0);
  });

  it('rejects unknown keys with 422 extra_forbidden at the key', async () => {
    const res = await postUntyped({ items: [{ name: 'x' }], output_schema: [field], bogus: 1 });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContainEqual({ loc: ['body', 'bogus'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
  });

  it('rejects malformed JSON with 422 json_invalid', async () => {
    const res = await request(server).post('/api/public/enrich').set(org.auth).set('Content-Type', 'application/json').send('{"items": [');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('requires items and output_schema', async () => {
    const res = await post({});
    expect(res.response.status).toBe(422);
    const locs = (res.error as ValidationErrorBody).detail.map((d) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.items', 'body.output_schema']));
  });

  it('checks output field types, enum values and names', async () => {
    // A type and a speed outside the enums and a field without its description: the client's types refuse them, so supertest sends them.
    const res = await postUntyped({ items: [{ name: 'x' }], output_schema: [{ name: 'a', type: 'date', description: 'd' }, { name: 'b' }], speed: 'warp' });
    expect(res.status).toBe(422);
    const locs = bodyOf<ValidationErrorBody>(res).detail.map((d) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.output_schema.0.type', 'body.output_schema.1.description', 'body.speed']));
  });

  it('rejects duplicate output field names', async () => {
    const res = await post({ items: [{ name: 'x' }], output_schema: [field, field] });
    expect(res.response.status).toBe(422);
    expect((res.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'output_schema', 1, 'name']);
  });

  it('caps inline items at 1000', async () => {
    const res = await post({ items: Array.from({ length: 1001 }, (_, i) => ({ name: `item ${i}` })), output_schema: [field] });
    expect(res.response.status).toBe(422);
    expect((res.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'items']);
  });

  it('answers 413 for a body over 10 MB', async () => {
    const big = 'x'.repeat(11 * 1024 * 1024);
    const res = await post({ items: [{ name: big }], output_schema: [field] });
    expect(res.response.status).toBe(413);
    expect(res.error).toEqual({ detail: 'Request body too large' });
  });

  it('refuses the internal items_storage_url (docs/api-enrichment.md "Enrichment jobs")', async () => {
    // The internal key is not in the document: the client's types refuse it, so supertest sends it.
    const res = await postUntyped({ items: [{ name: 'x' }], output_schema: [field], items_storage_url: 'https://example.com/items.json' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'items_storage_url'], type: 'extra_forbidden' });
  });

  it("answers 404 for an unknown catalog_id and 403 for another organization's catalog", async () => {
    const unknown = await post({ items: [{ name: 'x' }], output_schema: [field], catalog_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.response.status).toBe(404);
    const other = await createTestOrg('other');
    const catalogId = '11111111-1111-4111-8111-' + String(Date.now()).padStart(12, '0').slice(-12);
    await testKnex()('catalogs').insert({
      id: catalogId,
      organization_id: other.organizationId,
      name: 'theirs',
      unique_id_field: 'sku',
      current_schema_version: '1.0.0',
      created_by_user_id: 'test',
    });
    const foreign = await post({ items: [{ name: 'x' }], output_schema: [field], catalog_id: catalogId });
    expect(foreign.response.status).toBe(403);
  });
});

describe('job routes for unknown and foreign jobs', () => {
  /** `GET /api/public/enrich/{job_id}` as `api`. */
  const poll = (api: CatalogClient, jobId: string) => api.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: jobId } } });
  /** `POST /api/public/enrich/{job_id}/cancel` as `api`. */
  const cancel = (api: CatalogClient, jobId: string) => api.POST('/api/public/enrich/{job_id}/cancel', { params: { path: { job_id: jobId } } });

  it('answers 404 {detail: "Job not found"} for unknown and malformed ids, 403 for another organization', async () => {
    const org = await createTestOrg('poller');
    const api = typedClient(server, org.auth);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await poll(api, id);
      expect(res.response.status).toBe(404);
      expect(res.error).toEqual({ detail: 'Job not found' });
      expect((await cancel(api, id)).response.status).toBe(404);
    }
    const other = await createTestOrg('owner');
    const knex = testKnex();
    const jobId = '22222222-2222-4222-8222-' + String(Date.now()).padStart(12, '0').slice(-12);
    await knex('review_activities').insert({ id: jobId, organization_id: other.organizationId, type: 'enrichment', status: 'running' });
    await knex('enrichment_jobs').insert({
      id: jobId,
      organization_id: other.organizationId,
      status: 'running',
      config: {},
      total_rows: 0,
      total_items: 0,
      workflow_id: enrichmentWorkflowId(jobId),
    });
    expect((await poll(api, jobId)).response.status).toBe(403);
    expect((await cancel(api, jobId)).response.status).toBe(403);
  });

  it('validates poll and list queries', async () => {
    const org = await createTestOrg('queries');
    // A status outside the enum: the client's types refuse it, so supertest sends the query.
    const bad = await request(server).get('/api/public/enrich/jobs?limit=500&status=done').set(org.auth);
    expect(bad.status).toBe(422);
    expect(bodyOf<ValidationErrorBody>(bad).detail.map((d) => d.loc.join('.'))).toEqual(expect.arrayContaining(['query.limit', 'query.status']));
  });
});
