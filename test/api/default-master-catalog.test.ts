/**
 * The organization's default master catalog (issue 26 §6; interface-spec.md POST
 * /public/catalogs: `use_master_catalog_defaults` "inherit defaults from the org default master
 * catalog"): set, read and cleared through `/public/organization/default-master-catalog`; a
 * catalog created with `use_master_catalog_defaults: true` and no `master_catalog_id` inherits
 * from it; 422 only when none is set; another organization's catalog is 403.
 */
import request from 'supertest';
import { newId } from '../../src/lib/ids';
import { testApp } from '../helpers/app';
import { closeTestKnex, createTestOrg } from '../helpers/db';

const app = testApp().callback();
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
const schema_definition = { type: 'object', properties: { sku: { type: 'string' } } };

beforeAll(async () => {
  org = await createTestOrg('default master');
  other = await createTestOrg('default master, other');
});
afterAll(() => closeTestKnex());

const createCatalog = (auth: Record<string, string>, body: Record<string, unknown>) =>
  request(app)
    .post('/api/public/catalogs')
    .set(auth)
    .send({ unique_id_field: 'sku', schema_definition, ...body });

describe('default master catalog', () => {
  it('is used by use_master_catalog_defaults without master_catalog_id; 422 only while none is set', async () => {
    const setting = () => request(app).get('/api/public/organization/default-master-catalog').set(org.auth);
    expect((await setting()).body).toEqual({ organization_id: org.organizationId, default_master_catalog_id: null });
    const refused = await createCatalog(org.auth, { name: 'Too early', use_master_catalog_defaults: true });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'master_catalog_id'], type: 'missing' });

    const master = await createCatalog(org.auth, { name: 'Master', catalog_md: '# House rules' });
    await request(app).put(`/api/public/catalogs/${master.body.id}/quality-prompt`).set(org.auth).send({ prompt: 'Metric units only' }).expect(200);
    await request(app)
      .put(`/api/public/catalogs/${master.body.id}/taxonomy`)
      .set(org.auth)
      .send({ name: 'T', nodes: { bags: { name: 'Bags', parent: null } } })
      .expect(200);
    const put = await request(app).put('/api/public/organization/default-master-catalog').set(org.auth).send({ catalog_id: master.body.id });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ organization_id: org.organizationId, default_master_catalog_id: master.body.id });
    expect((await setting()).body.default_master_catalog_id).toBe(master.body.id);

    const child = await createCatalog(org.auth, { name: 'Child', use_master_catalog_defaults: true });
    expect(child.status).toBe(200);
    expect(child.body).toMatchObject({ master_catalog_id: master.body.id, use_master_catalog_defaults: true });
    expect((await request(app).get(`/api/public/catalogs/${child.body.id}/catalog-md`).set(org.auth)).body.catalog_md).toBe('# House rules');
    expect((await request(app).get(`/api/public/catalogs/${child.body.id}/quality-prompt`).set(org.auth)).body.prompt).toBe('Metric units only');
    expect((await request(app).get(`/api/public/catalogs/${child.body.id}/taxonomy`).set(org.auth)).body.nodes.bags.path).toEqual(['Bags']);

    // An explicit master_catalog_id still wins; without use_master_catalog_defaults nothing is inherited.
    const own = await createCatalog(org.auth, { name: 'Own master', catalog_md: '# Own' });
    const explicit = await createCatalog(org.auth, { name: 'Explicit', master_catalog_id: own.body.id, use_master_catalog_defaults: true });
    expect(explicit.body.master_catalog_id).toBe(own.body.id);
    const plain = await createCatalog(org.auth, { name: 'Plain' });
    expect(plain.body).toMatchObject({ master_catalog_id: null, use_master_catalog_defaults: false });

    const cleared = await request(app).put('/api/public/organization/default-master-catalog').set(org.auth).send({ catalog_id: null });
    expect(cleared.body.default_master_catalog_id).toBeNull();
    expect((await createCatalog(org.auth, { name: 'After clearing', use_master_catalog_defaults: true })).status).toBe(422);
  });

  it("refuses another organization's catalog (403), an unknown one (404) and a bad body (422)", async () => {
    const foreign = await createCatalog(other.auth, { name: 'Foreign' });
    const put = (body: unknown) =>
      request(app)
        .put('/api/public/organization/default-master-catalog')
        .set(org.auth)
        .send(body as object);
    expect((await put({ catalog_id: foreign.body.id })).status).toBe(403);
    expect((await put({ catalog_id: newId() })).status).toBe(404);
    expect((await put({ catalog_id: 'nope' })).status).toBe(422);
    expect((await put({})).status).toBe(422);
    expect((await request(app).get('/api/public/organization/default-master-catalog').set(other.auth)).body.default_master_catalog_id).toBeNull();
  });

  it('is documented in OpenAPI (GET and PUT with the body schema)', async () => {
    const doc = (await request(app).get('/api/openapi.json')).body;
    const route = doc.paths['/api/public/organization/default-master-catalog'];
    expect(Object.keys(route).sort()).toEqual(['get', 'put']);
    expect(JSON.stringify(route.put.requestBody)).toContain('catalog_id');
  });
});
