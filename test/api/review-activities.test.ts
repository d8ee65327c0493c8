/**
 * The review API on the real PostgreSQL (interface-spec.md "Activities"; decisions.md §1 and §5,
 * G13/G14/G16; issue 17): the tool server's write path exactly as tool-server.md §2.4 steps 2–4
 * send it (shell → appends in chunks with batch keys, one retried → pending-review → list, get,
 * summary), what append does to each change (system columns, JSON strings, deletes, schema
 * validation into `error`, base versions), custom transforms, bulk review (field by field and by
 * filter), cancel, the activity list, the error statuses, and the "Also fix" items of the issue
 * (snapshot system columns in bulk upserts, `variant_mode`).
 */
import request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Server } from 'node:http';
import { loadConfig } from '../../src/config';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
const publicUrl = loadConfig().publicUrl;

const SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    title: { type: 'string' },
    price: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
    dims: { type: 'object' },
  },
  required: ['sku'],
};

/** A staged change as the routes list it (the parts these tests read). */
interface ChangeBody {
  id: string;
  status: string;
  catalog_item_id: string | null;
  catalog_item_entity_type: string;
  before_data: Record<string, unknown>;
  after_data: Record<string, unknown>;
  is_new_item: boolean;
  is_delete: boolean;
  row_index: number;
  base_version: number | null;
  accepted_fields: string[] | null;
  error_reason: string | null;
  rejection_reason: string | null;
}

beforeAll(async () => {
  server = testApp().listen(0);
  org = await createTestOrg('review api');
  other = await createTestOrg('review api, other org');
});

afterAll(async () => {
  server.close();
  await closeTestKnex();
});

/** A catalog of `org` with the test schema and `n` items SKU-0… (through the bulk route). */
async function catalogWithItems(n: number, strict = false): Promise<{ catalogId: string; ids: string[] }> {
  const catalogId = await createTestCatalog(org.organizationId, { schema_definition: SCHEMA, strict_mode: strict });
  const items = Array.from({ length: n }, (_, i) => ({ sku: `SKU-${i}`, title: `Item ${i}`, price: i + 1, tags: ['a'] }));
  const res = await request(server).post(`/api/public/catalogs/${catalogId}/items/bulk`).set(org.auth).send({ items });
  expect(res.body).toMatchObject({ items_created: n, items_failed: 0 });
  const rows = await testKnex()('catalog_items').where({ catalog_id: catalogId }).select('id', 'business_key');
  const byKey = new Map(rows.map((r: { id: string; business_key: string }) => [r.business_key, r.id]));
  return { catalogId, ids: items.map((it) => byKey.get(it.sku) as string) };
}

/** Every staged change of an activity, in row order (prefix-less list, the tool server's path). */
async function allChanges(activityId: string): Promise<ChangeBody[]> {
  const res = await request(server).get(`/api/activities/${activityId}/staged-changes`).query({ page_size: 1000 }).set(org.auth);
  expect(res.status).toBe(200);
  return res.body.items as ChangeBody[];
}

/** A pulled snapshot row as the tool server's diff carries it (system columns, JSON-encoded containers). */
function row(id: string, data: Record<string, unknown>, version: number | string = 1): Record<string, unknown> {
  return { __catalog_item_id: id, __entity_type: 'product', __parent_id: '', __current_version: version, ...data };
}

async function shell(catalogId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await request(server)
    .post(`/api/public/catalogs/${catalogId}/activities`)
    .set(org.auth)
    .send({
      type: 'custom_transform',
      description: 'Raise prices',
      status: 'created',
      staged_changes: [],
      metadata: { source: 'mcp_custom_transform', diff_summary: { rows_modified: 3 }, base_snapshot_id: null },
      input_data: { description: 'Raise prices', schema_changes: { fields_to_add: [] } },
      ...extra,
    });
  expect(res.status).toBe(200);
  return res.body.activity_id;
}

