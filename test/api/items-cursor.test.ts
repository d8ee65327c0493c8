import type { Server } from 'node:http';
import type { CatalogClient } from '@catalog-enrichment/client';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient, ItemListPage, walkItemCursor } from '../helpers/client';
import { closeTestKnex, createTestOrg } from '../helpers/db';

/**
 * Keyset paging of item lists: walking `next_cursor` visits exactly the rows of the
 * offset order, in the same order, for every sort (default, columns, data fields with missing
 * values last, both directions) and with a search; bad cursors are a 422. Called through the typed
 * client (packages/client).
 */

let server: Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('cursor org');
  catalogId = await createTestCatalog(org.organizationId);
  api = typedClient(server, org.auth);
  // One bulk write: created_at differs by microseconds only (a Date would tie them).
  const items = Array.from({ length: 230 }, (_, i) => ({
    sku: `c-${String(i).padStart(3, '0')}`,
    title: i % 3 === 0 ? `red boot ${i}` : `blue shoe ${i}`,
    ...(i % 7 === 0 ? {} : { price: (i * 37) % 50 }),
  }));
  const { data } = await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: catalogId } }, body: { items } });
  expect(data).toMatchObject({ items_created: 230 });
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** `GET …/items` with `query`; the answer's status and body (the JSON answer, or the error body). */
async function list(query: Record<string, string | number>): Promise<{ status: number; body: unknown }> {
  const { data, error, response } = await api.GET('/api/public/catalogs/{catalog_id}/items', { params: { path: { catalog_id: catalogId }, query } });
  return { status: response.status, body: data ?? error };
}

async function page(query: Record<string, string | number>): Promise<ItemListPage> {
  const res = await list(query);
  expect(res.status).toBe(200);
  return res.body as ItemListPage;
}

const walk = (query: Record<string, string | number>, limit: number) => walkItemCursor(page, query, limit);

it.each([
  ['default order', {}],
  ['created_at desc', { sort: 'created_at:desc' }],
  ['updated_at', { sort_field: 'updated_at' }],
  ['id desc', { sort: 'id:desc' }],
  ['a data field, missing values last', { sort: 'price:asc' }],
  ['a data field descending', { sort: 'price:desc' }],
  ['a text field', { sort_field: 'title' }],
  ['a search', { search: 'boot' }],
  ['a search sorted by a data field', { search: 'shoe', sort: 'price:desc' }],
])('walks %s exactly like the offset order', async (_name, query) => {
  const all = (await page({ ...query, limit: 1000 })).items.map((i) => i.id);
  expect(all.length).toBeGreaterThan(50);
  const walked = await walk(query, 17);
  expect(walked).toEqual(all);
});

it('says where the list ends and refuses cursors it did not make', async () => {
  const last = await page({ limit: 1000 });
  expect(last.next_cursor).toBeNull();
  const bad = await list({ cursor: 'not-a-cursor' });
  expect(bad.status).toBe(422);
  // Well-formed but forged: an id that is no item's and a key that is no timestamp.
  const forged = Buffer.from(JSON.stringify({ k: 'not a time', id: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
  expect((await list({ cursor: forged })).status).toBe(422);
  const dashes = Buffer.from(JSON.stringify({ k: null, id: '-'.repeat(36) })).toString('base64url');
  expect((await list({ cursor: dashes, sort: 'id:asc' })).status).toBe(422);
  const first = await page({ limit: 10 });
  const both = await list({ cursor: first.next_cursor!, offset: 10 });
  expect(both.status).toBe(422);
  expect((both.body as { detail: Array<{ loc: unknown[] }> }).detail[0].loc).toEqual(['query', 'cursor']);
});

it('advises the cursor in notices for a deep offset only (docs/large-catalogs.md "Deep pages")', async () => {
  const shallow = (await list({ offset: 9_999, limit: 10 })).body as ItemListPage & { notices?: string[] };
  expect(shallow.notices).toBeUndefined();
  const deep = await list({ offset: 10_000, limit: 10 });
  expect(deep.status).toBe(200);
  expect(deep.body).toMatchObject({ items: [], total: 230, notices: [expect.stringMatching(/^deep_offset: offset 10000 .* follow next_cursor/)] });
});
