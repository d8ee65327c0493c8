/**
 * Readiness profiles and the completeness report over the API: a profile created,
 * listed and deleted under `/public/catalogs/{id}/readiness-profiles`; `GET …/completeness`
 * counts (totals, by field, by taxonomy node with subtrees, per profile: ready, missing fields,
 * failing rules) equal what the 3,000-item fixture's data says and follow item changes; bad fields and rule values are
 * 422s naming them; another organization's catalog is a 403; the routes are in the OpenAPI document.
 */
import type { Server } from 'node:http';
import request from 'supertest';
import type { CatalogClient } from '@catalog-enrichment/client';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createGridFixture, fixtureComplete, isEmpty, type GridFixtureItem } from '../helpers/grid-catalog';
import type { ValidationErrorBody } from '../helpers/wire';

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;
let items: GridFixtureItem[];

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('readiness api');
  api = typedClient(server, org.auth);
  ({ catalogId, items } = await createGridFixture(org.organizationId));
});
afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

const count = (f: (d: Record<string, unknown>) => boolean) => items.filter((i) => f(i.data)).length;
const cat = () => ({ params: { path: { catalog_id: catalogId } } });
/** `GET …/completeness` with `client`'s credential. */
const completeness = (client: CatalogClient = api) => client.GET('/api/public/catalogs/{catalog_id}/completeness', cat());
/** `GET …/readiness-profiles`: the profiles. */
const listProfiles = async () => (await api.GET('/api/public/catalogs/{catalog_id}/readiness-profiles', cat())).data!.profiles;