describe('the tool server write path (tool-server.md §2.4 steps 2–4)', () => {
  it('shell, appends in chunks with batch keys (one retried), pending-review, then list / get / summary', async () => {
    const { catalogId, ids } = await catalogWithItems(6);
    await testKnex()('catalog_items').where({ id: ids[5] }).update({ current_version: 4 });

    const created = await request(server)
      .post(`/api/public/catalogs/${catalogId}/activities`)
      .set(org.auth)
      .set('X-Organization-Id', org.organizationId)
      .send({
        type: 'custom_transform',
        description: 'Raise prices',
        status: 'created',
        staged_changes: [],
        metadata: { source: 'mcp_custom_transform', diff_summary: { rows_modified: 3 } },
        input_data: { description: 'Raise prices', schema_changes: { fields_to_add: [] } },
      });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'created', staged_changes_count: 0 });
    const aid: string = created.body.activity_id;

    const chunks: Array<Array<Record<string, unknown>>> = [
      [
        // G1 diff: full rows with system columns; the array field arrives JSON-encoded.
        {
          catalog_item_id: ids[0],
          catalog_item_entity_type: 'product',
          before_data: row(ids[0], { sku: 'SKU-0', title: 'Item 0', price: 1, tags: '["a"]' }),
          after_data: row(ids[0], { sku: 'SKU-0', title: 'Item 0', price: 9.5, tags: '["a", "b"]', dims: '{"w": 2}' }),
          source_data: null,
          is_new_item: false,
          row_index: 0,
        },
        // a new row (no id)
        { catalog_item_id: null, before_data: null, after_data: { sku: 'NEW-1', title: 'New', price: 3 }, source_data: null, is_new_item: true, row_index: 1 },
      ],
      [
        // delete with is_delete
        {
          catalog_item_id: ids[1],
          catalog_item_entity_type: 'product',
          before_data: row(ids[1], { sku: 'SKU-1' }),
          after_data: {},
          is_new_item: false,
          is_delete: true,
          row_index: 2,
        },
        // an empty after_data with an id is a delete too
        { catalog_item_id: ids[2], before_data: { price: 3 }, after_data: {}, is_new_item: false, row_index: 3 },
      ],
      [
        // fails the schema: stored as error, never dropped
        { catalog_item_id: ids[3], before_data: { price: 4 }, after_data: { price: 'not a number' }, row_index: 4 },
        // names an item the catalog does not have
        { catalog_item_id: '00000000-0000-4000-8000-000000000001', before_data: {}, after_data: { price: 1 }, row_index: 5 },
        // no version sent: the item's current version at append time
        { catalog_item_id: ids[5], before_data: { price: 6 }, after_data: { price: 7 }, row_index: 6 },
        // an explicit base_version wins
        { catalog_item_id: ids[4], before_data: { price: 5 }, after_data: { price: 8 }, base_version: 3, row_index: 7 },
      ],
    ];
    const totals: number[] = [];
    for (const [i, chunk] of chunks.entries()) {
      const res = await request(server)
        .post(`/api/public/activities/${aid}/staged-changes/append`)
        .set(org.auth)
        .set('X-Organization-Id', org.organizationId)
        .send({ staged_changes: chunk, batch_key: `batch-${i}` });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ activity_id: aid, appended_count: chunk.length });
      totals.push(res.body.total_staged_changes);
      if (i === 1) {
        // The client's retry of a batch that did reach the server: a no-op with the same counts.
        const retry = await request(server)
          .post(`/api/public/activities/${aid}/staged-changes/append`)
          .set(org.auth)
          .send({ staged_changes: chunk, batch_key: 'batch-1' });
        expect(retry.body).toEqual({ activity_id: aid, appended_count: 2, total_staged_changes: 4 });
      }
    }
    expect(totals).toEqual([2, 4, 8]);

    const fin = await request(server)
      .post(`/api/public/activities/${aid}/pending-review`)
      .set(org.auth)
      .send({ message: 'Raise prices', output: { rows_modified: 3 } });
    expect(fin.status).toBe(200);
    expect(fin.body).toEqual({
      activity_id: aid,
      status: 'pending_review',
      staged_count: 8,
      review_url: `${publicUrl}/dashboard/catalogs/${catalogId}/activities/${aid}`,
    });

    const changes = await allChanges(aid);
    expect(changes.map((c) => c.row_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const c of changes) {
      for (const data of [c.before_data, c.after_data]) expect(Object.keys(data).filter((k) => k.startsWith('__'))).toEqual([]);
    }
    const [upd, created1, del1, del2, invalid, unknown, current, explicit] = changes;
    expect(upd).toMatchObject({ status: 'pending', catalog_item_id: ids[0], base_version: 1, is_delete: false, is_new_item: false });
    expect(upd.after_data).toEqual({ sku: 'SKU-0', title: 'Item 0', price: 9.5, tags: ['a', 'b'], dims: { w: 2 } });
    expect(upd.before_data.tags).toEqual(['a']);
    expect(created1).toMatchObject({ status: 'pending', catalog_item_id: null, is_new_item: true, base_version: null });
    expect(del1).toMatchObject({ status: 'pending', is_delete: true, catalog_item_id: ids[1], base_version: 1 });
    expect(del2).toMatchObject({ status: 'pending', is_delete: true, catalog_item_id: ids[2], after_data: {} });
    expect(invalid.status).toBe('error');
    expect(invalid.error_reason).toMatch(/price/);
    expect(unknown.status).toBe('error');
    expect(unknown.error_reason).toMatch(/Unknown catalog_item_id/);
    expect(current.base_version).toBe(4);
    expect(explicit.base_version).toBe(3);

    // /public and prefix-less answer the same.
    for (const prefix of ['/api/public', '/api']) {
      const got = await request(server).get(`${prefix}/activities/${aid}`).set(org.auth);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({
        id: aid,
        catalog_id: catalogId,
        type: 'custom_transform',
        status: 'pending_review',
        staged_count: 8,
        last_message: 'Raise prices',
        output: { rows_modified: 3 },
        apply_progress: null,
        apply_result: null,
        metadata: { source: 'mcp_custom_transform' },
      });
      expect(got.body.input).toMatchObject({ activity_message: 'Raise prices', schema_changes: { fields_to_add: [] } });
    }
    const page = await request(server).get(`/api/activities/${aid}/staged-changes`).query({ page: 2, page_size: 3 }).set(org.auth);
    expect(page.body).toMatchObject({ total: 8, page: 2, page_size: 3, total_pages: 3 });
    expect(page.body.items.map((c: ChangeBody) => c.row_index)).toEqual([3, 4, 5]);
    const summary = await request(server).get(`/api/public/activities/${aid}/staged-changes/summary`).set(org.auth);
    expect(summary.body).toMatchObject({ total_changes: 8, by_status: { pending: 6, error: 2 } });
    expect(summary.body.field_stats.price).toMatchObject({ total: 8 });
  });

  it('a shell with changes is pending_review at once; a strict catalog refuses unknown fields into error', async () => {
    const { catalogId, ids } = await catalogWithItems(1, true);
    const res = await request(server)
      .post(`/api/public/catalogs/${catalogId}/activities`)
      .set(org.auth)
      .send({
        type: 'custom_transform',
        staged_changes: [
          { catalog_item_id: ids[0], after_data: { price: 2 } },
          { catalog_item_id: ids[0], after_data: { colour: 'red' } },
        ],
      });
    expect(res.body).toMatchObject({ status: 'pending_review', staged_changes_count: 2 });
    const changes = await allChanges(res.body.activity_id);
    expect(changes.map((c) => c.status)).toEqual(['pending', 'error']);
  });
});

