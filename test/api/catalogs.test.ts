import request from 'supertest';
import type { Server } from 'node:http';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bodyOf, CatalogBody } from '../helpers/wire';
import { testApp } from '../helpers/app';

/**
 * Catalog CRUD, duplicate, catalog-md and quality prompt over HTTP (interface-spec.md,
 * Catalogs; decisions.md §1-§2, G1, G4, G5), including organization isolation.
 */

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
/** The HTTP methods the catalog routes answer (supertest's method names). */
type Method = 'get' | 'put' | 'post' | 'delete';
/** `GET /api/public/catalogs`: a page of catalogs. */
interface CatalogList {
  catalogs: Array<{ id: string; name: string }>;
}

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

function createBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Shoes', description: 'Running shoes', unique_id_field: 'sku', schema_definition: schemaDefinition, catalog_md: '# Shoes', ...overrides };
}

async function createCatalog(auth: Record<string, string>, overrides: Record<string, unknown> = {}): Promise<CatalogBody> {
  const res = await request(server).post('/api/public/catalogs').set(auth).send(createBody(overrides));
  expect(res.status).toBe(200);
  return bodyOf<CatalogBody>(res);
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
  server = testApp().listen(0);
  org = await createTestOrg('catalogs org');
  other = await createTestOrg('other org');
});

afterAll(async () => {
  server.close();
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
    expect(c.schema.fields_workflow_info.map((f) => f.field_name)).toEqual(['sku', 'title', 'price', 'summary']);
    expect(c.schema.fields_workflow_info[0]).toMatchObject({
      field_type: 'string',
      required: true,
      description: 'Stock keeping unit',
      field_category: 'input',
      scope: 'variant',
      added_in_version: '1.0.0',
    });
    expect(c.schema.fields_workflow_info[2]).toMatchObject({ field_name: 'price', unit: 'EUR', required: false });
    const md = await request(server).get(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth);
    expect(md.body).toMatchObject({ catalog_id: c.id, catalog_md: '# Shoes', version: 1 });
  });

  it.each([
    ['missing name', { name: undefined }, ['body', 'name'], 'missing'],
    ['empty name', { name: '' }, ['body', 'name'], 'value_error.minLength'],
    ['name over 100 characters', { name: 'x'.repeat(101) }, ['body', 'name'], 'value_error.maxLength'],
    ['name of the wrong type', { name: 42 }, ['body', 'name'], 'type_error'],
    ['strict_mode of the wrong type', { strict_mode: 'yes' }, ['body', 'strict_mode'], 'type_error'],
    ['unknown key', { colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
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
    const res = await request(server).post('/api/public/catalogs').set(org.auth).send(createBody(overrides));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
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
    await request(server).put(`/api/public/catalogs/${master.id}/quality-prompt`).set(org.auth).send({ prompt: 'Be strict' }).expect(200);
    await request(server)
      .put(`/api/public/catalogs/${master.id}/taxonomy`)
      .set(org.auth)
      .send({ name: 'T', nodes: { a: { name: 'A', parent: null } } })
      .expect(200);
    const c = await createCatalog(org.auth, { name: 'Child', catalog_md: undefined, master_catalog_id: master.id, use_master_catalog_defaults: true });
    expect(c).toMatchObject({ master_catalog_id: master.id, use_master_catalog_defaults: true });
    expect((await request(server).get(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth)).body.catalog_md).toBe('# Master context');
    expect((await request(server).get(`/api/public/catalogs/${c.id}/quality-prompt`).set(org.auth)).body.prompt).toBe('Be strict');
    expect((await request(server).get(`/api/public/catalogs/${c.id}/taxonomy`).set(org.auth)).body.nodes.a.path).toEqual(['A']);
  });

  it("refuses another organization's master catalog with 403", async () => {
    const foreign = await createCatalog(other.auth);
    const before = await counts(org.organizationId);
    const res = await request(server)
      .post('/api/public/catalogs')
      .set(org.auth)
      .send(createBody({ master_catalog_id: foreign.id }));
    expect(res.status).toBe(403);
    expect(await counts(org.organizationId)).toEqual(before);
  });
});

