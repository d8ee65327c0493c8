/**
 * The staging of console bulk actions (src/services/review/bulk-edit.ts) against
 * real PostgreSQL, page by page as the bulk-stage workflow calls it: every action's changes, the
 * pages of 500 with their batch keys (a retried page stages nothing twice), "all matching" on the
 * whole catalog, and the errors. The workflow itself runs in test/browser/bulk-actions.test.ts.
 */
import type { Scope } from '../../src/services/access/scope';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import { BULK_STAGE_PAGE, createBulkAction, finishBulkStaging, stageBulkPage, type BulkEditInput } from '../../src/services/review/bulk-edit';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createGridFixture, GRID_ITEMS, type GridFixtureItem } from '../helpers/grid-catalog';

let scope: Scope;
let catalogId: string;
let items: GridFixtureItem[];
const deps = () => ({ knex: testKnex(), caches: { catalog: createCatalogCaches() }, config: { publicUrl: 'http://127.0.0.1:1' } });

beforeAll(async () => {
  const org = await createTestOrg('bulk edit org');
  scope = { organizationId: org.organizationId, principal: { kind: 'api_key', id: 'test', organizationIds: [org.organizationId] } };
  ({ catalogId, items } = await createGridFixture(org.organizationId));
}, 60_000);

afterAll(closeTestKnex);

/** Creates the bulk action and stages it as the workflow does; returns the activity id and the pages' counts. */
async function run(input: BulkEditInput): Promise<{ id: string; pages: number[]; total: number }> {
  const created = await createBulkAction(deps(), scope, catalogId, input);
  const pages: number[] = [];
  let after: string | null = null;
  do {
    const res = await stageBulkPage(deps(), created.activity.id, after);
    pages.push(res.staged);
    after = res.next;
  } while (after !== null);
  return { id: created.activity.id, pages, total: await finishBulkStaging(testKnex(), created.activity.id) };
}

type Change = { catalog_item_id: string; after_data: Record<string, unknown>; before_data: Record<string, unknown>; is_delete: boolean; status: string };
const changesOf = (id: string): Promise<Change[]> =>
  testKnex()('staged_changes').where({ activity_id: id }).select('catalog_item_id', 'after_data', 'before_data', 'is_delete', 'status');

test('move to a taxonomy node: one change per item of the node, pages of 500, a retried page stages nothing twice', async () => {
  const expected = items.filter((it) => it.data.category_id === 'electronics').map((it) => it.id);
  expect(expected).toHaveLength(BULK_STAGE_PAGE); // exactly one full page: the next page is empty
  const { id, pages, total } = await run({ action: 'move', query: 'category=electronics', value: 'shirts' });
  expect(pages).toEqual([BULK_STAGE_PAGE, 0]);
  expect(total).toBe(BULK_STAGE_PAGE);
  const changes = await changesOf(id);
  expect(changes.map((c) => c.catalog_item_id).sort()).toEqual([...expected].sort());
  expect(changes.every((c) => c.after_data.category_id === 'shirts' && c.before_data.category_id === 'electronics')).toBe(true);
  // An item whose data already fails the schema (an explicit JSON null price for a number field)
  // is staged as an `error` change, never as one that apply would write; the others are pending.
  const invalid = new Set(items.filter((it) => it.data.category_id === 'electronics' && it.data.price === null).map((it) => it.id));
  expect(invalid.size).toBeGreaterThan(0);
  expect(changes.every((c) => c.status === (invalid.has(c.catalog_item_id) ? 'error' : 'pending'))).toBe(true);
  // The workflow retrying its first page (a worker died after the commit): nothing new.
  const activity = await testKnex()('review_activities').where({ id }).first('status');
  expect(activity.status).toBe('pending_review');
  await testKnex()('review_activities').where({ id }).update({ status: 'created' });
  expect((await stageBulkPage(deps(), id, null)).staged).toBe(BULK_STAGE_PAGE); // the batch's own count, answered again
  expect(await finishBulkStaging(testKnex(), id)).toBe(BULK_STAGE_PAGE);
});

test('delete, append and clear stage what they say; "all matching" with no filter is the whole catalog', async () => {
  const noBrand = items.filter((it) => it.data.brand === undefined);
  const del = await run({ action: 'delete', query: 'f.brand=empty' });
  const deletes = await changesOf(del.id);
  expect(deletes).toHaveLength(noBrand.length);
  expect(deletes.every((c) => c.is_delete && Object.keys(c.after_data).length === 0)).toBe(true);

  const app = await run({ action: 'append', query: 'f.sku=eq:SKU-00001', field: 'title', value: '(refurbished)' });
  expect((await changesOf(app.id)).map((c) => c.after_data.title)).toEqual(['Item 1 (refurbished)']);

  const clr = await run({ action: 'clear', query: 'f.sku=in:SKU-00002,SKU-00003', field: 'gtin' });
  const cleared = await changesOf(clr.id);
  expect(cleared).toHaveLength(2);
  expect(cleared.every((c) => !('gtin' in c.after_data) && typeof c.before_data.gtin === 'string')).toBe(true);

  const all = await run({ action: 'set', query: '', field: 'color', value: 'red' });
  expect(all.total).toBe(GRID_ITEMS);
  expect(all.pages).toEqual([500, 500, 500, 500, 500, 500, 0]);
  expect(new Set((await changesOf(all.id)).map((c) => c.after_data.color))).toEqual(new Set(['red']));
}, 60_000);

test('errors: unknown field or node (422), a filter nothing matches (409), another organization (403)', async () => {
  await expect(createBulkAction(deps(), scope, catalogId, { action: 'set', query: '', field: 'nope', value: 'x' })).rejects.toMatchObject({ status: 422 });
  await expect(createBulkAction(deps(), scope, catalogId, { action: 'move', query: '', value: 'no-such-node' })).rejects.toMatchObject({ status: 422 });
  await expect(createBulkAction(deps(), scope, catalogId, { action: 'set', query: '', field: 'color', value: '' })).rejects.toMatchObject({ status: 422 });
  await expect(createBulkAction(deps(), scope, catalogId, { action: 'delete', query: 'f.sku=eq:none' })).rejects.toMatchObject({ status: 409 });
  const other = await createTestOrg('bulk edit other');
  const otherScope: Scope = { organizationId: other.organizationId, principal: { kind: 'api_key', id: 'x', organizationIds: [other.organizationId] } };
  await expect(createBulkAction(deps(), otherScope, catalogId, { action: 'delete', query: '' })).rejects.toMatchObject({ status: 403 });
});