describe('custom transform (G14)', () => {
  it('needs only activity_message, and stores and shows everything else', async () => {
    const { catalogId, ids } = await catalogWithItems(1);
    const minimal = await request(server)
      .post(`/api/public/catalogs/${catalogId}/activities/custom-transform`)
      .set(org.auth)
      .send({ activity_message: 'Nothing yet' });
    expect(minimal.status).toBe(200);
    expect(minimal.body).toMatchObject({ status: 'pending_review', staged_count: 0 });
    expect(minimal.body.review_url).toBe(`${publicUrl}/dashboard/catalogs/${catalogId}/activities/${minimal.body.activity_id}`);

    const full = {
      activity_message: 'Normalise titles',
      script: { filename: 't.py', content: 'def transform(rows): return rows', sha256: 'abc' },
      diff_summary: { rows_modified: 1 },
      validation_report: { valid: true, errors: [], warnings: [] },
      staged_changes: [{ catalog_item_id: ids[0], before_data: { title: 'Item 0' }, after_data: { title: 'ITEM 0' } }],
      schema_changes: { fields_to_add: [{ field_name: 'colour', field_type: 'string' }] },
      taxonomy_changes: { nodes: {} },
      attachments: [{ name: 'notes.txt' }],
      activity_context: { source_snapshot: { rows: 1 } },
      session_context: { user: 'me' },
      base_snapshot_id: 'snap-1',
    };
    const res = await request(server).post(`/api/public/catalogs/${catalogId}/activities/custom-transform`).set(org.auth).send(full);
    expect(res.body).toMatchObject({ status: 'pending_review', staged_count: 1 });
    const got = await request(server).get(`/api/activities/${res.body.activity_id}`).set(org.auth);
    expect(got.body.input).toMatchObject({
      activity_message: 'Normalise titles',
      schema_changes: full.schema_changes,
      taxonomy_changes: full.taxonomy_changes,
      attachments: full.attachments,
      activity_context: full.activity_context,
      session_context: full.session_context,
      base_snapshot_id: 'snap-1',
    });
    expect(got.body.metadata).toMatchObject({ script: full.script, diff_summary: full.diff_summary, validation_report: full.validation_report });
    expect(got.body).toMatchObject({ description: 'Normalise titles', last_message: 'Normalise titles', type: 'custom_transform' });

    const bad = await request(server).post(`/api/public/catalogs/${catalogId}/activities/custom-transform`).set(org.auth).send({ script: {} });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'activity_message']);
  });
});

