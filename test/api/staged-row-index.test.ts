/**
 * Staged changes keep the `row_index` they were sent with: on append and on an
 * activity shell with changes; changes without one are numbered after the highest index; an
 * index already staged on the activity (or given twice) is a 422 that stages nothing. Called
 * through the typed client (packages/client).
 */
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import type { ValidationErrorBody } from '../helpers/wire';

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
const schema = { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number' } } };

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('staged row index');
  api = typedClient(server, org.auth);
});
afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** `POST /public/catalogs/{id}/activities` (a custom_transform shell) with `staged_changes`. */
const shell = (catalogId: string, staged_changes: Array<{ after_data: Record<string, unknown>; row_index?: number }>) =>
  api.POST('/api/public/catalogs/{catalog_id}/activities', {
    params: { path: { catalog_id: catalogId } },
    body: { type: 'custom_transform', status: 'created', staged_changes },
  });
/** `POST /activities/{id}/staged-changes/append` with `staged_changes`. */
const append = (
  aid: string,
  staged_changes: paths['/api/activities/{activity_id}/staged-changes/append']['post']['requestBody']['content']['application/json']['staged_changes'],
) => api.POST('/api/activities/{activity_id}/staged-changes/append', { params: { path: { activity_id: aid } }, body: { staged_changes } });

const indexes = async (activityId: string): Promise<Array<[number, unknown]>> =>
  (await testKnex()('staged_changes').where({ activity_id: activityId }).orderBy('row_index').select('row_index', 'after_data')).map(
    (r: { row_index: number; after_data: { sku?: unknown } }) => [r.row_index, r.after_data.sku],
  );

describe('row_index of staged changes', () => {
  it('keeps the row_index sent on a shell and on append; numbers the others after the highest', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: schema });
    const created = await shell(catalogId, [
      { after_data: { sku: 'A' }, row_index: 7 },
      { after_data: { sku: 'B' }, row_index: 3 },
    ]);
    expect(created.response.status).toBe(200);
    const aid = created.data!.activity_id;
    expect(await indexes(aid)).toEqual([
      [3, 'B'],
      [7, 'A'],
    ]);
    const appended = await append(aid, [
      { after_data: { sku: 'C' } },
      { after_data: { sku: 'D' }, row_index: 42 },
      { after_data: { sku: 'E' }, row_index: 0 },
      { after_data: { sku: 'F' } },
    ]);
    expect(appended.response.status).toBe(200);
    expect(appended.data).toMatchObject({ appended_count: 4, total_staged_changes: 6 });
    expect(await indexes(aid)).toEqual([
      [0, 'E'],
      [3, 'B'],
      [7, 'A'],
      [42, 'D'],
      [43, 'C'],
      [44, 'F'],
    ]);
    const listed = await api.GET('/api/activities/{activity_id}/staged-changes', { params: { path: { activity_id: aid } } });
    expect(listed.data!.items.map((c) => c.row_index)).toEqual([0, 3, 7, 42, 43, 44]);
  });

  it('refuses a row_index already staged or given twice with 422 and stages nothing of the chunk', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { schema_definition: schema });
    const created = await shell(catalogId, [{ after_data: { sku: 'A' }, row_index: 1 }]);
    const aid = created.data!.activity_id;
    const clash = await append(aid, [
      { after_data: { sku: 'B' }, row_index: 2 },
      { after_data: { sku: 'C' }, row_index: 1 },
    ]);
    expect(clash.response.status).toBe(422);
    expect((clash.error as ValidationErrorBody).detail).toEqual([expect.objectContaining({ loc: ['body', 'staged_changes', 1, 'row_index'] })]);
    const twice = await append(aid, [
      { after_data: { sku: 'B' }, row_index: 5 },
      { after_data: { sku: 'C' }, row_index: 5 },
    ]);
    expect(twice.response.status).toBe(422);
    expect((twice.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'staged_changes', 1, 'row_index']);
    expect(await indexes(aid)).toEqual([[1, 'A']]);
    expect((await append(aid, [{ after_data: { sku: 'B' }, row_index: -1 }])).response.status).toBe(422);
  });
});