describe('GET /api/public/catalogs', () => {
  it('pages newest first with total_count, page and page_size', async () => {
    const fresh = await createTestOrg('list org');
    for (let i = 0; i < 5; i++) await createCatalog(fresh.auth, { name: `C${i}` });
    const res = await request(server).get('/api/public/catalogs?limit=2&offset=2').set(fresh.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total_count: 5, page: 2, page_size: 2 });
    expect(bodyOf<CatalogList>(res).catalogs.map((c) => c.name)).toEqual(['C2', 'C1']);
    expect(Object.keys(res.body.catalogs[0]).sort()).toEqual([
      'auto_evolve_schema',
      'created_at',
      'current_schema_version',
      'description',
      'id',
      'item_count',
      'name',
      'strict_mode',
    ]);
    const def = await request(server).get('/api/public/catalogs').set(fresh.auth);
    expect(def.body).toMatchObject({ total_count: 5, page: 1, page_size: 10 });
    expect(def.body.catalogs).toHaveLength(5);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
  ])('rejects %s with 422', async (qs, field) => {
    const res = await request(server).get(`/api/public/catalogs?${qs}`).set(org.auth);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', field]);
  });

  it("never lists another organization's catalogs", async () => {
    const foreign = await createCatalog(other.auth, { name: 'Foreign' });
    const res = await request(server).get('/api/public/catalogs?limit=100').set(org.auth);
    expect(bodyOf<CatalogList>(res).catalogs.map((c) => c.id)).not.toContain(foreign.id);
  });
});