describe('bulk review', () => {
  /** An activity with 4 changes: price+title on items 0 and 1, price on 2 (low confidence), and one error. */
  async function reviewable(): Promise<{ aid: string; changes: ChangeBody[] }> {
    const { catalogId, ids } = await catalogWithItems(4);
    const aid = await shell(catalogId);
    const res = await request(server)
      .post(`/api/public/activities/${aid}/staged-changes/append`)
      .set(org.auth)
      .send({
        staged_changes: [
          {
            catalog_item_id: ids[0],
            before_data: { price: 1, title: 'Item 0' },
            after_data: { price: 10, title: 'Shirt' },
            review_info: { confidence: 'high' },
          },
          {
            catalog_item_id: ids[1],
            before_data: { price: 2, title: 'Item 1' },
            after_data: { price: 2, title: 'Trousers' },
            review_info: { confidence: 'medium' },
          },
          { catalog_item_id: ids[2], before_data: { price: 3 }, after_data: { price: 30 }, review_info: { confidence: 'low' } },
          { catalog_item_id: ids[3], before_data: { price: 4 }, after_data: { price: 'x' } },
        ],
      });
    expect(res.body.total_staged_changes).toBe(4);
    return { aid, changes: await allChanges(aid) };
  }

  const review = (aid: string, body: Record<string, unknown>, prefix = '/api') =>
    request(server).post(`${prefix}/activities/${aid}/staged-changes/bulk-review`).set(org.auth).send(body);

  it('approve / reject fields one by one makes a change partially_accepted, then rejected when none remain', async () => {
    const { aid, changes } = await reviewable();
    const id = changes[0].id;
    expect((await review(aid, { action: 'approve', change_ids: [id], field_names: ['price', 'nope'] })).body).toEqual({ activity_id: aid, updated: 1 });
    let c = (await allChanges(aid))[0];
    expect(c).toMatchObject({ status: 'partially_accepted', accepted_fields: ['price'] });
    await review(aid, { action: 'approve', change_ids: [id], field_names: ['title'] }, '/api/public');
    c = (await allChanges(aid))[0];
    expect(c).toMatchObject({ status: 'partially_accepted', accepted_fields: ['price', 'title'] });
    await review(aid, { action: 'reject', change_ids: [id], field_names: ['title'] });
    c = (await allChanges(aid))[0];
    expect(c).toMatchObject({ status: 'partially_accepted', accepted_fields: ['price'] });
    await review(aid, { action: 'reject', change_ids: [id], field_names: ['price'], rejection_reason: 'wrong' });
    c = (await allChanges(aid))[0];
    expect(c).toMatchObject({ status: 'rejected', accepted_fields: null, rejection_reason: 'wrong' });

    // Rejecting one field of an untouched change keeps the others accepted.
    await review(aid, { action: 'reject', change_ids: [changes[1].id], field_names: ['title'] });
    expect((await allChanges(aid))[1]).toMatchObject({ status: 'partially_accepted', accepted_fields: ['price'] });
    // Whole-change approve and reject.
    await review(aid, { action: 'approve', change_ids: [changes[1].id] });
    expect((await allChanges(aid))[1]).toMatchObject({ status: 'approved', accepted_fields: null });
    await review(aid, { action: 'reject', change_ids: [changes[1].id], rejection_reason: 'no' });
    expect((await allChanges(aid))[1]).toMatchObject({ status: 'rejected', rejection_reason: 'no' });
    // An error change is never approved, not even by id.
    expect((await review(aid, { action: 'approve', change_ids: [changes[3].id] })).body.updated).toBe(0);
  });

  it('the list filters (status, field, confidence, search_query) and *_all act on exactly what the filter lists', async () => {
    const { aid } = await reviewable();
    const list = async (q: Record<string, string>) =>
      ((await request(server).get(`/api/public/activities/${aid}/staged-changes`).query(q).set(org.auth)).body.items as ChangeBody[]).map((c) => c.row_index);
    expect(await list({ field: 'title' })).toEqual([0, 1]);
    expect(await list({ field: 'price' })).toEqual([0, 2, 3]); // item 1's price did not change
    expect(await list({ confidence: 'low' })).toEqual([2]);
    expect(await list({ search_query: 'TROUS' })).toEqual([1]);
    expect(await list({ status: 'error' })).toEqual([3]);
    const bad = await request(server).get(`/api/public/activities/${aid}/staged-changes`).query({ confidence: 'sure' }).set(org.auth);
    expect(bad.status).toBe(422);

    expect((await review(aid, { action: 'approve_all', filter: { field: 'price' } })).body.updated).toBe(2); // not the error one
    expect((await list({ status: 'approved' })).sort()).toEqual([0, 2]);
    expect(await list({ status: 'error' })).toEqual([3]);
    // A decided change is left alone by *_all unless the filter names its status (issue 26 §5).
    expect((await review(aid, { action: 'reject_all', filter: { confidence: 'low' }, rejection_reason: 'unsure' })).body.updated).toBe(0);
    expect(await list({ status: 'approved' })).toEqual([0, 2]);
    expect((await review(aid, { action: 'reject_all', filter: { confidence: 'low', status: 'approved' }, rejection_reason: 'unsure' })).body.updated).toBe(1);
    expect(await list({ status: 'rejected' })).toEqual([2]);
    expect((await review(aid, { action: 'approve_all' })).body.updated).toBe(1); // only 1 (pending): never 2 (rejected) nor 3 (error)
    expect(await list({ status: 'approved' })).toEqual([0, 1]);
    expect(await list({ status: 'rejected' })).toEqual([2]);
    expect((await review(aid, { action: 'reject_all', rejection_reason: 'superseded' })).body.updated).toBe(0); // nothing undecided left
    expect((await review(aid, { action: 'approve_all', filter: { status: 'rejected' } })).body.updated).toBe(1);
    expect(await list({ status: 'approved' })).toEqual([0, 1, 2]);
    expect((await review(aid, { action: 'approve_all', filter: { status: 'error' } })).body.updated).toBe(0); // errors never

    const missing = await review(aid, { action: 'approve' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'change_ids']);
    expect((await review(aid, { action: 'accept' })).status).toBe(422);
  });
});

