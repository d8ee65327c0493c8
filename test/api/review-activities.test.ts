/**
 * The review API on the real PostgreSQL (docs/api-review.md "Activities", "Appending staged
 * changes", "Bulk review"; docs/review.md "Decisions stand"): the tool server's write path exactly
 * as docs/tool-server-design.md "Staging" steps 2–4 send it (shell → appends in chunks with batch keys, one retried → pending-review → list, get,
 * summary), what append does to each change (system columns, JSON strings, deletes, schema
 * validation into `error`, base versions), custom transforms, bulk review (field by field and by
 * filter), cancel, the activity list and the error statuses (the OpenAPI document and the other
 * items: test/api/review-openapi.test.ts). Called through the typed client
 * (packages/client); bodies and query values its types refuse go through supertest.
 */
import request from 'supertest';
import type { Server } from 'node:http';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { loadConfig } from '../../src/config';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import type { ValidationErrorBody } from '../helpers/wire';
import {
  act,
  type ReviewActivitiesQuery,
  type ReviewActivityInput,
  reviewActivityShell,
  type AppendBody,
  type ChangesQuery,
  reviewCalls,
  reviewCatalog,
} from '../helpers/review-calls';

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
const publicUrl = loadConfig().publicUrl;

/** `GET …/staged-changes` answer. */
type ChangesPage = paths['/api/activities/{activity_id}/staged-changes']['get']['responses'][200]['content']['application/json'];
/** A staged change as the routes list it. */
type ChangeBody = ChangesPage['items'][number];
/** `POST …/staged-changes/bulk-review` body. */
type ReviewBody = paths['/api/activities/{activity_id}/staged-changes/bulk-review']['post']['requestBody']['content']['application/json'];

/** The typed client with `org`'s credential. */
let api: CatalogClient;

