import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import type { ValidationErrorBody } from '../helpers/wire';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';

/**
 * Catalog CRUD, duplicate, catalog-md and quality prompt over HTTP (docs/api-reference.md "Catalogs"), including organization isolation. Called through the
 * typed client (packages/client); malformed JSON and bodies of the wrong type, which the client's
 * types refuse, go through supertest.
 */

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
/** The typed client with `org`'s credential. */
let api: CatalogClient;
/** The HTTP methods the catalog routes answer (supertest's method names). */
type Method = 'get' | 'put' | 'post' | 'delete';
/** `POST /api/public/catalogs`: the request body. */
type CreateBody = paths['/api/public/catalogs']['post']['requestBody']['content']['application/json'];
/** A catalog as the catalog routes answer it. */
type Catalog = paths['/api/public/catalogs']['post']['responses'][200]['content']['application/json'];
/** The typed client with `auth`'s credential. */
const as = (auth: Record<string, string>): CatalogClient => typedClient(server, auth);
/** `{ params: { path: { catalog_id } } }` of a catalog route. */
const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });

const schemaDefinition = {
  type: 'object',
  properties: {
    sku: { type: 'string', description: 'Stock keeping unit' },
    title: { type: 'string' },
    price: { type: 'number', unit: 'EUR' },
    summary: { type: 'string', 'x-field-category': 'enriched' },
  },
  required: ['sku'],
};

function createBody(overrides: Partial<CreateBody> = {}): CreateBody {
  return { name: 'Shoes', description: 'Running shoes', unique_id_field: 'sku', schema_definition: schemaDefinition, catalog_md: '# Shoes', ...overrides };
}

/** `createBody` with `overrides` for the 422 cases the client's types refuse (wrong types, unknown keys): sent through supertest. */
function untypedBody(overrides: Record<string, unknown>): Record<string, unknown> {
  return { ...createBody(), ...overrides };
}

async function createCatalog(auth: Record<string, string>, overrides: Partial<CreateBody> = {}): Promise<Catalog> {
  const { data, response } = await as(auth).POST('/api/public/catalogs', { body: createBody(overrides) });
  expect(response.status).toBe(200);
  return data!;
}

async function counts(organizationId: string): Promise<{ catalogs: number; schemas: number; md: number }> {
  const knex = testKnex();
  const ids = knex('catalogs').select('id').where('organization_id', organizationId);
  const [c] = await knex('catalogs').where('organization_id', organizationId).count({ n: '*' });
  const [s] = await knex('catalog_schemas').whereIn('catalog_id', ids).count({ n: '*' });
  const [m] = await knex('catalog_md_versions').whereIn('catalog_id', ids).count({ n: '*' });
  return { catalogs: Number(c.n), schemas: Number(s.n), md: Number(m.n) };
}