describe('vendor drafts (issue 26 §3) and decisions that stand (§5)', () => {
  const review = (aid: string, body: Record<string, unknown>) =>
    request(server).post(`/api/activities/${aid}/staged-changes/bulk-review`).set(org.auth).send(body);
  const get = (path: string, query: Record<string, string> = {}) => request(server).get(path).query(query).set(org.auth);

  it('hides drafts from lists, summaries, activity lists and approve_all until submitted; submit makes them pending', async () => {
    const { catalogId, ids } = await catalogWithItems(3);
    // An activity whose changes are all drafts, and one with a pending change and a draft.
    const allDrafts = await shell(catalogId);
    await request(server)
      .post(`/api/public/activities/${allDrafts}/staged-changes/append`)
      .set(org.auth)
      .send({
        staged_changes: [
          { catalog_item_id: ids[0], after_data: { price: 10 }, status: 'draft' },
          { catalog_item_id: ids[1], after_data: { price: 20 }, status: 'draft' },
        ],
      })
      .expect(200);
    const mixed = await shell(catalogId);
    const appended = await request(server)
      .post(`/api/public/activities/${mixed}/staged-changes/append`)
      .set(org.auth)
      .send({
        staged_changes: [
          { catalog_item_id: ids[2], after_data: { price: 30 } },
          { catalog_item_id: ids[0], after_data: { title: 'Drafted' }, status: 'draft' },
        ],
      });
    expect(appended.body.total_staged_changes).toBe(2); // the writer sees what it staged
    await request(server).post(`/api/public/activities/${allDrafts}/pending-review`).set(org.auth).send({}).expect(200);
    await request(server).post(`/api/public/activities/${mixed}/pending-review`).set(org.auth).send({}).expect(200);

    // Activity list: the all-draft activity is hidden, counts leave drafts out.
    const listed = await get(`/api/public/catalogs/${catalogId}/activities`);
    expect(listed.body.total).toBe(1);
    expect(listed.body.activities).toEqual([expect.objectContaining({ id: mixed, staged_count: 1 })]);
    const withDrafts = await get(`/api/public/catalogs/${catalogId}/activities`, { include_drafts: 'true' });
    expect(withDrafts.body.total).toBe(2);
    expect(withDrafts.body.activities.find((a: { id: string }) => a.id === allDrafts)).toMatchObject({ staged_count: 2 });

    // Staged changes, summary and the activity: drafts only when asked for.
    expect((await get(`/api/activities/${mixed}/staged-changes`)).body).toMatchObject({ total: 1, items: [{ row_index: 0, status: 'pending' }] });
    expect((await get(`/api/activities/${mixed}/staged-changes`, { include_drafts: 'true' })).body.total).toBe(2);
    expect((await get(`/api/activities/${mixed}/staged-changes`, { status: 'draft' })).body.total).toBe(1);
    const summary = (await get(`/api/activities/${mixed}/staged-changes/summary`)).body;
    expect(summary).toMatchObject({ total_changes: 1, by_status: { pending: 1 } });
    expect(summary.field_stats.title).toBeUndefined();
    expect((await get(`/api/activities/${mixed}/staged-changes/summary`, { include_drafts: 'true' })).body).toMatchObject({
      total_changes: 2,
      by_status: { pending: 1, draft: 1 },
    });
    const activity = (await get(`/api/activities/${allDrafts}`)).body;
    expect(activity).toMatchObject({ staged_count: 0, draft_count: 2, review_url: `${publicUrl}/dashboard/catalogs/${catalogId}/activities/${allDrafts}` });
    expect((await get(`/api/activities/${allDrafts}`, { include_drafts: 'true' })).body.staged_count).toBe(2);

    // approve_all / reject_all leave drafts alone unless include_drafts.
    expect((await review(allDrafts, { action: 'approve_all' })).body.updated).toBe(0);
    expect((await review(allDrafts, { action: 'reject_all' })).body.updated).toBe(0);
    expect((await review(mixed, { action: 'approve_all' })).body.updated).toBe(1);
    const rows = await testKnex()('staged_changes').where({ activity_id: mixed }).orderBy('row_index').select('status');
    expect(rows.map((r: { status: string }) => r.status)).toEqual(['approved', 'draft']);

    // Submit (both mounts): drafts → pending, the activity → pending_review; again submits nothing.
    const submitted = await request(server).post(`/api/public/activities/${allDrafts}/submit`).set(org.auth).send({});
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({
      activity_id: allDrafts,
      status: 'pending_review',
      submitted: 2,
      review_url: `${publicUrl}/dashboard/catalogs/${catalogId}/activities/${allDrafts}`,
    });
    expect((await request(server).post(`/api/activities/${allDrafts}/submit`).set(org.auth)).body).toMatchObject({ submitted: 0 });
    expect((await get(`/api/public/catalogs/${catalogId}/activities`)).body.total).toBe(2);
    expect((await get(`/api/activities/${allDrafts}/staged-changes`)).body.items.map((c: ChangeBody) => c.status)).toEqual(['pending', 'pending']);
    expect((await review(allDrafts, { action: 'approve_all' })).body.updated).toBe(2);

    // include_drafts on a bulk action reaches drafts too; 403 / 404 / 409 on submit.
    expect((await review(mixed, { action: 'reject_all', filter: { include_drafts: true }, rejection_reason: 'vendor draft' })).body.updated).toBe(1);
    expect((await request(server).post(`/api/public/activities/${mixed}/submit`).set(other.auth)).status).toBe(403);
    expect((await request(server).post('/api/public/activities/00000000-0000-4000-8000-000000000000/submit').set(org.auth)).status).toBe(404);
    await request(server).post(`/api/activities/${mixed}/cancel`).set(org.auth).expect(200);
    expect((await request(server).post(`/api/public/activities/${mixed}/submit`).set(org.auth)).status).toBe(409);
  });

  it('a rejection and a partial accept survive approve_all and reject_all', async () => {
    const { catalogId, ids } = await catalogWithItems(3);
    const aid = await shell(catalogId);
    await request(server)
      .post(`/api/public/activities/${aid}/staged-changes/append`)
      .set(org.auth)
      .send({
        staged_changes: [
          { catalog_item_id: ids[0], after_data: { title: 'Rejected title', price: 11 } },
          { catalog_item_id: ids[1], after_data: { title: 'Partly', price: 22 } },
          { catalog_item_id: ids[2], after_data: { title: 'Undecided', price: 33 } },
        ],
      })
      .expect(200);
    const [c0, c1] = (await allChanges(aid)).map((c) => c.id);
    await review(aid, { action: 'reject', change_ids: [c0], rejection_reason: 'wrong' }).expect(200);
    await review(aid, { action: 'approve', change_ids: [c1], field_names: ['title'] }).expect(200);
    expect((await review(aid, { action: 'approve_all' })).body.updated).toBe(1);
    let changes = await allChanges(aid);
    expect(changes.map((c) => [c.status, c.accepted_fields, c.rejection_reason])).toEqual([
      ['rejected', null, 'wrong'],
      ['partially_accepted', ['title'], null],
      ['approved', null, null],
    ]);
    expect((await review(aid, { action: 'reject_all' })).body.updated).toBe(0);
    expect((await review(aid, { action: 'approve_all', filter: { field: 'price' } })).body.updated).toBe(0);
    changes = await allChanges(aid);
    expect(changes.map((c) => c.status)).toEqual(['rejected', 'partially_accepted', 'approved']);
  });
});