beforeAll(async () => {
  server = await listenTestApp();
  org = await createTestOrg('review api');
  other = await createTestOrg('review api, other org');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** `POST /public/activities/{id}/staged-changes/append` with `body`, as `client`. */
const append = (aid: string, body: AppendBody, client: CatalogClient = api) => reviewCalls(api).append(aid, body, client);
/** `GET …/staged-changes` of the activity with `query`, under `/api` or `/api/public`. */
const listChanges = (aid: string, query: ChangesQuery = {}, prefix: '/api' | '/api/public' = '/api') =>
  prefix === '/api'
    ? api.GET('/api/activities/{activity_id}/staged-changes', { params: { path: { activity_id: aid }, query } })
    : api.GET('/api/public/activities/{activity_id}/staged-changes', { params: { path: { activity_id: aid }, query } });
/** `POST …/staged-changes/bulk-review` with `body`, under `/api` or `/api/public`. */
const review = (aid: string, body: ReviewBody, prefix: '/api' | '/api/public' = '/api') =>
  prefix === '/api'
    ? api.POST('/api/activities/{activity_id}/staged-changes/bulk-review', { ...act(aid), body })
    : api.POST('/api/public/activities/{activity_id}/staged-changes/bulk-review', { ...act(aid), body });
/** `GET /public/catalogs/{id}/activities` with `query`. */
const listActivities = (catalogId: string, query: ReviewActivitiesQuery = {}) => reviewCalls(api).listActivities(catalogId, query);
/** `GET /activities/{id}` (`include_drafts` when given). */
const getActivity = (aid: string, query: { include_drafts?: boolean } = {}) => reviewCalls(api).getActivity(aid, query);
/** `POST /activities/{id}/cancel`. */
const cancel = (aid: string) => reviewCalls(api).cancel(aid);

/** A catalog of `org` with the test schema and `n` items SKU-0… (through the bulk route). */
const catalogWithItems = (n: number, strict = false) => reviewCatalog(api, org.organizationId, n, strict);

/** Every staged change of an activity, in row order (prefix-less list, the tool server's path). */
async function allChanges(activityId: string): Promise<ChangeBody[]> {
  const res = await listChanges(activityId, { page_size: 1000 });
  expect(res.response.status).toBe(200);
  return res.data!.items;
}

/** A pulled snapshot row as the tool server's diff carries it (system columns, JSON-encoded containers). */
function row(id: string, data: Record<string, unknown>, version: number | string = 1): Record<string, unknown> {
  return { __catalog_item_id: id, __entity_type: 'product', __parent_id: '', __current_version: version, ...data };
}

/** A `custom_transform` activity shell of `catalogId` (see reviewActivityShell). */
const shell = (catalogId: string, extra: Partial<ReviewActivityInput> = {}) => reviewActivityShell(api, catalogId, extra);

describe('the tool server write path (shell, chunked appends, pending-review)', () => {
  it('shell, appends in chunks with batch keys (one retried), pending-review, then list / get / summary', async () => {
    const { catalogId, ids } = await catalogWithItems(6);
    await testKnex()('catalog_items').where({ id: ids[5] }).update({ current_version: 4 });

    const created = await api.POST('/api/public/catalogs/{catalog_id}/activities', {
      params: { path: { catalog_id: catalogId }, header: { 'X-Organization-Id': org.organizationId } },
      body: {
        type: 'custom_transform',
        description: 'Raise prices',
        status: 'created',
        staged_changes: [],
        metadata: { source: 'mcp_custom_transform', diff_summary: { rows_modified: 3 } },
        input_data: { description: 'Raise prices', schema_changes: { fields_to_add: [] } },
      },
    });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ status: 'created', staged_changes_count: 0 });
    const aid: string = created.data!.activity_id;

    const chunks: Array<AppendBody['staged_changes']> = [
      [
        // Rows as the tool server's diff sends them: full rows with system columns; the array field arrives JSON-encoded.
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
      const res = await api.POST('/api/public/activities/{activity_id}/staged-changes/append', {
        params: { path: { activity_id: aid }, header: { 'X-Organization-Id': org.organizationId } },
        body: { staged_changes: chunk, batch_key: `batch-${i}` },
      });
      expect(res.response.status).toBe(200);
      expect(res.data).toMatchObject({ activity_id: aid, appended_count: chunk.length });
      totals.push(res.data!.total_staged_changes);
      if (i === 1) {
        // The client's retry of a batch that did reach the server: a no-op with the same counts.
        const retry = await append(aid, { staged_changes: chunk, batch_key: 'batch-1' });
        expect(retry.data).toEqual({ activity_id: aid, appended_count: 2, total_staged_changes: 4 });
      }
    }
    expect(totals).toEqual([2, 4, 8]);

    const fin = await api.POST('/api/public/activities/{activity_id}/pending-review', {
      ...act(aid),
      body: { message: 'Raise prices', output: { rows_modified: 3 } },
    });
    expect(fin.response.status).toBe(200);
    expect(fin.data).toEqual({
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
      const got = prefix === '/api' ? await getActivity(aid) : await api.GET('/api/public/activities/{activity_id}', act(aid));
      expect(got.response.status).toBe(200);
      expect(got.data).toMatchObject({
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
      expect(got.data!.input).toMatchObject({ activity_message: 'Raise prices', schema_changes: { fields_to_add: [] } });
    }
    const page = await listChanges(aid, { page: 2, page_size: 3 });
    expect(page.data).toMatchObject({ total: 8, page: 2, page_size: 3, total_pages: 3 });
    expect(page.data!.items.map((c) => c.row_index)).toEqual([3, 4, 5]);
    const summary = await api.GET('/api/public/activities/{activity_id}/staged-changes/summary', act(aid));
    expect(summary.data).toMatchObject({ total_changes: 8, by_status: { pending: 6, error: 2 } });
    expect(summary.data!.field_stats.price).toMatchObject({ total: 8 });
  });

  it('a shell with changes is pending_review at once; a strict catalog refuses unknown fields into error', async () => {
    const { catalogId, ids } = await catalogWithItems(1, true);
    const res = await api.POST('/api/public/catalogs/{catalog_id}/activities', {
      params: { path: { catalog_id: catalogId } },
      body: {
        type: 'custom_transform',
        staged_changes: [
          { catalog_item_id: ids[0], after_data: { price: 2 } },
          { catalog_item_id: ids[0], after_data: { colour: 'red' } },
        ],
      },
    });
    expect(res.data).toMatchObject({ status: 'pending_review', staged_changes_count: 2 });
    const changes = await allChanges(res.data!.activity_id);
    expect(changes.map((c) => c.status)).toEqual(['pending', 'error']);
  });
});

describe('custom transform activities', () => {
  it('needs only activity_message, and stores and shows everything else', async () => {
    const { catalogId, ids } = await catalogWithItems(1);
    const transform = (body: paths['/api/public/catalogs/{catalog_id}/activities/custom-transform']['post']['requestBody']['content']['application/json']) =>
      api.POST('/api/public/catalogs/{catalog_id}/activities/custom-transform', { params: { path: { catalog_id: catalogId } }, body });
    const minimal = await transform({ activity_message: 'Nothing yet' });
    expect(minimal.response.status).toBe(200);
    expect(minimal.data).toMatchObject({ status: 'pending_review', staged_count: 0 });
    expect(minimal.data!.review_url).toBe(`${publicUrl}/dashboard/catalogs/${catalogId}/activities/${minimal.data!.activity_id}`);

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
    const res = await transform(full);
    expect(res.data).toMatchObject({ status: 'pending_review', staged_count: 1 });
    const got = await getActivity(res.data!.activity_id);
    expect(got.data!.input).toMatchObject({
      activity_message: 'Normalise titles',
      schema_changes: full.schema_changes,
      taxonomy_changes: full.taxonomy_changes,
      attachments: full.attachments,
      activity_context: full.activity_context,
      session_context: full.session_context,
      base_snapshot_id: 'snap-1',
    });
    expect(got.data!.metadata).toMatchObject({ script: full.script, diff_summary: full.diff_summary, validation_report: full.validation_report });
    expect(got.data).toMatchObject({ description: 'Normalise titles', last_message: 'Normalise titles', type: 'custom_transform' });

    // No activity_message: the client's types refuse the body.
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
    const res = await append(aid, {
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
    expect(res.data!.total_staged_changes).toBe(4);
    return { aid, changes: await allChanges(aid) };
  }

  it('approve / reject fields one by one makes a change partially_accepted, then rejected when none remain', async () => {
    const { aid, changes } = await reviewable();
    const id = changes[0].id;
    expect((await review(aid, { action: 'approve', change_ids: [id], field_names: ['price', 'nope'] })).data!).toEqual({ activity_id: aid, updated: 1 });
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
    expect((await review(aid, { action: 'approve', change_ids: [changes[3].id] })).data!.updated).toBe(0);
  });

  it('the list filters (status, field, confidence, search_query) and *_all act on exactly what the filter lists', async () => {
    const { aid } = await reviewable();
    const list = async (q: ChangesQuery) => (await listChanges(aid, q, '/api/public')).data!.items.map((c) => c.row_index);
    expect(await list({ field: 'title' })).toEqual([0, 1]);
    expect(await list({ field: 'price' })).toEqual([0, 2, 3]); // item 1's price did not change
    expect(await list({ confidence: 'low' })).toEqual([2]);
    expect(await list({ search_query: 'TROUS' })).toEqual([1]);
    expect(await list({ status: 'error' })).toEqual([3]);
    // A confidence outside the enum: the client's types refuse it.
    const bad = await request(server).get(`/api/public/activities/${aid}/staged-changes`).query({ confidence: 'sure' }).set(org.auth);
    expect(bad.status).toBe(422);

    expect((await review(aid, { action: 'approve_all', filter: { field: 'price' } })).data!.updated).toBe(2); // not the error one
    expect((await list({ status: 'approved' })).sort()).toEqual([0, 2]);
    expect(await list({ status: 'error' })).toEqual([3]);
    // A decided change is left alone by *_all unless the filter names its status (docs/review.md "Decisions stand").
    expect((await review(aid, { action: 'reject_all', filter: { confidence: 'low' }, rejection_reason: 'unsure' })).data!.updated).toBe(0);
    expect(await list({ status: 'approved' })).toEqual([0, 2]);
    expect((await review(aid, { action: 'reject_all', filter: { confidence: 'low', status: 'approved' }, rejection_reason: 'unsure' })).data!.updated).toBe(1);
    expect(await list({ status: 'rejected' })).toEqual([2]);
    expect((await review(aid, { action: 'approve_all' })).data!.updated).toBe(1); // only 1 (pending): never 2 (rejected) nor 3 (error)
    expect(await list({ status: 'approved' })).toEqual([0, 1]);
    expect(await list({ status: 'rejected' })).toEqual([2]);
    expect((await review(aid, { action: 'reject_all', rejection_reason: 'superseded' })).data!.updated).toBe(0); // nothing undecided left
    expect((await review(aid, { action: 'approve_all', filter: { status: 'rejected' } })).data!.updated).toBe(1);
    expect(await list({ status: 'approved' })).toEqual([0, 1, 2]);
    expect((await review(aid, { action: 'approve_all', filter: { status: 'error' } })).data!.updated).toBe(0); // errors never

    const missing = await review(aid, { action: 'approve' });
    expect(missing.response.status).toBe(422);
    expect((missing.error as ValidationErrorBody).detail[0].loc).toEqual(['body', 'change_ids']);
    // An action outside the enum: the client's types refuse it.
    expect((await request(server).post(`/api/activities/${aid}/staged-changes/bulk-review`).set(org.auth).send({ action: 'accept' })).status).toBe(422);
  });
});

describe('decisions that stand (vendor drafts: test/api/review-drafts.test.ts)', () => {
  it('a rejection and a partial accept survive approve_all and reject_all', async () => {
    const { catalogId, ids } = await catalogWithItems(3);
    const aid = await shell(catalogId);
    expect(
      (
        await append(aid, {
          staged_changes: [
            { catalog_item_id: ids[0], after_data: { title: 'Rejected title', price: 11 } },
            { catalog_item_id: ids[1], after_data: { title: 'Partly', price: 22 } },
            { catalog_item_id: ids[2], after_data: { title: 'Undecided', price: 33 } },
          ],
        })
      ).response.status,
    ).toBe(200);
    const [c0, c1] = (await allChanges(aid)).map((c) => c.id);
    expect((await review(aid, { action: 'reject', change_ids: [c0], rejection_reason: 'wrong' })).response.status).toBe(200);
    expect((await review(aid, { action: 'approve', change_ids: [c1], field_names: ['title'] })).response.status).toBe(200);
    expect((await review(aid, { action: 'approve_all' })).data!.updated).toBe(1);
    let changes = await allChanges(aid);
    expect(changes.map((c) => [c.status, c.accepted_fields, c.rejection_reason])).toEqual([
      ['rejected', null, 'wrong'],
      ['partially_accepted', ['title'], null],
      ['approved', null, null],
    ]);
    expect((await review(aid, { action: 'reject_all' })).data!.updated).toBe(0);
    expect((await review(aid, { action: 'approve_all', filter: { field: 'price' } })).data!.updated).toBe(0);
    changes = await allChanges(aid);
    expect(changes.map((c) => c.status)).toEqual(['rejected', 'partially_accepted', 'approved']);
  });
});

describe('cancel, the activity list and error statuses', () => {
  it('cancel keeps the changes; a cancelled activity refuses appends, review and pending-review with 409', async () => {
    const { catalogId, ids } = await catalogWithItems(1);
    const aid = await shell(catalogId);
    await append(aid, { staged_changes: [{ catalog_item_id: ids[0], after_data: { price: 5 } }] });
    const cancelled = await cancel(aid);
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data).toMatchObject({ id: aid, status: 'cancelled', staged_count: 1 });
    expect((await api.POST('/api/public/activities/{activity_id}/cancel', act(aid))).data!.status).toBe('cancelled');
    expect(await allChanges(aid)).toHaveLength(1);

    const appended = await append(aid, { staged_changes: [] });
    expect(appended.response.status).toBe(409);
    expect(typeof (appended.error as { detail?: unknown }).detail).toBe('string');
    expect((await api.POST('/api/public/activities/{activity_id}/pending-review', { ...act(aid), body: {} })).response.status).toBe(409);
    expect((await review(aid, { action: 'approve_all' })).response.status).toBe(409);

    await testKnex()('review_activities').where({ id: aid }).update({ status: 'completed' });
    expect((await cancel(aid)).response.status).toBe(409);
  });

  it('404 for unknown or malformed ids, 403 for another organization, 422 for bad bodies', async () => {
    const { catalogId } = await catalogWithItems(0);
    const aid = await shell(catalogId);
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [path, call] of [
      [`/api/activities/${unknown}`, () => getActivity(unknown)],
      [`/api/public/activities/nope`, () => api.GET('/api/public/activities/{activity_id}', act('nope'))],
      [`/api/activities/${unknown}/staged-changes`, () => listChanges(unknown)],
    ] as const) {
      const res = await call();
      expect([path, res.response.status, (res.error as { detail?: unknown } | undefined)?.detail]).toEqual([path, 404, 'Activity not found']);
    }
    expect((await append(unknown, { staged_changes: [] })).response.status).toBe(404);
    const theirs = typedClient(server, other.auth);
    const calls: Array<[string, string, () => Promise<{ response: Response }>]> = [
      ['get', `/api/activities/${aid}`, () => theirs.GET('/api/activities/{activity_id}', act(aid))],
      [
        'get',
        `/api/public/activities/${aid}/staged-changes/summary`,
        () => theirs.GET('/api/public/activities/{activity_id}/staged-changes/summary', act(aid)),
      ],
      ['post', `/api/public/activities/${aid}/staged-changes/append`, () => append(aid, { staged_changes: [] }, theirs)],
      [
        'post',
        `/api/public/activities/${aid}/pending-review`,
        () => theirs.POST('/api/public/activities/{activity_id}/pending-review', { ...act(aid), body: {} }),
      ],
      [
        'post',
        `/api/activities/${aid}/staged-changes/bulk-review`,
        () => theirs.POST('/api/activities/{activity_id}/staged-changes/bulk-review', { ...act(aid), body: { action: 'approve_all' } }),
      ],
      ['post', `/api/activities/${aid}/cancel`, () => theirs.POST('/api/activities/{activity_id}/cancel', act(aid))],
      [
        'get',
        `/api/public/catalogs/${catalogId}/activities`,
        () => theirs.GET('/api/public/catalogs/{catalog_id}/activities', { params: { path: { catalog_id: catalogId } } }),
      ],
      [
        'post',
        `/api/public/catalogs/${catalogId}/activities`,
        () => theirs.POST('/api/public/catalogs/{catalog_id}/activities', { params: { path: { catalog_id: catalogId } }, body: { type: 'custom_transform' } }),
      ],
    ];
    for (const [method, path, call] of calls) {
      const res = await call();
      expect([method, path, res.response.status]).toEqual([method, path, 403]);
    }
    // Wrong shapes and a type outside the enum: the client's types refuse them.
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
    await cancel(a3);
    const all = await listActivities(catalogId);
    expect(all.response.status).toBe(200);
    expect(all.data!.total).toBe(3);
    expect(all.data!.activities.map((a) => a.id)).toEqual([a3, a2, a1]);
    expect(Object.keys(all.data!.activities[1]).sort()).toEqual([
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
    expect(all.data!.activities[1]).toMatchObject({
      type: 'smart_import',
      status: 'pending_review',
      staged_count: 1,
      catalog_id: catalogId,
      review_url: `${publicUrl}/dashboard/catalogs/${catalogId}/activities/${a2}`,
    });
    const q = (query: ReviewActivitiesQuery) => listActivities(catalogId, query);
    expect((await q({ status: 'cancelled' })).data).toMatchObject({ total: 1, activities: [{ id: a3 }] });
    expect((await q({ type: 'smart_import' })).data).toMatchObject({ total: 1, activities: [{ id: a2 }] });
    const paged = await q({ limit: 1, offset: 1 });
    expect(paged.data!.total).toBe(3);
    expect(paged.data!.activities.map((a) => a.id)).toEqual([a2]);
    // A status outside the enum: the client's types refuse it.
    expect((await request(server).get(`/api/public/catalogs/${catalogId}/activities`).query({ status: 'nope' }).set(org.auth)).status).toBe(422);
  });
});