const ISO_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('catalogs org');
  other = await createTestOrg('other org');
  api = as(org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

describe('POST /api/public/catalogs', () => {
  it('creates a catalog with schema 1.0.0 and derived field info', async () => {
    const c = await createCatalog(org.auth, { product_id_field: 'product_id', strict_mode: true });
    expect(c).toMatchObject({
      organization_id: org.organizationId,
      name: 'Shoes',
      description: 'Running shoes',
      current_schema_version: '1.0.0',
      unique_id_field: 'sku',
      product_id_field: 'product_id',
      product_enabled: true,
      auto_evolve_schema: false,
      strict_mode: true,
      item_count: 0,
      created_by_user_id: expect.stringMatching(/^api_key:/),
    });
    expect(c.created_at).toMatch(ISO_Z);
    expect(c.updated_at).toMatch(ISO_Z);
    expect(c.schema).toMatchObject({
      catalog_id: c.id,
      version: '1.0.0',
      backward_compatible: true,
      migration_rules: null,
      schema_definition: schemaDefinition,
      total_fields: 4,
      input_fields_count: 3,
      generated_fields_count: 1,
    });
    expect(c.schema!.fields_workflow_info!.map((f) => f.field_name)).toEqual(['sku', 'title', 'price', 'summary']);
    expect(c.schema!.fields_workflow_info![0]).toMatchObject({
      field_type: 'string',
      required: true,
      description: 'Stock keeping unit',
      field_category: 'input',
      scope: 'variant',
      added_in_version: '1.0.0',
    });
    expect(c.schema!.fields_workflow_info![2]).toMatchObject({ field_name: 'price', unit: 'EUR', required: false });
    const md = await api.GET('/api/public/catalogs/{catalog_id}/catalog-md', cat(c.id));
    expect(md.data).toMatchObject({ catalog_id: c.id, catalog_md: '# Shoes', version: 1 });
  });

  // Wrong types and unknown keys: the client's types refuse these bodies, so supertest sends them.
  it.each([
    ['missing name', { name: undefined }, ['body', 'name'], 'missing'],
    ['name of the wrong type', { name: 42 }, ['body', 'name'], 'type_error'],
    ['strict_mode of the wrong type', { strict_mode: 'yes' }, ['body', 'strict_mode'], 'type_error'],
    ['unknown key', { colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
  ])('rejects %s with 422 and writes nothing', async (_label, overrides, loc, type) => {
    const before = await counts(org.organizationId);
    const res = await request(server).post('/api/public/catalogs').set(org.auth).send(untypedBody(overrides));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await counts(org.organizationId)).toEqual(before);
  });

  it.each<[string, Partial<CreateBody>, Array<string | number>, string]>([
    ['empty name', { name: '' }, ['body', 'name'], 'value_error.minLength'],
    ['name over 100 characters', { name: 'x'.repeat(101) }, ['body', 'name'], 'value_error.maxLength'],
    ['schema without properties', { schema_definition: { type: 'object' } }, ['body', 'schema_definition', 'properties'], 'missing'],
    [
      'schema that is not JSON Schema',
      { schema_definition: { properties: { a: { type: 'colour' } } } },
      ['body', 'schema_definition', 'properties', 'a', 'type'],
      'value_error.json_schema',
    ],
    [
      'required field not among properties',
      { schema_definition: { properties: { a: { type: 'string' } }, required: ['b'] } },
      ['body', 'schema_definition', 'required', 0],
      'value_error',
    ],
    ['non-object schema type', { schema_definition: { type: 'array', properties: {} } }, ['body', 'schema_definition', 'type'], 'value_error'],
    ['defaults without a master catalog', { use_master_catalog_defaults: true }, ['body', 'master_catalog_id'], 'missing'],
  ])('rejects %s with 422 and writes nothing', async (_label, overrides, loc, type) => {
    const before = await counts(org.organizationId);
    const res = await api.POST('/api/public/catalogs', { body: createBody(overrides) });
    expect(res.response.status).toBe(422);
    expect((res.error as ValidationErrorBody).detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await counts(org.organizationId)).toEqual(before);
  });

  it('rejects malformed JSON with 422 json_invalid', async () => {
    const before = await counts(org.organizationId);
    const res = await request(server).post('/api/public/catalogs').set(org.auth).set('Content-Type', 'application/json').send('{"name": "x",');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    expect(await counts(org.organizationId)).toEqual(before);
  });

  it('inherits taxonomy, context and quality prompt from a master catalog when asked', async () => {
    const master = await createCatalog(org.auth, { name: 'Master', catalog_md: '# Master context' });
    expect((await api.PUT('/api/public/catalogs/{catalog_id}/quality-prompt', { ...cat(master.id), body: { prompt: 'Be strict' } })).response.status).toBe(200);
    expect(
      (await api.PUT('/api/public/catalogs/{catalog_id}/taxonomy', { ...cat(master.id), body: { name: 'T', nodes: { a: { name: 'A', parent: null } } } }))
        .response.status,
    ).toBe(200);
    const c = await createCatalog(org.auth, { name: 'Child', catalog_md: undefined, master_catalog_id: master.id, use_master_catalog_defaults: true });
    expect(c).toMatchObject({ master_catalog_id: master.id, use_master_catalog_defaults: true });
    expect((await api.GET('/api/public/catalogs/{catalog_id}/catalog-md', cat(c.id))).data?.catalog_md).toBe('# Master context');
    expect((await api.GET('/api/public/catalogs/{catalog_id}/quality-prompt', cat(c.id))).data?.prompt).toBe('Be strict');
    expect((await api.GET('/api/public/catalogs/{catalog_id}/taxonomy', cat(c.id))).data?.nodes?.a.path).toEqual(['A']);
  });

  it("refuses another organization's master catalog with 403", async () => {
    const foreign = await createCatalog(other.auth);
    const before = await counts(org.organizationId);
    const res = await api.POST('/api/public/catalogs', { body: createBody({ master_catalog_id: foreign.id }) });
    expect(res.response.status).toBe(403);
    expect(await counts(org.organizationId)).toEqual(before);
  });
});

describe('GET /api/public/catalogs', () => {
  it('pages newest first with total_count, page and page_size', async () => {
    const fresh = await createTestOrg('list org');
    for (let i = 0; i < 5; i++) await createCatalog(fresh.auth, { name: `C${i}` });
    const res = await as(fresh.auth).GET('/api/public/catalogs', { params: { query: { limit: 2, offset: 2 } } });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ total_count: 5, page: 2, page_size: 2 });
    expect(res.data!.catalogs.map((c) => c.name)).toEqual(['C2', 'C1']);
    expect(Object.keys(res.data!.catalogs[0]).sort()).toEqual([
      'auto_evolve_schema',
      'created_at',
      'current_schema_version',
      'description',
      'id',
      'item_count',
      'name',
      'strict_mode',
    ]);
    const def = await as(fresh.auth).GET('/api/public/catalogs');
    expect(def.data).toMatchObject({ total_count: 5, page: 1, page_size: 10 });
    expect(def.data!.catalogs).toHaveLength(5);
  });

  it.each<[string, 'limit' | 'offset', number]>([
    ['limit=0', 'limit', 0],
    ['limit=101', 'limit', 101],
    ['offset=-1', 'offset', -1],
  ])('rejects %s with 422', async (_qs, field, value) => {
    const res = await api.GET('/api/public/catalogs', { params: { query: { [field]: value } } });
    expect(res.response.status).toBe(422);
    expect((res.error as ValidationErrorBody).detail[0].loc).toEqual(['query', field]);
  });

  // A query value of the wrong type: the client's types refuse it, so supertest sends it.
  it.each([['limit=abc', 'limit']])('rejects %s with 422', async (qs, field) => {
    const res = await request(server).get(`/api/public/catalogs?${qs}`).set(org.auth);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', field]);
  });

  it("never lists another organization's catalogs", async () => {
    const foreign = await createCatalog(other.auth, { name: 'Foreign' });
    const res = await api.GET('/api/public/catalogs', { params: { query: { limit: 100 } } });
    expect(res.data!.catalogs.map((c) => c.id)).not.toContain(foreign.id);
  });
});