describe('cancel, the activity list and error statuses', () => {
  it('cancel keeps the changes; a cancelled activity refuses appends, review and pending-review with 409', async () => {
    const { catalogId, ids } = await catalogWithItems(1);
    const aid = await shell(catalogId);
    await request(server)
      .post(`/api/public/activities/${aid}/staged-changes/append`)
      .set(org.auth)
      .send({ staged_changes: [{ catalog_item_id: ids[0], after_data: { price: 5 } }] });
    const cancelled = await request(server).post(`/api/activities/${aid}/cancel`).set(org.auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: aid, status: 'cancelled', staged_count: 1 });
    expect((await request(server).post(`/api/public/activities/${aid}/cancel`).set(org.auth)).body.status).toBe('cancelled');
    expect(await allChanges(aid)).toHaveLength(1);

    const append = await request(server).post(`/api/public/activities/${aid}/staged-changes/append`).set(org.auth).send({ staged_changes: [] });
    expect(append.status).toBe(409);
    expect(typeof append.body.detail).toBe('string');
    expect((await request(server).post(`/api/public/activities/${aid}/pending-review`).set(org.auth).send({})).status).toBe(409);
    expect((await request(server).post(`/api/activities/${aid}/staged-changes/bulk-review`).set(org.auth).send({ action: 'approve_all' })).status).toBe(409);

    await testKnex()('review_activities').where({ id: aid }).update({ status: 'completed' });
    expect((await request(server).post(`/api/activities/${aid}/cancel`).set(org.auth)).status).toBe(409);
  });

  it('404 for unknown or malformed ids, 403 for another organization, 422 for bad bodies', async () => {
    const { catalogId } = await catalogWithItems(0);
    const aid = await shell(catalogId);
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const path of [`/api/activities/${unknown}`, `/api/public/activities/nope`, `/api/activities/${unknown}/staged-changes`]) {
      const res = await request(server).get(path).set(org.auth);
      expect([path, res.status, res.body.detail]).toEqual([path, 404, 'Activity not found']);
    }
    expect((await request(server).post(`/api/public/activities/${unknown}/staged-changes/append`).set(org.auth).send({ staged_changes: [] })).status).toBe(404);
    for (const [method, path, body] of [
      ['get', `/api/activities/${aid}`, undefined],
      ['get', `/api/public/activities/${aid}/staged-changes/summary`, undefined],
      ['post', `/api/public/activities/${aid}/staged-changes/append`, { staged_changes: [] }],
      ['post', `/api/public/activities/${aid}/pending-review`, {}],
      ['post', `/api/activities/${aid}/staged-changes/bulk-review`, { action: 'approve_all' }],
      ['post', `/api/activities/${aid}/cancel`, undefined],
      ['get', `/api/public/catalogs/${catalogId}/activities`, undefined],
      ['post', `/api/public/catalogs/${catalogId}/activities`, { type: 'custom_transform' }],
    ] as const) {
      const req =
        method === 'get'
          ? request(server).get(path)
          : request(server)
              .post(path)
              .send(body ?? {});
      const res = await req.set(other.auth);
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
    const notArray = await request(server).post(`/api/public/activities/${aid}/staged-changes/append`).set(org.auth).send({ staged_changes: 'x' });
    expect(notArray.status).toBe(422);
    expect(notArray.body.detail[0].loc).toEqual(['body', 'staged_changes']);
    const badChange = await request(server)
      .post(`/api/public/activities/${aid}/staged-changes/append`)
      .set(org.auth)
      .send({ staged_changes: [{ after_data: 'x' }] });
    expect(badChange.status).toBe(422);
    expect(badChange.body.detail[0].loc).toEqual(['body', 'staged_changes', 0, 'after_data']);
    const badType = await request(server).post(`/api/public/catalogs/${catalogId}/activities`).set(org.auth).send({ type: 'enrichment' });
    expect(badType.status).toBe(422);
  });

  it('lists a catalog’s activities with status / type filters, limit and offset', async () => {
    const { catalogId } = await catalogWithItems(0);
    const a1 = await shell(catalogId);
    const a2 = await shell(catalogId, { type: 'smart_import', status: undefined, staged_changes: [{ catalog_item_id: null, after_data: { sku: 'N' } }] });
    const a3 = await shell(catalogId);
    await request(server).post(`/api/activities/${a3}/cancel`).set(org.auth);
    const all = await request(server).get(`/api/public/catalogs/${catalogId}/activities`).set(org.auth);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.activities.map((a: { id: string }) => a.id)).toEqual([a3, a2, a1]);
    expect(Object.keys(all.body.activities[1]).sort()).toEqual([
      'catalog_id',
      'created_at',
      'description',
      'id',
      'review_url',
      'staged_count',
      'status',
      'type',
      'updated_at',
    ]);
    expect(all.body.activities[1]).toMatchObject({
      type: 'smart_import',
      status: 'pending_review',
      staged_count: 1,
      catalog_id: catalogId,
      review_url: `${publicUrl}/dashboard/catalogs/${catalogId}/activities/${a2}`,
    });
    const q = (query: Record<string, string | number>) => request(server).get(`/api/public/catalogs/${catalogId}/activities`).query(query).set(org.auth);
    expect((await q({ status: 'cancelled' })).body).toMatchObject({ total: 1, activities: [{ id: a3 }] });
    expect((await q({ type: 'smart_import' })).body).toMatchObject({ total: 1, activities: [{ id: a2 }] });
    const paged = await q({ limit: 1, offset: 1 });
    expect(paged.body.total).toBe(3);
    expect(paged.body.activities.map((a: { id: string }) => a.id)).toEqual([a2]);
    expect((await q({ status: 'nope' })).status).toBe(422);
  });
});

