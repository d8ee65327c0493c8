/**
 * Readiness profiles and the completeness report over the API (issue 28 §3): a profile created,
 * listed and deleted under `/public/catalogs/{id}/readiness-profiles`; `GET …/completeness`
 * counts (totals, by field, by taxonomy node with subtrees, per profile: ready, missing fields,
 * failing rules) equal what the 3,000-item fixture's data says and follow item changes; bad fields and rule values are
 * 422s naming them; another organization's catalog is a 403; the routes are in the OpenAPI document.
 */
import request from 'supertest';
import { testApp } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createGridFixture, fixtureComplete, isEmpty, type GridFixtureItem } from '../helpers/grid-catalog';

const app = testApp().callback();
let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;
let items: GridFixtureItem[];

beforeAll(async () => {
  org = await createTestOrg('readiness api');
  ({ catalogId, items } = await createGridFixture(org.organizationId));
});
afterAll(() => closeTestKnex());

const count = (f: (d: Record<string, unknown>) => boolean) => items.filter((i) => f(i.data)).length;
const profiles = () => `/api/public/catalogs/${catalogId}/readiness-profiles`;

describe('readiness profiles and completeness', () => {
  it('counts the catalog by field and by node as the data says', async () => {
    const res = await request(app).get(`/api/public/catalogs/${catalogId}/completeness`).set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(items.length);
    expect(res.body.complete).toBe(count(fixtureComplete));
    const field = (name: string) => res.body.fields.find((f: { field: string }) => f.field === name);
    expect(field('title')).toEqual({
      field: 'title',
      schema_required: true,
      required_by_nodes: [],
      filled: count((d) => !isEmpty(d.title)),
      empty: count((d) => isEmpty(d.title)),
    });
    expect(field('size')).toMatchObject({ schema_required: false, required_by_nodes: ['shirts'], empty: count((d) => isEmpty(d.size)) });
    const node = (id: string) => res.body.nodes.find((n: { id: string }) => n.id === id);
    const apparel = (d: Record<string, unknown>) => ['apparel', 'shirts', 'shoes'].includes(d.category_id as string);
    expect(node('apparel')).toMatchObject({ path: ['Apparel'], items: count(apparel), complete: count((d) => apparel(d) && fixtureComplete(d)) });
    expect(node('shirts').missing).toEqual([
      { field: 'sku', empty: 0 },
      { field: 'title', empty: count((d) => d.category_id === 'shirts' && isEmpty(d.title)) },
      { field: 'size', empty: count((d) => d.category_id === 'shirts' && isEmpty(d.size)) },
    ]);
    const unclassified = (d: Record<string, unknown>) => d.category_id === undefined || d.category_id === 'retired-node';
    expect(res.body.unclassified).toEqual({ items: count(unclassified), complete: count((d) => unclassified(d) && fixtureComplete(d)) });
  });

  it('creates a profile whose readiness counts match the data; lists and deletes it', async () => {
    const created = await request(app)
      .post(profiles())
      .set(org.auth)
      .send({
        name: 'Marketplace A',
        required_fields: ['brand', 'gtin'],
        rules: [
          { field: 'color', op: 'in', value: 'red,blue' },
          { field: 'price', op: 'range', value: '..50' },
        ],
      });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Marketplace A', required_fields: ['brand', 'gtin'], description: null });
    const report = (await request(app).get(`/api/public/catalogs/${catalogId}/completeness`).set(org.auth)).body;
    const p = report.profiles.find((x: { id: string }) => x.id === created.body.id);
    const cheap = (d: Record<string, unknown>) => typeof d.price === 'number' && d.price <= 50;
    const redBlue = (d: Record<string, unknown>) => d.color === 'red' || d.color === 'blue';
    const ready = count((d) => !isEmpty(d.brand) && !isEmpty(d.gtin) && redBlue(d) && cheap(d));
    expect(p).toEqual({
      id: created.body.id,
      name: 'Marketplace A',
      ready,
      not_ready: items.length - ready,
      missing: [
        { field: 'brand', empty: count((d) => isEmpty(d.brand)) },
        { field: 'gtin', empty: 0 },
      ],
      failing_rules: [count((d) => !redBlue(d)), count((d) => !cheap(d))],
    });
    const same = await request(app)
      .post(profiles())
      .set(org.auth)
      .send({ name: 'Marketplace A', required_fields: ['brand'] });
    expect(same.status).toBe(422);
    expect((await request(app).get(profiles()).set(org.auth)).body.profiles.map((x: { name: string }) => x.name)).toEqual(['Marketplace A']);
    expect((await request(app).delete(`${profiles()}/${created.body.id}`).set(org.auth)).status).toBe(204);
    expect((await request(app).get(profiles()).set(org.auth)).body.profiles).toEqual([]);
    expect((await request(app).delete(`${profiles()}/${created.body.id}`).set(org.auth)).status).toBe(404);
  });

  it('refuses unknown fields, unreadable rule values and an empty profile with 422s naming them', async () => {
    const res = await request(app)
      .post(profiles())
      .set(org.auth)
      .send({ name: 'Bad', required_fields: ['nope'], rules: [{ field: 'price', op: 'range', value: 'a..b' }] });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toEqual(['body.required_fields.0', 'body.rules.0.value']);
    expect((await request(app).post(profiles()).set(org.auth).send({ name: 'Empty' })).status).toBe(422);
    expect(
      (
        await request(app)
          .post(profiles())
          .set(org.auth)
          .send({ name: 'Op', rules: [{ field: 'price', op: 'empty' }] })
      ).status,
    ).toBe(422);
  });

  it('counts again after an item changes (the cached report follows items_rev)', async () => {
    const url = `/api/public/catalogs/${catalogId}/completeness`;
    const before = (await request(app).get(url).set(org.auth)).body;
    const target = items.find((i) => isEmpty(i.data.title))!;
    await testKnex()('catalog_items')
      .where('id', target.id)
      .update({ data: JSON.stringify({ ...target.data, title: 'Now titled' }) });
    const after = (await request(app).get(url).set(org.auth)).body;
    expect(after.fields.find((f: { field: string }) => f.field === 'title').empty).toBe(
      before.fields.find((f: { field: string }) => f.field === 'title').empty - 1,
    );
    await testKnex()('catalog_items')
      .where('id', target.id)
      .update({ data: JSON.stringify(target.data) });
    expect((await request(app).get(url).set(org.auth)).body).toEqual(before);
  });

  it("another organization's catalog is a 403", async () => {
    const other = await createTestOrg('readiness api other');
    expect((await request(app).get(`/api/public/catalogs/${catalogId}/completeness`).set(other.auth)).status).toBe(403);
    expect(
      (
        await request(app)
          .post(profiles())
          .set(other.auth)
          .send({ name: 'X', required_fields: ['brand'] })
      ).status,
    ).toBe(403);
  });

  it('is documented in OpenAPI', async () => {
    const doc = (await request(app).get('/api/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/public/catalogs/{catalog_id}/readiness-profiles']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/public/catalogs/{catalog_id}/readiness-profiles/{profile_id}'])).toEqual(['delete']);
    expect(Object.keys(doc.paths['/api/public/catalogs/{catalog_id}/completeness'])).toEqual(['get']);
  });
});
