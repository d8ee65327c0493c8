/**
 * The review API's OpenAPI document (every review route under both prefixes and the webhook
 * secret routes; answers match the documented responses) and the review fixes beside it
 * (snapshot system columns in bulk upserts, `variant_mode`), on the real PostgreSQL through the
 * typed client (packages/client). The review routes themselves: test/api/review-activities.test.ts.
 */
import request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Server } from 'node:http';
import type { CatalogClient } from '@catalog-enrichment/client';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestCatalog } from '../helpers/catalogs';
import { act, reviewActivityShell, reviewCalls, reviewCatalog } from '../helpers/review-calls';

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with `org`'s credential. */
let api: CatalogClient;

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('review openapi');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** A catalog of `org` with the test schema and `n` items SKU-0… (through the bulk route). */
const catalogWithItems = (n: number) => reviewCatalog(api, org.organizationId, n);
/** A `custom_transform` activity shell of `catalogId`. */
const shell = (catalogId: string) => reviewActivityShell(api, catalogId);
const append = (...a: Parameters<ReturnType<typeof reviewCalls>['append']>) => reviewCalls(api).append(...a);
const listChanges = (aid: string) => reviewCalls(api).listChanges(aid);
const listActivities = (catalogId: string) => reviewCalls(api).listActivities(catalogId);
const getActivity = (aid: string) => reviewCalls(api).getActivity(aid);
const getSummary = (aid: string) => reviewCalls(api).getSummary(aid);
const cancel = (aid: string) => reviewCalls(api).cancel(aid);

describe('bulk upserts and catalog fields the review path relies on', () => {
  it('bulk upserts recognise the snapshot-row system columns and never store them as data', async () => {
    const { catalogId, ids } = await catalogWithItems(1);
    const res = await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', {
      params: { path: { catalog_id: catalogId } },
      body: {
        items: [
          { __catalog_item_id: ids[0], __entity_type: 'product', __parent_id: '', __current_version: '1', sku: 'SKU-0', title: 'Renamed' },
          { __catalog_item_id: '', __entity_type: '', __parent_id: '', __current_version: '', sku: 'SKU-NEW', title: 'New' },
        ],
      },
    });
    expect(res.data).toMatchObject({ items_updated: 1, items_created: 1, items_failed: 0 });
    const rows = await testKnex()('catalog_items').where({ catalog_id: catalogId }).orderBy('business_key').select('id', 'data');
    expect(rows).toHaveLength(2);
    for (const r of rows as Array<{ data: Record<string, unknown> }>) expect(Object.keys(r.data).filter((k) => k.startsWith('__'))).toEqual([]);
    expect(rows.find((r: { id: string }) => r.id === ids[0]).data.title).toBe('Renamed');
  });

  it('catalogs carry variant_mode beside product_enabled', async () => {
    const grouped = await createTestCatalog(org.organizationId, { product_enabled: true, product_id_field: 'product_id' });
    const flat = await createTestCatalog(org.organizationId);
    const g = await api.GET('/api/public/catalogs/{catalog_id}', { params: { path: { catalog_id: grouped } } });
    const f = await api.GET('/api/public/catalogs/{catalog_id}', { params: { path: { catalog_id: flat } } });
    expect(g.data).toMatchObject({ product_enabled: true, variant_mode: 'product_grouped' });
    expect(f.data).toMatchObject({ product_enabled: false, variant_mode: 'none' });
  });
});

describe('OpenAPI', () => {
  it('documents every review route under both prefixes and the webhook secret routes; answers match the documented responses', async () => {
    const doc = (await request(server).get('/api/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: { 'application/json': { schema: object } } }> }>>;
    };
    const expected: Array<[string, string]> = [
      ['/api/public/catalogs/{catalog_id}/activities', 'get'],
      ['/api/public/catalogs/{catalog_id}/activities', 'post'],
      ['/api/public/catalogs/{catalog_id}/activities/custom-transform', 'post'],
      ['/api/public/organization/webhook-secret', 'get'],
      ['/api/public/organization/webhook-secret/rotate', 'post'],
    ];
    for (const prefix of ['/api/public', '/api']) {
      expected.push(
        [`${prefix}/activities/{activity_id}`, 'get'],
        [`${prefix}/activities/{activity_id}/staged-changes`, 'get'],
        [`${prefix}/activities/{activity_id}/staged-changes/summary`, 'get'],
        [`${prefix}/activities/{activity_id}/staged-changes/append`, 'post'],
        [`${prefix}/activities/{activity_id}/pending-review`, 'post'],
        [`${prefix}/activities/{activity_id}/submit`, 'post'],
        [`${prefix}/activities/{activity_id}/staged-changes/bulk-review`, 'post'],
        [`${prefix}/activities/{activity_id}/cancel`, 'post'],
      );
    }
    for (const [p, m] of expected) expect([p, m, doc.paths[p]?.[m] !== undefined]).toEqual([p, m, true]);

    const ajv = addFormats(new Ajv2020({ strict: false }));
    const check = (path: string, method: string, body: unknown) => {
      const schema = doc.paths[path][method].responses['200'].content!['application/json'].schema;
      expect([path, ajv.validate(schema, body), ajv.errorsText()]).toEqual([path, true, 'No errors']);
    };
    const { catalogId, ids } = await catalogWithItems(1);
    const aid = await shell(catalogId);
    const appended = await append(aid, { staged_changes: [{ catalog_item_id: ids[0], after_data: { price: 2 } }] });
    check('/api/public/activities/{activity_id}/staged-changes/append', 'post', appended.data);
    check('/api/activities/{activity_id}', 'get', (await getActivity(aid)).data);
    check('/api/activities/{activity_id}/staged-changes', 'get', (await listChanges(aid)).data);
    check('/api/activities/{activity_id}/staged-changes/summary', 'get', (await getSummary(aid)).data);
    check('/api/public/catalogs/{catalog_id}/activities', 'get', (await listActivities(catalogId)).data);
    check(
      '/api/public/activities/{activity_id}/pending-review',
      'post',
      (await api.POST('/api/public/activities/{activity_id}/pending-review', { ...act(aid), body: {} })).data,
    );
    check('/api/activities/{activity_id}/submit', 'post', (await api.POST('/api/activities/{activity_id}/submit', { ...act(aid), body: {} })).data);
    check('/api/activities/{activity_id}/cancel', 'post', (await cancel(aid)).data);
    check('/api/public/organization/webhook-secret', 'get', (await api.GET('/api/public/organization/webhook-secret')).data);
  });
});