describe('GET / PUT / DELETE /api/public/catalogs/:id', () => {
  it('gets a catalog with its schema', async () => {
    const c = await createCatalog(org.auth);
    const res = await api.GET('/api/public/catalogs/{catalog_id}', cat(c.id));
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual(c);
  });

  it('changes only the provided fields and versions catalog_md', async () => {
    const c = await createCatalog(org.auth);
    const res = await api.PUT('/api/public/catalogs/{catalog_id}', { ...cat(c.id), body: { strict_mode: true, catalog_md: '# v2' } });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ name: 'Shoes', description: 'Running shoes', strict_mode: true, auto_evolve_schema: false });
    expect(new Date(res.data!.updated_at!).getTime()).toBeGreaterThanOrEqual(new Date(c.updated_at!).getTime());
    const md = await api.GET('/api/public/catalogs/{catalog_id}/catalog-md', cat(c.id));
    expect(md.data).toMatchObject({ catalog_md: '# v2', version: 2 });
    const renamed = await api.PUT('/api/public/catalogs/{catalog_id}', { ...cat(c.id), body: { name: 'Boots', description: null } });
    expect(renamed.data).toMatchObject({ name: 'Boots', description: null, strict_mode: true });
  });

  it('honours X-Organization-Id of the caller and refuses one the key does not belong to', async () => {
    const c = await createCatalog(org.auth);
    const own = await api.PUT('/api/public/catalogs/{catalog_id}', {
      params: { path: { catalog_id: c.id }, header: { 'X-Organization-Id': org.organizationId } },
      body: { name: 'Mine' },
    });
    expect(own.response.status).toBe(200);
    const foreign = await api.PUT('/api/public/catalogs/{catalog_id}', {
      params: { path: { catalog_id: c.id }, header: { 'X-Organization-Id': other.organizationId } },
      body: { name: 'Theirs' },
    });
    expect(foreign.response.status).toBe(403);
    expect((await api.GET('/api/public/catalogs/{catalog_id}', cat(c.id))).data?.name).toBe('Mine');
  });

  it('rejects bad updates with 422 and leaves the row unchanged', async () => {
    const c = await createCatalog(org.auth);
    for (const body of [{ name: '' }, { name: 'x'.repeat(101) }]) {
      const res = await api.PUT('/api/public/catalogs/{catalog_id}', { ...cat(c.id), body });
      expect(res.response.status).toBe(422);
    }
    // A wrong type and a key the route does not take, which the client's types refuse, and malformed JSON: through supertest.
    for (const body of [{ strict_mode: 1 }, { current_schema_version: '9.0.0' }]) {
      const res = await request(server).put(`/api/public/catalogs/${c.id}`).set(org.auth).send(body);
      expect(res.status).toBe(422);
    }
    const bad = await request(server).put(`/api/public/catalogs/${c.id}`).set(org.auth).set('Content-Type', 'application/json').send('{oops');
    expect(bad.body.detail[0].type).toBe('json_invalid');
    expect((await api.GET('/api/public/catalogs/{catalog_id}', cat(c.id))).data).toEqual(c);
  });

  it('deletes a catalog (also without /public) with its schema versions', async () => {
    const a = await createCatalog(org.auth);
    const b = await createCatalog(org.auth);
    const res = await api.DELETE('/api/public/catalogs/{catalog_id}', cat(a.id));
    expect(res.response.status).toBe(200);
    expect(res.data!.message).toEqual(expect.any(String));
    expect((await api.GET('/api/public/catalogs/{catalog_id}', cat(a.id))).response.status).toBe(404);
    expect(await testKnex()('catalog_schemas').where('catalog_id', a.id).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect((await api.DELETE('/api/catalogs/{catalog_id}', cat(b.id))).response.status).toBe(200);
    expect((await api.DELETE('/api/catalogs/{catalog_id}', cat(b.id))).response.status).toBe(404);
  });

  it('answers 404 for unknown and malformed ids and 403 for another organization on every route', async () => {
    const foreign = await createCatalog(other.auth);
    const unknown = '00000000-0000-4000-8000-000000000000';
    /** Each route as `[method, suffix, call of catalog id]`; the call answers status and error body. */
    const calls: Array<[Method, string, (id: string) => Promise<{ response: Response; error?: unknown }>]> = [
      ['get', '', (id) => api.GET('/api/public/catalogs/{catalog_id}', cat(id))],
      ['put', '', (id) => api.PUT('/api/public/catalogs/{catalog_id}', { ...cat(id), body: { name: 'x' } })],
      ['post', '/duplicate', (id) => api.POST('/api/public/catalogs/{catalog_id}/duplicate', { ...cat(id), body: {} })],
      ['get', '/schema', (id) => api.GET('/api/public/catalogs/{catalog_id}/schema', cat(id))],
      [
        'post',
        '/schema/fields',
        (id) => api.POST('/api/public/catalogs/{catalog_id}/schema/fields', { ...cat(id), body: { field_name: 'x', field_type: 'string' } }),
      ],
      [
        'put',
        '/schema/fields/batch',
        (id) => api.PUT('/api/public/catalogs/{catalog_id}/schema/fields/batch', { ...cat(id), body: { fields_to_remove: ['sku'] } }),
      ],
      ['get', '/taxonomy', (id) => api.GET('/api/public/catalogs/{catalog_id}/taxonomy', cat(id))],
      ['put', '/taxonomy', (id) => api.PUT('/api/public/catalogs/{catalog_id}/taxonomy', { ...cat(id), body: { name: 'T', nodes: {} } })],
      ['delete', '/taxonomy', (id) => api.DELETE('/api/public/catalogs/{catalog_id}/taxonomy', cat(id))],
      ['get', '/catalog-md', (id) => api.GET('/api/public/catalogs/{catalog_id}/catalog-md', cat(id))],
      ['put', '/catalog-md', (id) => api.PUT('/api/public/catalogs/{catalog_id}/catalog-md', { ...cat(id), body: { catalog_md: 'x' } })],
      ['get', '/quality-prompt', (id) => api.GET('/api/public/catalogs/{catalog_id}/quality-prompt', cat(id))],
      ['put', '/quality-prompt', (id) => api.PUT('/api/public/catalogs/{catalog_id}/quality-prompt', { ...cat(id), body: { prompt: 'x' } })],
      ['delete', '', (id) => api.DELETE('/api/public/catalogs/{catalog_id}', cat(id))],
    ];
    const before = await counts(other.organizationId);
    const snapshot = await testKnex()('catalogs').where('id', foreign.id).first();
    for (const [method, suffix, call] of calls) {
      for (const [id, status] of [
        [foreign.id, 403],
        [unknown, 404],
        ['not-a-uuid', 404],
      ] as const) {
        const res = await call(id);
        expect([method, suffix, id, res.response.status]).toEqual([method, suffix, id, status]);
        expect(typeof (res.error as { detail?: unknown } | undefined)?.detail).toBe('string');
      }
    }
    expect((await api.DELETE('/api/catalogs/{catalog_id}', cat(foreign.id))).response.status).toBe(403);
    expect(await counts(other.organizationId)).toEqual(before);
    expect(await testKnex()('catalogs').where('id', foreign.id).first()).toEqual(snapshot);
  });

  // Malformed JSON and wrong types: the client cannot send them, so supertest does.
  it('answers malformed JSON and wrong types on every body route with 422 and changes nothing', async () => {
    const c = await createCatalog(org.auth);
    const routes: Array<[Method, string, Record<string, unknown>]> = [
      ['put', '', { auto_evolve_schema: 'on' }],
      ['post', '/duplicate', { include_items: 1 }],
      ['post', '/schema/fields', { field_name: 7, field_type: 'string' }],
      ['put', '/schema/fields/batch', { fields_to_add: 'color' }],
      ['put', '/taxonomy', { name: 'T', nodes: { a: { name: 5 } } }],
      ['put', '/catalog-md', { catalog_md: { text: 'x' } }],
      ['put', '/quality-prompt', { prompt: false }],
    ];
    const before = await counts(org.organizationId);
    const row = await testKnex()('catalogs').where('id', c.id).first();
    for (const [method, suffix, wrong] of routes) {
      const target = `/api/public/catalogs/${c.id}${suffix}`;
      const malformed = await request(server)[method](target).set(org.auth).set('Content-Type', 'application/json').send('{"x": [1,');
      expect([suffix, malformed.status, malformed.body.detail[0].type]).toEqual([suffix, 422, 'json_invalid']);
      const typed = await request(server)[method](target).set(org.auth).send(wrong);
      expect([suffix, typed.status, typed.body.detail[0].loc[0]]).toEqual([suffix, 422, 'body']);
    }
    expect(await counts(org.organizationId)).toEqual(before);
    expect(await testKnex()('catalogs').where('id', c.id).first()).toEqual(row);
  });

  it('requires authentication', async () => {
    expect((await as({}).GET('/api/public/catalogs')).response.status).toBe(401);
  });
});

