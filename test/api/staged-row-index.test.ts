/**
 * Staged changes keep the `row_index` they were sent with (issue 26 §6): on append and on an
 * activity shell with changes; changes without one are numbered after the highest index; an
 * index already staged on the activity (or given twice) is a 422 that stages nothing.
 */
import request from 'supertest';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

const app = testApp().callback();
let org: Awaited<ReturnType<typeof createTestOrg>>;
const schema = { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number' } } };

beforeAll(async () => {
  org = await createTestOrg('staged row index');
});
afterAll(() => closeTestKnex());

const indexes = async (activityId: string): Promise<Array<[number, unknown]>> =>
  (await testKnex()('staged_changes').where({ activity_id: activityId }).orderBy('row_index').select('row_index', 'after_data')).map(
    (r: { row_index: number; after_data: { sku?: unknown } }) => [r.row_index, r.after_data.sku],
  );

describe('row_index of staged changes', () => {
  it('keeps the row_index sent on a shell and on append; numbers the others after the highest', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: schema });
    const created = await request(app)
      .post(`/api/public/catalogs/${catalogId}/activities`)
      .set(org.auth)
      .send({
        type: 'custom_transform',
        status: 'created',
        staged_changes: [
          { after_data: { sku: 'A' }, row_index: 7 },
          { after_data: { sku: 'B' }, row_index: 3 },
        ],
      });
    expect(created.status).toBe(200);
    const aid = created.body.activity_id as string;
    expect(await indexes(aid)).toEqual([
      [3, 'B'],
      [7, 'A'],
    ]);
    const appended = await request(app)
      .post(`/api/activities/${aid}/staged-changes/append`)
      .set(org.auth)
      .send({
        staged_changes: [
          { after_data: { sku: 'C' } },
          { after_data: { sku: 'D' }, row_index: 42 },
          { after_data: { sku: 'E' }, row_index: 0 },
          { after_data: { sku: 'F' } },
        ],
      });
    expect(appended.status).toBe(200);
    expect(appended.body).toMatchObject({ appended_count: 4, total_staged_changes: 6 });
    expect(await indexes(aid)).toEqual([
      [0, 'E'],
      [3, 'B'],
      [7, 'A'],
      [42, 'D'],
      [43, 'C'],
      [44, 'F'],
    ]);
    const listed = await request(app).get(`/api/activities/${aid}/staged-changes`).set(org.auth);
    expect(listed.body.items.map((c: { row_index: number }) => c.row_index)).toEqual([0, 3, 7, 42, 43, 44]);
  });

  it('refuses a row_index already staged or given twice with 422 and stages nothing of the chunk', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: schema });
    const created = await request(app)
      .post(`/api/public/catalogs/${catalogId}/activities`)
      .set(org.auth)
      .send({ type: 'custom_transform', status: 'created', staged_changes: [{ after_data: { sku: 'A' }, row_index: 1 }] });
    const aid = created.body.activity_id as string;
    const clash = await request(app)
      .post(`/api/activities/${aid}/staged-changes/append`)
      .set(org.auth)
      .send({
        staged_changes: [
          { after_data: { sku: 'B' }, row_index: 2 },
          { after_data: { sku: 'C' }, row_index: 1 },
        ],
      });
    expect(clash.status).toBe(422);
    expect(clash.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'staged_changes', 1, 'row_index'] })]);
    const twice = await request(app)
      .post(`/api/activities/${aid}/staged-changes/append`)
      .set(org.auth)
      .send({
        staged_changes: [
          { after_data: { sku: 'B' }, row_index: 5 },
          { after_data: { sku: 'C' }, row_index: 5 },
        ],
      });
    expect(twice.status).toBe(422);
    expect(twice.body.detail[0].loc).toEqual(['body', 'staged_changes', 1, 'row_index']);
    expect(await indexes(aid)).toEqual([[1, 'A']]);
    expect(
      (
        await request(app)
          .post(`/api/activities/${aid}/staged-changes/append`)
          .set(org.auth)
          .send({ staged_changes: [{ after_data: { sku: 'B' }, row_index: -1 }] })
      ).status,
    ).toBe(422);
  });
});