describe('GET / PUT / DELETE /api/public/catalogs/:id', () => {
  it('gets a catalog with its schema', async () => {
    const c = await createCatalog(org.auth);
    const res = await request(server).get(`/api/public/catalogs/${c.id}`).set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(c);
  });

  it('changes only the provided fields and versions catalog_md', async () => {
    const c = await createCatalog(org.auth);
    const res = await request(server).put(`/api/public/catalogs/${c.id}`).set(org.auth).send({ strict_mode: true, catalog_md: '# v2' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Shoes', description: 'Running shoes', strict_mode: true, auto_evolve_schema: false });
    expect(new Date(res.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(c.updated_at).getTime());
    const md = await request(server).get(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth);
    expect(md.body).toMatchObject({ catalog_md: '# v2', version: 2 });
    const renamed = await request(server).put(`/api/public/catalogs/${c.id}`).set(org.auth).send({ name: 'Boots', description: null });
    expect(renamed.body).toMatchObject({ name: 'Boots', description: null, strict_mode: true });
  });

  it('honours X-Organization-Id of the caller and refuses one the key does not belong to', async () => {
    const c = await createCatalog(org.auth);
    const own = await request(server).put(`/api/public/catalogs/${c.id}`).set(org.auth).set('X-Organization-Id', org.organizationId).send({ name: 'Mine' });
    expect(own.status).toBe(200);
    const foreign = await request(server)
      .put(`/api/public/catalogs/${c.id}`)
      .set(org.auth)
      .set('X-Organization-Id', other.organizationId)
      .send({ name: 'Theirs' });
    expect(foreign.status).toBe(403);
    expect((await request(server).get(`/api/public/catalogs/${c.id}`).set(org.auth)).body.name).toBe('Mine');
  });

  it('rejects bad updates with 422 and leaves the row unchanged', async () => {
    const c = await createCatalog(org.auth);
    for (const body of [{ name: '' }, { name: 'x'.repeat(101) }, { strict_mode: 1 }, { current_schema_version: '9.0.0' }]) {
      const res = await request(server).put(`/api/public/catalogs/${c.id}`).set(org.auth).send(body);
      expect(res.status).toBe(422);
    }
    const bad = await request(server).put(`/api/public/catalogs/${c.id}`).set(org.auth).set('Content-Type', 'application/json').send('{oops');
    expect(bad.body.detail[0].type).toBe('json_invalid');
    expect((await request(server).get(`/api/public/catalogs/${c.id}`).set(org.auth)).body).toEqual(c);
  });

  it('deletes a catalog (also without /public) with its schema versions', async () => {
    const a = await createCatalog(org.auth);
    const b = await createCatalog(org.auth);
    const res = await request(server).delete(`/api/public/catalogs/${a.id}`).set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body.message).toEqual(expect.any(String));
    expect((await request(server).get(`/api/public/catalogs/${a.id}`).set(org.auth)).status).toBe(404);
    expect(await testKnex()('catalog_schemas').where('catalog_id', a.id).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect((await request(server).delete(`/api/catalogs/${b.id}`).set(org.auth)).status).toBe(200);
    expect((await request(server).delete(`/api/catalogs/${b.id}`).set(org.auth)).status).toBe(404);
  });

  it('answers 404 for unknown and malformed ids and 403 for another organization on every route', async () => {
    const foreign = await createCatalog(other.auth);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const calls: Array<[Method, string, Record<string, unknown>?]> = [
      ['get', ''],
      ['put', '', { name: 'x' }],
      ['post', '/duplicate', {}],
      ['get', '/schema'],
      ['post', '/schema/fields', { field_name: 'x', field_type: 'string' }],
      ['put', '/schema/fields/batch', { fields_to_remove: ['sku'] }],
      ['get', '/taxonomy'],
      ['put', '/taxonomy', { name: 'T', nodes: {} }],
      ['delete', '/taxonomy'],
      ['get', '/catalog-md'],
      ['put', '/catalog-md', { catalog_md: 'x' }],
      ['get', '/quality-prompt'],
      ['put', '/quality-prompt', { prompt: 'x' }],
      ['delete', ''],
    ];
    const before = await counts(other.organizationId);
    const snapshot = await testKnex()('catalogs').where('id', foreign.id).first();
    for (const [method, suffix, body] of calls) {
      for (const [id, status] of [
        [foreign.id, 403],
        [unknown, 404],
        ['not-a-uuid', 404],
      ] as const) {
        const req = request(server)[method](`/api/public/catalogs/${id}${suffix}`).set(org.auth);
        const res = body ? await req.send(body) : await req;
        expect([method, suffix, id, res.status]).toEqual([method, suffix, id, status]);
        expect(typeof res.body.detail).toBe('string');
      }
    }
    expect((await request(server).delete(`/api/catalogs/${foreign.id}`).set(org.auth)).status).toBe(403);
    expect(await counts(other.organizationId)).toEqual(before);
    expect(await testKnex()('catalogs').where('id', foreign.id).first()).toEqual(snapshot);
  });

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
    expect((await request(server).get('/api/public/catalogs')).status).toBe(401);
  });
});

describe('POST /api/public/catalogs/:id/duplicate', () => {
  it('copies schema, taxonomy, context and quality prompt into a new catalog', async () => {
    const c = await createCatalog(org.auth, { auto_evolve_schema: true });
    await request(server).post(`/api/public/catalogs/${c.id}/schema/fields`).set(org.auth).send({ field_name: 'color', field_type: 'string' }).expect(200);
    await request(server)
      .put(`/api/public/catalogs/${c.id}/taxonomy`)
      .set(org.auth)
      .send({ name: 'T', nodes: { a: { name: 'A', parent: null } } })
      .expect(200);
    await request(server).put(`/api/public/catalogs/${c.id}/quality-prompt`).set(org.auth).send({ prompt: 'Check GTINs' }).expect(200);
    const res = await request(server).post(`/api/public/catalogs/${c.id}/duplicate`).set(org.auth).send({ name: 'Shoes copy' });
    expect(res.status).toBe(200);
    const d = res.body;
    expect(d.id).not.toBe(c.id);
    expect(d).toMatchObject({
      name: 'Shoes copy',
      description: 'Running shoes',
      auto_evolve_schema: true,
      current_schema_version: '1.2.0',
      item_count: 0,
      organization_id: org.organizationId,
    });
    expect(d.schema.schema_definition.properties).toHaveProperty('color');
    expect(d.schema.change_reason).toContain(c.id);
    expect((await request(server).get(`/api/public/catalogs/${d.id}/taxonomy`).set(org.auth)).body.nodes.a.name).toBe('A');
    expect((await request(server).get(`/api/public/catalogs/${d.id}/quality-prompt`).set(org.auth)).body.prompt).toBe('Check GTINs');
    expect((await request(server).get(`/api/public/catalogs/${d.id}/catalog-md`).set(org.auth)).body).toMatchObject({ catalog_md: '# Shoes', version: 1 });
    const defaultName = await request(server).post(`/api/public/catalogs/${c.id}/duplicate`).set(org.auth).send({});
    expect(defaultName.body.name).toBe('Shoes (copy)');
  });

  it('copies the items only with include_items, and deleting a catalog removes its items', async () => {
    const c = await createCatalog(org.auth);
    const bulk = await request(server)
      .post(`/api/public/catalogs/${c.id}/items/bulk`)
      .set(org.auth)
      .send({
        items: [
          { sku: 'A1', title: 'One' },
          { sku: 'A2', title: 'Two' },
        ],
      });
    expect(bulk.status).toBe(200);
    const without = await request(server).post(`/api/public/catalogs/${c.id}/duplicate`).set(org.auth).send({ name: 'No items' });
    expect(without.body.item_count).toBe(0);
    const withItems = await request(server).post(`/api/public/catalogs/${c.id}/duplicate`).set(org.auth).send({ name: 'With items', include_items: true });
    expect(withItems.status).toBe(200);
    expect(withItems.body.item_count).toBe(2);
    const items = await testKnex()('catalog_items').where('catalog_id', withItems.body.id).orderBy('business_key');
    expect(items.map((i) => i.data.title)).toEqual(['One', 'Two']);
    expect((await testKnex()('catalog_items').where('catalog_id', c.id)).length).toBe(2);
    await request(server).delete(`/api/public/catalogs/${withItems.body.id}`).set(org.auth).expect(200);
    expect((await testKnex()('catalog_items').where('catalog_id', withItems.body.id)).length).toBe(0);
    expect((await testKnex()('catalog_items').where('catalog_id', c.id)).length).toBe(2);
  });

  it('rejects a bad body with 422 and creates nothing', async () => {
    const c = await createCatalog(org.auth);
    const before = await counts(org.organizationId);
    for (const body of [{ name: '' }, { include_items: 'yes' }, { name: 'x'.repeat(101) }]) {
      expect((await request(server).post(`/api/public/catalogs/${c.id}/duplicate`).set(org.auth).send(body)).status).toBe(422);
    }
    expect(await counts(org.organizationId)).toEqual(before);
  });
});

describe('catalog-md and quality prompt', () => {
  it('versions catalog-md and reads old versions', async () => {
    const c = await createCatalog(org.auth);
    const put = await request(server).put(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth).send({ catalog_md: '# Second' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ catalog_id: c.id, catalog_md: '# Second', version: 2, updated_at: expect.stringMatching(ISO_Z) });
    await request(server).put(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth).send({ catalog_md: '# Third' }).expect(200);
    expect((await request(server).get(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth)).body).toMatchObject({ catalog_md: '# Third', version: 3 });
    expect((await request(server).get(`/api/public/catalogs/${c.id}/catalog-md?version=1`).set(org.auth)).body).toMatchObject({
      catalog_md: '# Shoes',
      version: 1,
    });
    expect((await request(server).get(`/api/public/catalogs/${c.id}/catalog-md?version=9`).set(org.auth)).status).toBe(404);
    expect((await request(server).get(`/api/public/catalogs/${c.id}/catalog-md?version=zero`).set(org.auth)).status).toBe(422);
    expect((await request(server).put(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth).send({ catalog_md: 5 })).status).toBe(422);
    expect((await request(server).put(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth).send({})).status).toBe(422);
    expect((await request(server).get(`/api/public/catalogs/${c.id}/catalog-md`).set(org.auth)).body.version).toBe(3);
  });

  it('reads null until a prompt is set', async () => {
    const c = await createCatalog(org.auth);
    expect((await request(server).get(`/api/public/catalogs/${c.id}/quality-prompt`).set(org.auth)).body).toEqual({
      catalog_id: c.id,
      prompt: null,
      updated_at: null,
    });
    const put = await request(server).put(`/api/public/catalogs/${c.id}/quality-prompt`).set(org.auth).send({ prompt: 'Titles under 80 chars' });
    expect(put.body).toEqual({ catalog_id: c.id, prompt: 'Titles under 80 chars', updated_at: expect.stringMatching(ISO_Z) });
    expect((await request(server).get(`/api/public/catalogs/${c.id}/quality-prompt`).set(org.auth)).body).toEqual(put.body);
    expect(
      (
        await request(server)
          .put(`/api/public/catalogs/${c.id}/quality-prompt`)
          .set(org.auth)
          .send({ prompt: ['x'] })
      ).status,
    ).toBe(422);
    expect((await request(server).get(`/api/public/catalogs/${c.id}/quality-prompt`).set(org.auth)).body.prompt).toBe('Titles under 80 chars');
  });
});