describe('POST /api/public/catalogs/:id/duplicate', () => {
  it('copies schema, taxonomy, context and quality prompt into a new catalog', async () => {
    const c = await createCatalog(org.auth, { auto_evolve_schema: true });
    expect(
      (await api.POST('/api/public/catalogs/{catalog_id}/schema/fields', { ...cat(c.id), body: { field_name: 'color', field_type: 'string' } })).response
        .status,
    ).toBe(200);
    expect(
      (await api.PUT('/api/public/catalogs/{catalog_id}/taxonomy', { ...cat(c.id), body: { name: 'T', nodes: { a: { name: 'A', parent: null } } } })).response
        .status,
    ).toBe(200);
    expect((await api.PUT('/api/public/catalogs/{catalog_id}/quality-prompt', { ...cat(c.id), body: { prompt: 'Check GTINs' } })).response.status).toBe(200);
    const res = await api.POST('/api/public/catalogs/{catalog_id}/duplicate', { ...cat(c.id), body: { name: 'Shoes copy' } });
    expect(res.response.status).toBe(200);
    const d = res.data!;
    expect(d.id).not.toBe(c.id);
    expect(d).toMatchObject({
      name: 'Shoes copy',
      description: 'Running shoes',
      auto_evolve_schema: true,
      current_schema_version: '1.2.0',
      item_count: 0,
      organization_id: org.organizationId,
    });
    expect(d.schema!.schema_definition.properties).toHaveProperty('color');
    expect(d.schema!.change_reason).toContain(c.id);
    expect((await api.GET('/api/public/catalogs/{catalog_id}/taxonomy', cat(d.id))).data?.nodes?.a.name).toBe('A');
    expect((await api.GET('/api/public/catalogs/{catalog_id}/quality-prompt', cat(d.id))).data?.prompt).toBe('Check GTINs');
    expect((await api.GET('/api/public/catalogs/{catalog_id}/catalog-md', cat(d.id))).data).toMatchObject({ catalog_md: '# Shoes', version: 1 });
    const defaultName = await api.POST('/api/public/catalogs/{catalog_id}/duplicate', { ...cat(c.id), body: {} });
    expect(defaultName.data?.name).toBe('Shoes (copy)');
  });

  it('copies the items only with include_items, and deleting a catalog removes its items', async () => {
    const c = await createCatalog(org.auth);
    const bulk = await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', {
      ...cat(c.id),
      body: {
        items: [
          { sku: 'A1', title: 'One' },
          { sku: 'A2', title: 'Two' },
        ],
      },
    });
    expect(bulk.response.status).toBe(200);
    const without = await api.POST('/api/public/catalogs/{catalog_id}/duplicate', { ...cat(c.id), body: { name: 'No items' } });
    expect(without.data?.item_count).toBe(0);
    const withItems = await api.POST('/api/public/catalogs/{catalog_id}/duplicate', { ...cat(c.id), body: { name: 'With items', include_items: true } });
    expect(withItems.response.status).toBe(200);
    expect(withItems.data!.item_count).toBe(2);
    const items = await testKnex()('catalog_items').where('catalog_id', withItems.data!.id).orderBy('business_key');
    expect(items.map((i) => i.data.title)).toEqual(['One', 'Two']);
    expect((await testKnex()('catalog_items').where('catalog_id', c.id)).length).toBe(2);
    expect((await api.DELETE('/api/public/catalogs/{catalog_id}', cat(withItems.data!.id))).response.status).toBe(200);
    expect((await testKnex()('catalog_items').where('catalog_id', withItems.data!.id)).length).toBe(0);
    expect((await testKnex()('catalog_items').where('catalog_id', c.id)).length).toBe(2);
  });

  it('rejects a bad body with 422 and creates nothing', async () => {
    const c = await createCatalog(org.auth);
    const before = await counts(org.organizationId);
    for (const body of [{ name: '' }, { name: 'x'.repeat(101) }]) {
      expect((await api.POST('/api/public/catalogs/{catalog_id}/duplicate', { ...cat(c.id), body })).response.status).toBe(422);
    }
    // include_items of the wrong type: the client's types refuse it.
    expect((await request(server).post(`/api/public/catalogs/${c.id}/duplicate`).set(org.auth).send({ include_items: 'yes' })).status).toBe(422);
    expect(await counts(org.organizationId)).toEqual(before);
  });
});

