/**
 * The organization's default master catalog (docs/api-reference.md "Catalogs" POST
 * /public/catalogs: `use_master_catalog_defaults` "inherit defaults from the org default master
 * catalog"): set, read and cleared through `/public/organization/default-master-catalog`; a
 * catalog created with `use_master_catalog_defaults: true` and no `master_catalog_id` inherits
 * from it; 422 only when none is set; another organization's catalog is 403.
 */
import type { Server } from 'node:http';
import request from 'supertest';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { newId } from '../../src/lib/ids';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg } from '../helpers/db';
import type { ValidationErrorBody } from '../helpers/wire';

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
const schema_definition = { type: 'object', properties: { sku: { type: 'string' } } };
/** `POST /api/public/catalogs` body without the fields every call here sends the same. */
type CatalogFields = Omit<paths['/api/public/catalogs']['post']['requestBody']['content']['application/json'], 'unique_id_field' | 'schema_definition'>;

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('default master');
  other = await createTestOrg('default master, other');
  api = typedClient(server, org.auth);
});
afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

const createCatalog = (auth: Record<string, string>, body: CatalogFields) =>
  typedClient(server, auth).POST('/api/public/catalogs', { body: { unique_id_field: 'sku', schema_definition, ...body } });
const cat = (catalog_id: string) => ({ params: { path: { catalog_id } } });

describe('default master catalog', () => {
  it('is used by use_master_catalog_defaults without master_catalog_id; 422 only while none is set', async () => {
    const setting = () => api.GET('/api/public/organization/default-master-catalog');
    expect((await setting()).data).toEqual({ organization_id: org.organizationId, default_master_catalog_id: null });
    const refused = await createCatalog(org.auth, { name: 'Too early', use_master_catalog_defaults: true });
    expect(refused.response.status).toBe(422);
    expect((refused.error as ValidationErrorBody).detail[0]).toMatchObject({ loc: ['body', 'master_catalog_id'], type: 'missing' });

    const master = (await createCatalog(org.auth, { name: 'Master', catalog_md: '# House rules' })).data!;
    expect(
      (await api.PUT('/api/public/catalogs/{catalog_id}/quality-prompt', { ...cat(master.id), body: { prompt: 'Metric units only' } })).response.status,
    ).toBe(200);
    expect(
      (await api.PUT('/api/public/catalogs/{catalog_id}/taxonomy', { ...cat(master.id), body: { name: 'T', nodes: { bags: { name: 'Bags', parent: null } } } }))
        .response.status,
    ).toBe(200);
    const put = await api.PUT('/api/public/organization/default-master-catalog', { body: { catalog_id: master.id } });
    expect(put.response.status).toBe(200);
    expect(put.data).toEqual({ organization_id: org.organizationId, default_master_catalog_id: master.id });
    expect((await setting()).data?.default_master_catalog_id).toBe(master.id);

    const child = await createCatalog(org.auth, { name: 'Child', use_master_catalog_defaults: true });
    expect(child.response.status).toBe(200);
    expect(child.data).toMatchObject({ master_catalog_id: master.id, use_master_catalog_defaults: true });
    const childId = child.data!.id;
    expect((await api.GET('/api/public/catalogs/{catalog_id}/catalog-md', cat(childId))).data?.catalog_md).toBe('# House rules');
    expect((await api.GET('/api/public/catalogs/{catalog_id}/quality-prompt', cat(childId))).data?.prompt).toBe('Metric units only');
    expect((await api.GET('/api/public/catalogs/{catalog_id}/taxonomy', cat(childId))).data?.nodes?.bags.path).toEqual(['Bags']);

    // An explicit master_catalog_id still wins; without use_master_catalog_defaults nothing is inherited.
    const own = (await createCatalog(org.auth, { name: 'Own master', catalog_md: '# Own' })).data!;
    const explicit = await createCatalog(org.auth, { name: 'Explicit', master_catalog_id: own.id, use_master_catalog_defaults: true });
    expect(explicit.data?.master_catalog_id).toBe(own.id);
    const plain = await createCatalog(org.auth, { name: 'Plain' });
    expect(plain.data).toMatchObject({ master_catalog_id: null, use_master_catalog_defaults: false });

    const cleared = await api.PUT('/api/public/organization/default-master-catalog', { body: { catalog_id: null } });
    expect(cleared.data?.default_master_catalog_id).toBeNull();
    expect((await createCatalog(org.auth, { name: 'After clearing', use_master_catalog_defaults: true })).response.status).toBe(422);
  });

  it("refuses another organization's catalog (403), an unknown one (404) and a bad body (422)", async () => {
    const foreign = (await createCatalog(other.auth, { name: 'Foreign' })).data!;
    const put = async (catalog_id: string) => (await api.PUT('/api/public/organization/default-master-catalog', { body: { catalog_id } })).response.status;
    expect(await put(foreign.id)).toBe(403);
    expect(await put(newId())).toBe(404);
    expect(await put('nope')).toBe(422);
    // No catalog_id at all: the client's types refuse the body.
    expect((await request(server).put('/api/public/organization/default-master-catalog').set(org.auth).send({})).status).toBe(422);
    expect((await typedClient(server, other.auth).GET('/api/public/organization/default-master-catalog')).data?.default_master_catalog_id).toBeNull();
  });

  it('is documented in OpenAPI (GET and PUT with the body schema)', async () => {
    const doc = (await request(server).get('/api/openapi.json')).body;
    const route = doc.paths['/api/public/organization/default-master-catalog'];
    expect(Object.keys(route).sort()).toEqual(['get', 'put']);
    expect(JSON.stringify(route.put.requestBody)).toContain('catalog_id');
  });
});