describe('also fixed (issue 17)', () => {
  it('bulk upserts recognise the snapshot-row system columns and never store them as data', async () => {
    const { catalogId, ids } = await catalogWithItems(1);
    const res = await request(server)
      .post(`/api/public/catalogs/${catalogId}/items/bulk`)
      .set(org.auth)
      .send({
        items: [
          { __catalog_item_id: ids[0], __entity_type: 'product', __parent_id: '', __current_version: '1', sku: 'SKU-0', title: 'Renamed' },
          { __catalog_item_id: '', __entity_type: '', __parent_id: '', __current_version: '', sku: 'SKU-NEW', title: 'New' },
        ],
      });
    expect(res.body).toMatchObject({ items_updated: 1, items_created: 1, items_failed: 0 });
    const rows = await testKnex()('catalog_items').where({ catalog_id: catalogId }).orderBy('business_key').select('id', 'data');
    expect(rows).toHaveLength(2);
    for (const r of rows as Array<{ data: Record<string, unknown> }>) expect(Object.keys(r.data).filter((k) => k.startsWith('__'))).toEqual([]);
    expect(rows.find((r: { id: string }) => r.id === ids[0]).data.title).toBe('Renamed');
  });

  it('catalogs carry variant_mode beside product_enabled', async () => {
    const grouped = await createTestCatalog(org.organizationId, { product_enabled: true, product_id_field: 'product_id' });
    const flat = await createTestCatalog(org.organizationId);
    const g = await request(server).get(`/api/public/catalogs/${grouped}`).set(org.auth);
    const f = await request(server).get(`/api/public/catalogs/${flat}`).set(org.auth);
    expect(g.body).toMatchObject({ product_enabled: true, variant_mode: 'product_grouped' });
    expect(f.body).toMatchObject({ product_enabled: false, variant_mode: 'none' });
  });
});