describe('catalog-md and quality prompt', () => {
  it('versions catalog-md and reads old versions', async () => {
    const c = await createCatalog(org.auth);
    const md = (version?: number) =>
      api.GET('/api/public/catalogs/{catalog_id}/catalog-md', {
        params: { path: { catalog_id: c.id }, ...(version === undefined ? {} : { query: { version } }) },
      });
    const put = await api.PUT('/api/public/catalogs/{catalog_id}/catalog-md', { ...cat(c.id), body: { catalog_md: '# Second' } });
    expect(put.response.status).toBe(200);
    expect(put.data).toEqual({ catalog_id: c.id, catalog_md: '# Second', version: 2, updated_at: expect.stringMatching(ISO_Z) });
    expect((await api.PUT('/api/public/catalogs/{catalog_id}/catalog-md', { ...cat(c.id), body: { catalog_md: '# Third' } })).response.status).toBe(200);
    expect((await md()).data).toMatchObject({ catalog_md: '# Third', version: 3 });
    expect((await md(1)).data).toMatchObject({
      catalog_md: '# Shoes',
      version: 1,
    });
    expect((await md(9)).response.status).toBe(404);
    // A version, a catalog_md of the wrong type and a missing catalog_md: the client's types refuse them.
    expect((await request(server).get(`/api/public/catalogs/${c.id}/catalog-md?version=zero`).set(org.auth)).status).toBe(422);
    expect((await request(server).put(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth).send({ catalog_md: 5 })).status).toBe(422);
    expect((await request(server).put(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth).send({})).status).toBe(422);
    expect((await md()).data?.version).toBe(3);
  });

  it('reads null until a prompt is set', async () => {
    const c = await createCatalog(org.auth);
    const prompt = () => api.GET('/api/public/catalogs/{catalog_id}/quality-prompt', cat(c.id));
    expect((await prompt()).data).toEqual({
      catalog_id: c.id,
      prompt: null,
      updated_at: null,
    });
    const put = await api.PUT('/api/public/catalogs/{catalog_id}/quality-prompt', { ...cat(c.id), body: { prompt: 'Titles under 80 chars' } });
    expect(put.data).toEqual({ catalog_id: c.id, prompt: 'Titles under 80 chars', updated_at: expect.stringMatching(ISO_Z) });
    expect((await prompt()).data).toEqual(put.data);
    // A prompt of the wrong type: the client's types refuse it.
    expect(
      (
        await request(server)
          .put(`/api/public/catalogs/${c.id}/quality-prompt`)
          .set(org.auth)
          .send({ prompt: ['x'] })
      ).status,
    ).toBe(422);
    expect((await prompt()).data?.prompt).toBe('Titles under 80 chars');
  });
});