describe('readiness profiles and completeness', () => {
  it('counts the catalog by field and by node as the data says', async () => {
    const res = await completeness();
    expect(res.response.status).toBe(200);
    const body = res.data!;
    expect(body.total).toBe(items.length);
    expect(body.complete).toBe(count(fixtureComplete));
    const field = (name: string) => body.fields.find((f) => f.field === name);
    expect(field('title')).toEqual({
      field: 'title',
      schema_required: true,
      required_by_nodes: [],
      filled: count((d) => !isEmpty(d.title)),
      empty: count((d) => isEmpty(d.title)),
    });
    expect(field('size')).toMatchObject({ schema_required: false, required_by_nodes: ['shirts'], empty: count((d) => isEmpty(d.size)) });
    const node = (id: string) => body.nodes.find((n) => n.id === id);
    const apparel = (d: Record<string, unknown>) => ['apparel', 'shirts', 'shoes'].includes(d.category_id as string);
    expect(node('apparel')).toMatchObject({ path: ['Apparel'], items: count(apparel), complete: count((d) => apparel(d) && fixtureComplete(d)) });
    expect(node('shirts')!.missing).toEqual([
      { field: 'sku', empty: 0 },
      { field: 'title', empty: count((d) => d.category_id === 'shirts' && isEmpty(d.title)) },
      { field: 'size', empty: count((d) => d.category_id === 'shirts' && isEmpty(d.size)) },
    ]);
    const unclassified = (d: Record<string, unknown>) => d.category_id === undefined || d.category_id === 'retired-node';
    expect(body.unclassified).toEqual({ items: count(unclassified), complete: count((d) => unclassified(d) && fixtureComplete(d)) });
  });

  it('creates a profile whose readiness counts match the data; lists and deletes it', async () => {
    const created = await api.POST('/api/public/catalogs/{catalog_id}/readiness-profiles', {
      ...cat(),
      body: {
        name: 'Marketplace A',
        required_fields: ['brand', 'gtin'],
        rules: [
          { field: 'color', op: 'in', value: 'red,blue' },
          { field: 'price', op: 'range', value: '..50' },
        ],
      },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ name: 'Marketplace A', required_fields: ['brand', 'gtin'], description: null });
    const profileId = created.data!.id;
    const report = (await completeness()).data!;
    const p = report.profiles.find((x) => x.id === profileId);
    const cheap = (d: Record<string, unknown>) => typeof d.price === 'number' && d.price <= 50;
    const redBlue = (d: Record<string, unknown>) => d.color === 'red' || d.color === 'blue';
    const ready = count((d) => !isEmpty(d.brand) && !isEmpty(d.gtin) && redBlue(d) && cheap(d));
    expect(p).toEqual({
      id: profileId,
      name: 'Marketplace A',
      ready,
      not_ready: items.length - ready,
      missing: [
        { field: 'brand', empty: count((d) => isEmpty(d.brand)) },
        { field: 'gtin', empty: 0 },
      ],
      failing_rules: [count((d) => !redBlue(d)), count((d) => !cheap(d))],
    });
    const same = await api.POST('/api/public/catalogs/{catalog_id}/readiness-profiles', {
      ...cat(),
      body: { name: 'Marketplace A', required_fields: ['brand'] },
    });
    expect(same.response.status).toBe(422);
    expect((await listProfiles()).map((x) => x.name)).toEqual(['Marketplace A']);
    const remove = () =>
      api.DELETE('/api/public/catalogs/{catalog_id}/readiness-profiles/{profile_id}', { params: { path: { catalog_id: catalogId, profile_id: profileId } } });
    expect((await remove()).response.status).toBe(204);
    expect(await listProfiles()).toEqual([]);
    expect((await remove()).response.status).toBe(404);
  });

  it('refuses unknown fields, unreadable rule values and an empty profile with 422s naming them', async () => {
    const res = await api.POST('/api/public/catalogs/{catalog_id}/readiness-profiles', {
      ...cat(),
      body: { name: 'Bad', required_fields: ['nope'], rules: [{ field: 'price', op: 'range', value: 'a..b' }] },
    });
    expect(res.response.status).toBe(422);
    const locs = (res.error as ValidationErrorBody).detail.map((d) => d.loc.join('.'));
    expect(locs).toEqual(['body.required_fields.0', 'body.rules.0.value']);
    expect((await api.POST('/api/public/catalogs/{catalog_id}/readiness-profiles', { ...cat(), body: { name: 'Empty' } })).response.status).toBe(422);
    // An op the rules do not have: the client's types refuse it.
    expect(
      (
        await request(server)
          .post(`/api/public/catalogs/${catalogId}/readiness-profiles`)
          .set(org.auth)
          .send({ name: 'Op', rules: [{ field: 'price', op: 'empty' }] })
      ).status,
    ).toBe(422);
  });

  it('counts again after an item changes (the cached report follows items_rev)', async () => {
    const before = (await completeness()).data!;
    const target = items.find((i) => isEmpty(i.data.title))!;
    await testKnex()('catalog_items')
      .where('id', target.id)
      .update({ data: JSON.stringify({ ...target.data, title: 'Now titled' }) });
    const after = (await completeness()).data!;
    expect(after.fields.find((f) => f.field === 'title')!.empty).toBe(before.fields.find((f) => f.field === 'title')!.empty - 1);
    await testKnex()('catalog_items')
      .where('id', target.id)
      .update({ data: JSON.stringify(target.data) });
    expect((await completeness()).data).toEqual(before);
  });

  it("another organization's catalog is a 403", async () => {
    const other = await createTestOrg('readiness api other');
    const theirs = typedClient(server, other.auth);
    expect((await completeness(theirs)).response.status).toBe(403);
    expect(
      (await theirs.POST('/api/public/catalogs/{catalog_id}/readiness-profiles', { ...cat(), body: { name: 'X', required_fields: ['brand'] } })).response
        .status,
    ).toBe(403);
  });

  it('is documented in OpenAPI', async () => {
    const doc = (await request(server).get('/api/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/public/catalogs/{catalog_id}/readiness-profiles']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/public/catalogs/{catalog_id}/readiness-profiles/{profile_id}'])).toEqual(['delete']);
    expect(Object.keys(doc.paths['/api/public/catalogs/{catalog_id}/completeness'])).toEqual(['get']);
  });
});