describe('OpenAPI', () => {
  it('documents every review route under both prefixes and the webhook secret routes; answers match the documented responses', async () => {
    const doc = (await request(server).get('/api/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: { 'application/json': { schema: object } } }> }>>;
    };
    const expected: Array<[string, string]> = [
      ['/api/public/catalogs/{catalog_id}/activities', 'get'],
      ['/api/public/catalogs/{catalog_id}/activities', 'post'],
      ['/api/public/catalogs/{catalog_id}/activities/custom-transform', 'post'],
      ['/api/public/organization/webhook-secret', 'get'],
      ['/api/public/organization/webhook-secret/rotate', 'post'],
    ];
    for (const prefix of ['/api/public', '/api']) {
      expected.push(
        [`${prefix}/activities/{activity_id}`, 'get'],
        [`${prefix}/activities/{activity_id}/staged-changes`, 'get'],
        [`${prefix}/activities/{activity_id}/staged-changes/summary`, 'get'],
        [`${prefix}/activities/{activity_id}/staged-changes/append`, 'post'],
        [`${prefix}/activities/{activity_id}/pending-review`, 'post'],
        [`${prefix}/activities/{activity_id}/submit`, 'post'],
        [`${prefix}/activities/{activity_id}/staged-changes/bulk-review`, 'post'],
        [`${prefix}/activities/{activity_id}/cancel`, 'post'],
      );
    }
    for (const [p, m] of expected) expect([p, m, doc.paths[p]?.[m] !== undefined]).toEqual([p, m, true]);

    const ajv = addFormats(new Ajv2020({ strict: false }));
    const check = (path: string, method: string, body: unknown) => {
      const schema = doc.paths[path][method].responses['200'].content!['application/json'].schema;
      expect([path, ajv.validate(schema, body), ajv.errorsText()]).toEqual([path, true, 'No errors']);
    };
    const { catalogId, ids } = await catalogWithItems(1);
    const aid = await shell(catalogId);
    const appended = await request(server)
      .post(`/api/public/activities/${aid}/staged-changes/append`)
      .set(org.auth)
      .send({ staged_changes: [{ catalog_item_id: ids[0], after_data: { price: 2 } }] });
    check('/api/public/activities/{activity_id}/staged-changes/append', 'post', appended.body);
    check('/api/activities/{activity_id}', 'get', (await request(server).get(`/api/activities/${aid}`).set(org.auth)).body);
    check('/api/activities/{activity_id}/staged-changes', 'get', (await request(server).get(`/api/activities/${aid}/staged-changes`).set(org.auth)).body);
    check(
      '/api/activities/{activity_id}/staged-changes/summary',
      'get',
      (await request(server).get(`/api/activities/${aid}/staged-changes/summary`).set(org.auth)).body,
    );
    check(
      '/api/public/catalogs/{catalog_id}/activities',
      'get',
      (await request(server).get(`/api/public/catalogs/${catalogId}/activities`).set(org.auth)).body,
    );
    check(
      '/api/public/activities/{activity_id}/pending-review',
      'post',
      (await request(server).post(`/api/public/activities/${aid}/pending-review`).set(org.auth).send({})).body,
    );
    check('/api/activities/{activity_id}/submit', 'post', (await request(server).post(`/api/activities/${aid}/submit`).set(org.auth).send({})).body);
    check('/api/activities/{activity_id}/cancel', 'post', (await request(server).post(`/api/activities/${aid}/cancel`).set(org.auth)).body);
    check('/api/public/organization/webhook-secret', 'get', (await request(server).get('/api/public/organization/webhook-secret').set(org.auth)).body);
  });
});
