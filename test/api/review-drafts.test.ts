/**
 * Vendor drafts end to end (docs/review.md "Vendor drafts"), on the real PostgreSQL and a real
 * Temporal dev server with a worker (only the engine is fake), along the path the tool server and
 * other API clients take: stage drafts (an enrichment job with `staged_status: "draft"` and a
 * `catalog_id`, and a shell activity with draft changes next to a pending one), read them back with
 * the exact requests such a client sends (no draft flag), see that no review action or apply touches
 * a draft, then submit, review, apply, and find the values in the catalog. Also: `include_drafts=false`
 * still gives the console's view; the same rule through the typed client (packages/client) with
 * appends, submit on both mounts and its 403 / 404 / 409; and a 409 names at most 50 draft ids.
 */
import http from 'node:http';
import request from 'supertest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { loadConfig } from '../../src/config';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createTestCatalog } from '../helpers/catalogs';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { act, type ReviewActivitiesQuery, type AppendBody, catalogWithItems as seededCatalog, type ChangesQuery, reviewCalls } from '../helpers/review-calls';

const TASK_QUEUE = 'test-review-drafts';

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let server: http.Server;
let api: CatalogClient;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;
const publicUrl = loadConfig().publicUrl;

/** `POST …/staged-changes/bulk-review` body. */
type ReviewBody = paths['/api/activities/{activity_id}/staged-changes/bulk-review']['post']['requestBody']['content']['application/json'];
/** `GET /activities/{id}` answer. */
type Activity = paths['/api/activities/{activity_id}']['get']['responses'][200]['content']['application/json'];

beforeAll(async () => {
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex: testKnex(), engine: fakeEngine() });
  server = await listenTestApp(testApiFor(env, TASK_QUEUE));
  org = await createTestOrg('review drafts');
  other = await createTestOrg('review drafts, other org');
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  if (server) await closeServer(server);
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

/** `GET path` as an API client sends it (the exact URL, no typed client). */
function get(path: string): Promise<request.Response> {
  return request(server).get(path).set(org.auth);
}

/** `POST …/staged-changes/bulk-review` with `body`. */
function review(activityId: string, body: ReviewBody): Promise<request.Response> {
  return request(server).post(`/api/activities/${activityId}/staged-changes/bulk-review`).set(org.auth).send(body);
}

/** Every staged change of an activity straight from the table, in row order. */
async function rowsOf(activityId: string): Promise<Array<{ id: string; status: string; applied_at: Date | null; catalog_item_id: string }>> {
  return testKnex()('staged_changes').where({ activity_id: activityId }).orderBy('row_index').select('id', 'status', 'applied_at', 'catalog_item_id');
}

// The typed client's calls (the routes' documented shapes), made once `api` exists.
const calls = () => reviewCalls(api);
const append = (aid: string, body: AppendBody) => calls().append(aid, body);
const listChanges = (aid: string, query: ChangesQuery = {}) => calls().listChanges(aid, query);
const listActivities = (catalogId: string, query: ReviewActivitiesQuery = {}) => calls().listActivities(catalogId, query);
const getActivity = (aid: string, query: { include_drafts?: boolean } = {}) => calls().getActivity(aid, query);
const getSummary = (aid: string, query: { include_drafts?: boolean } = {}) => calls().getSummary(aid, query);
const typedReview = (aid: string, body: ReviewBody) => api.POST('/api/activities/{activity_id}/staged-changes/bulk-review', { ...act(aid), body });
const cancel = (aid: string) => calls().cancel(aid);

/** A catalog of `org` (default test schema) with `n` items SKU-0… (through the bulk route); answers its id and the item ids in order. */
const catalogWithItems = (n: number) =>
  seededCatalog(
    api,
    org.organizationId,
    Array.from({ length: n }, (_, i) => ({ sku: `SKU-${i}`, title: `Item ${i}`, price: i + 1 })),
  );

/** An empty shell activity (status `created`) of the tool server's kind on `catalogId`. */
async function shell(catalogId: string): Promise<string> {
  const res = await api.POST('/api/public/catalogs/{catalog_id}/activities', {
    params: { path: { catalog_id: catalogId } },
    body: { type: 'custom_transform', description: 'Raise prices', status: 'created', staged_changes: [], metadata: { source: 'mcp_custom_transform' } },
  });
  expect(res.response.status).toBe(200);
  return res.data!.activity_id;
}

/** Asks to apply `activityId` and waits until it is completed; answers the activity. */
async function applyAndWait(activityId: string): Promise<Activity> {
  expect((await api.POST('/api/activities/{activity_id}/apply', { params: { path: { activity_id: activityId } }, body: {} })).response.status).toBe(202);
  return waitUntil(async () => {
    const a = (await api.GET('/api/activities/{activity_id}', { params: { path: { activity_id: activityId } } })).data!;
    return a.status === 'completed' ? a : null;
  }, `apply of ${activityId} completed`);
}

test('lists drafts like any change (include_drafts=false hides them), keeps them out of approve_all / reject_all until submitted; submit makes them pending', async () => {
  const { catalogId, ids } = await catalogWithItems(3);
  // An activity whose changes are all drafts, and one with a pending change and a draft.
  const allDrafts = await shell(catalogId);
  expect(
    (
      await append(allDrafts, {
        staged_changes: [
          { catalog_item_id: ids[0], after_data: { price: 10 }, status: 'draft' },
          { catalog_item_id: ids[1], after_data: { price: 20 }, status: 'draft' },
        ],
      })
    ).response.status,
  ).toBe(200);
  const mixed = await shell(catalogId);
  const appended = await append(mixed, {
    staged_changes: [
      { catalog_item_id: ids[2], after_data: { price: 30 } },
      { catalog_item_id: ids[0], after_data: { title: 'Drafted' }, status: 'draft' },
    ],
  });
  expect(appended.data!.total_staged_changes).toBe(2); // the writer sees what it staged
  const pendingReview = (aid: string) => api.POST('/api/public/activities/{activity_id}/pending-review', { ...act(aid), body: {} });
  expect((await pendingReview(allDrafts)).data).toMatchObject({ staged_count: 2 });
  expect((await pendingReview(mixed)).response.status).toBe(200);

  // Activity list: the all-draft activity is listed and counts count drafts; include_drafts=false is the console's view.
  const listed = await listActivities(catalogId);
  expect(listed.data!.total).toBe(2);
  expect(listed.data!.activities.find((a) => a.id === allDrafts)).toMatchObject({ staged_count: 2 });
  expect(listed.data!.activities.find((a) => a.id === mixed)).toMatchObject({ staged_count: 2 });
  const withoutDrafts = await listActivities(catalogId, { include_drafts: false });
  expect(withoutDrafts.data!.total).toBe(1);
  expect(withoutDrafts.data!.activities).toEqual([expect.objectContaining({ id: mixed, staged_count: 1 })]);

  // Staged changes, summary and the activity: drafts unless include_drafts=false; status=pending / draft split them.
  expect((await listChanges(mixed)).data).toMatchObject({
    total: 2,
    items: [
      { row_index: 0, status: 'pending' },
      { row_index: 1, status: 'draft' },
    ],
  });
  expect((await listChanges(mixed, { include_drafts: false })).data).toMatchObject({ total: 1, items: [{ row_index: 0, status: 'pending' }] });
  expect((await listChanges(mixed, { status: 'draft' })).data).toMatchObject({ total: 1, items: [{ row_index: 1 }] });
  expect((await listChanges(mixed, { status: 'pending' })).data).toMatchObject({ total: 1, items: [{ row_index: 0 }] });
  const summary = (await getSummary(mixed)).data!;
  expect(summary).toMatchObject({ total_changes: 2, by_status: { pending: 1, draft: 1 } });
  expect(summary.field_stats.title).toMatchObject({ completed: 1, total: 2 });
  const consoleSummary = (await getSummary(mixed, { include_drafts: false })).data!;
  expect(consoleSummary).toMatchObject({ total_changes: 1, by_status: { pending: 1 } });
  expect(consoleSummary.field_stats.title).toBeUndefined();
  const activity = (await getActivity(allDrafts)).data;
  expect(activity).toMatchObject({ staged_count: 2, draft_count: 2, review_url: `${publicUrl}/dashboard/catalogs/${catalogId}/activities/${allDrafts}` });
  expect((await getActivity(allDrafts, { include_drafts: false })).data!.staged_count).toBe(0);

  // approve_all / reject_all leave drafts alone.
  expect((await typedReview(allDrafts, { action: 'approve_all' })).data!.updated).toBe(0);
  expect((await typedReview(allDrafts, { action: 'reject_all' })).data!.updated).toBe(0);
  expect((await typedReview(mixed, { action: 'approve_all' })).data!.updated).toBe(1);
  const statuses = async () =>
    (await testKnex()('staged_changes').where({ activity_id: mixed }).orderBy('row_index').select('status')).map((r: { status: string }) => r.status);
  expect(await statuses()).toEqual(['approved', 'draft']);

  // Submit (both mounts): drafts → pending, the activity → pending_review; again submits nothing.
  const submit = (aid: string, client: CatalogClient = api) => client.POST('/api/public/activities/{activity_id}/submit', { ...act(aid), body: {} });
  const submitted = await submit(allDrafts);
  expect(submitted.response.status).toBe(200);
  expect(submitted.data).toEqual({
    activity_id: allDrafts,
    status: 'pending_review',
    submitted: 2,
    review_url: `${publicUrl}/dashboard/catalogs/${catalogId}/activities/${allDrafts}`,
  });
  // Without a body (the document makes the body required, the route takes none): through supertest.
  expect((await request(server).post(`/api/activities/${allDrafts}/submit`).set(org.auth)).body).toMatchObject({ submitted: 0 });
  expect((await listActivities(catalogId, { include_drafts: false })).data!.total).toBe(2);
  expect((await listChanges(allDrafts)).data!.items.map((c) => c.status)).toEqual(['pending', 'pending']);
  expect((await typedReview(allDrafts, { action: 'approve_all' })).data!.updated).toBe(2);

  // A bulk filter that asks for drafts is refused and changes nothing; 403 / 404 / 409 on submit.
  const refused = await typedReview(mixed, { action: 'reject_all', filter: { include_drafts: true }, rejection_reason: 'vendor draft' });
  expect(refused.response.status).toBe(409);
  expect(await statuses()).toEqual(['approved', 'draft']);
  // Submits without a body (the document makes it required, the route takes none): through supertest.
  expect((await request(server).post(`/api/public/activities/${mixed}/submit`).set(other.auth)).status).toBe(403);
  expect((await request(server).post('/api/public/activities/00000000-0000-4000-8000-000000000000/submit').set(org.auth)).status).toBe(404);
  expect((await cancel(mixed)).response.status).toBe(200);
  expect((await request(server).post(`/api/public/activities/${mixed}/submit`).set(org.auth)).status).toBe(409);
});

test('drafts staged by a job and a shell are read back like any change, never reviewed or applied until submitted, then reviewed and applied', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const items = Array.from({ length: 6 }, (_, i) => ({ sku: `D-${i}`, title: `Item ${i}`, price: i + 1 }));
  expect(
    (await api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: catalogId } }, body: { items } })).response.status,
  ).toBe(200);
  const idOf = new Map(
    (await testKnex()('catalog_items').where({ catalog_id: catalogId }).select('id', 'business_key')).map((r: { id: string; business_key: string }) => [
      r.business_key,
      r.id,
    ]),
  );

  // 1. Stage: an enrichment job whose changes are all drafts (D-0..D-2), and a shell with two drafts (D-3, D-4) and a pending change (D-5).
  const created = await api.POST('/api/public/enrich', {
    body: {
      items: items.slice(0, 3).map(({ sku, title }) => ({ sku, title })),
      catalog_id: catalogId,
      async_mode: true,
      staged_status: 'draft',
      output_schema: [{ name: 'enriched', type: 'boolean', description: 'whether the item was enriched' }],
    },
  });
  expect(created.response.status).toBe(200);
  const jobId = created.data!.job_id!;
  await waitUntil(async () => (await api.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: jobId } } })).data!.status === 'completed', 'job done');
  const shell = await api.POST('/api/public/catalogs/{catalog_id}/activities', {
    params: { path: { catalog_id: catalogId } },
    body: {
      type: 'custom_transform',
      description: 'Vendor titles',
      staged_changes: [
        { catalog_item_id: idOf.get('D-3'), after_data: { title: 'Vendor title 3' }, status: 'draft' },
        { catalog_item_id: idOf.get('D-4'), after_data: { title: 'Vendor title 4' }, status: 'draft' },
        { catalog_item_id: idOf.get('D-5'), after_data: { price: 42 } },
      ],
    },
  });
  expect(shell.data).toMatchObject({ status: 'pending_review', staged_changes_count: 3 });
  const shellId = shell.data!.activity_id;

  // 2. Read back by page, as the tool server does: every draft, totals and pages counting them.
  const page1 = await get(`/api/activities/${jobId}/staged-changes?page=1&page_size=50`);
  expect(page1.status).toBe(200);
  expect(page1.body).toMatchObject({ total: 3, page: 1, page_size: 50, total_pages: 1 });
  expect(page1.body.items.map((c: { status: string; after_data: Record<string, unknown> }) => [c.status, c.after_data.enriched])).toEqual([
    ['draft', true],
    ['draft', true],
    ['draft', true],
  ]);
  const page2 = await get(`/api/activities/${jobId}/staged-changes?page=2&page_size=1`);
  expect(page2.body).toMatchObject({ total: 3, page: 2, page_size: 1, total_pages: 3, items: [{ row_index: 1, status: 'draft' }] });
  expect(page2.body.items[0].id).toBe(page1.body.items[1].id);
  const shellPage = await get(`/api/public/activities/${shellId}/staged-changes?page=2&page_size=1`);
  expect(shellPage.body).toMatchObject({ total: 3, total_pages: 3, items: [{ row_index: 1, status: 'draft' }] });

  // The catalog's activities: the all-draft job is listed, staged_count counts drafts.
  const listed = await get(`/api/public/catalogs/${catalogId}/activities?limit=20&offset=0`);
  expect(listed.body.total).toBe(2);
  const entry = (id: string) => listed.body.activities.find((a: { id: string }) => a.id === id);
  expect(entry(jobId)).toMatchObject({ type: 'enrichment', status: 'pending_review', staged_count: 3 });
  expect(entry(shellId)).toMatchObject({ type: 'custom_transform', staged_count: 3 });

  // The activity itself and its summary.
  expect((await get(`/api/activities/${jobId}`)).body).toMatchObject({ id: jobId, staged_count: 3, draft_count: 3 });
  const summary = (await get(`/api/activities/${jobId}/staged-changes/summary`)).body;
  expect(summary).toMatchObject({ total_changes: 3, by_status: { draft: 3 }, field_stats: { enriched: { completed: 3, total: 3 } } });
  expect((await get(`/api/activities/${shellId}/staged-changes/summary`)).body.by_status).toEqual({ draft: 2, pending: 1 });

  // Filters: status=pending leaves drafts out, status=draft gives only drafts.
  const pendingOnly = (await get(`/api/activities/${shellId}/staged-changes?status=pending`)).body;
  expect(pendingOnly).toMatchObject({ total: 1, items: [{ row_index: 2, status: 'pending' }] });
  expect((await get(`/api/activities/${jobId}/staged-changes?status=pending`)).body.total).toBe(0);
  expect((await get(`/api/activities/${shellId}/staged-changes?status=draft`)).body.items.map((c: { row_index: number }) => c.row_index)).toEqual([0, 1]);

  // include_drafts=false: the console's view, still accepted.
  expect((await get(`/api/activities/${shellId}/staged-changes?include_drafts=false`)).body.total).toBe(1);
  expect((await get(`/api/activities/${jobId}?include_drafts=false`)).body).toMatchObject({ staged_count: 0, draft_count: 3 });
  expect((await get(`/api/activities/${jobId}/staged-changes/summary?include_drafts=false`)).body).toMatchObject({ total_changes: 0, by_status: {} });
  const consoleList = (await get(`/api/public/catalogs/${catalogId}/activities?limit=20&offset=0&include_drafts=false`)).body;
  expect(consoleList).toMatchObject({ total: 1, activities: [{ id: shellId, staged_count: 1 }] });
  expect((await get(`/api/activities/${jobId}/staged-changes?include_drafts=true`)).body.total).toBe(3);

  // 3. No review touches a draft: naming one answers 409 naming it, and nothing is written.
  const [draft3, draft4, pending5] = await rowsOf(shellId);
  const byId = await review(shellId, { action: 'approve', change_ids: [pending5.id, draft4.id, draft3.id] });
  expect(byId.status).toBe(409);
  expect(byId.body.detail).toContain(`${draft3.id}, ${draft4.id}`);
  expect(byId.body.detail).not.toContain(pending5.id);
  for (const body of [
    { action: 'reject', change_ids: [draft3.id], rejection_reason: 'no' },
    { action: 'approve', change_ids: [draft4.id], field_names: ['title'] },
    { action: 'reject', change_ids: [draft4.id], field_names: ['title'] },
  ] as ReviewBody[]) {
    const res = await review(shellId, body);
    expect([res.status, res.body.detail]).toEqual([409, expect.stringContaining(body.change_ids![0])]);
  }
  for (const filter of [{ status: 'draft' }, { include_drafts: true }] as Array<ReviewBody['filter']>) {
    const res = await review(jobId, { action: 'approve_all', filter });
    expect([res.status, res.body.detail]).toEqual([409, expect.stringMatching(/^Bulk actions never touch vendor drafts/)]);
  }
  expect((await rowsOf(shellId)).map((r) => r.status)).toEqual(['draft', 'draft', 'pending']);

  // approve_all / reject_all act on pending changes only.
  expect((await review(jobId, { action: 'approve_all' })).body.updated).toBe(0);
  expect((await review(jobId, { action: 'reject_all' })).body.updated).toBe(0);
  expect((await review(shellId, { action: 'approve_all', filter: { include_drafts: false } })).body.updated).toBe(1);
  expect((await rowsOf(shellId)).map((r) => r.status)).toEqual(['draft', 'draft', 'approved']);

  // Apply writes the approved change only: the drafts stay drafts, unapplied, and their items unchanged.
  const appliedShell = await applyAndWait(shellId);
  expect(appliedShell.apply_result).toMatchObject({ applied: 1, failed: 0, skipped_conflicts: 0 });
  expect((await rowsOf(shellId)).map((r) => [r.status, r.applied_at !== null])).toEqual([
    ['draft', false],
    ['draft', false],
    ['approved', true],
  ]);
  // An apply of the all-draft job applies nothing.
  expect((await applyAndWait(jobId)).apply_result).toMatchObject({ applied: 0 });
  const dataOf = async () =>
    new Map(
      (await testKnex()('catalog_items').where({ catalog_id: catalogId }).select('business_key', 'data')).map(
        (r: { business_key: string; data: Record<string, unknown> }) => [r.business_key, r.data],
      ),
    );
  let data = await dataOf();
  expect([data.get('D-0')!.enriched, data.get('D-3')!.title, data.get('D-5')!.price]).toEqual([undefined, 'Item 3', 42]);

  // 4. Submit turns drafts into pending; then they are reviewed and applied like any change.
  for (const [id, n] of [
    [jobId, 3],
    [shellId, 2],
  ] as const) {
    const submitted = await api.POST('/api/public/activities/{activity_id}/submit', { params: { path: { activity_id: id } }, body: {} });
    expect(submitted.data).toMatchObject({ activity_id: id, status: 'pending_review', submitted: n });
  }
  expect((await get(`/api/activities/${shellId}/staged-changes/summary`)).body.by_status).toEqual({ pending: 2, approved: 1 });
  expect((await review(shellId, { action: 'approve', change_ids: [draft3.id, draft4.id] })).body.updated).toBe(2);
  expect((await review(jobId, { action: 'approve_all' })).body.updated).toBe(3);
  expect((await applyAndWait(jobId)).apply_result).toMatchObject({ applied: 3, failed: 0, skipped_conflicts: 0 });
  expect((await applyAndWait(shellId)).apply_result).toMatchObject({ applied: 2, failed: 0, skipped_conflicts: 0 });
  data = await dataOf();
  expect([0, 1, 2].map((i) => data.get(`D-${i}`)!.enriched)).toEqual([true, true, true]);
  expect([data.get('D-3')!.title, data.get('D-4')!.title, data.get('D-5')!.price]).toEqual(['Vendor title 3', 'Vendor title 4', 42]);
});

test('a 409 names at most 50 draft ids and says how many more; an unknown id is not a draft', async () => {
  const catalogId = await createTestCatalog(org.organizationId);
  const res = await api.POST('/api/public/catalogs/{catalog_id}/activities', {
    params: { path: { catalog_id: catalogId } },
    body: {
      type: 'custom_transform',
      staged_changes: Array.from({ length: 53 }, (_, i) => ({ after_data: { sku: `N-${i}` }, is_new_item: true, status: 'draft' as const })),
    },
  });
  const activityId = res.data!.activity_id;
  const ids = (await rowsOf(activityId)).map((r) => r.id);
  const refused = await review(activityId, { action: 'reject', change_ids: [...ids, '00000000-0000-4000-8000-000000000001'] });
  expect(refused.status).toBe(409);
  expect(refused.body.detail).toContain(ids.slice(0, 50).join(', '));
  expect(refused.body.detail).toContain(' and 3 more');
  expect(refused.body.detail).not.toContain(ids[50]);
  expect(refused.body.detail).not.toContain('00000000-0000-4000-8000-000000000001');
  // Without drafts named, the unknown id changes nothing and is no error.
  const unknown = await review(activityId, { action: 'approve', change_ids: ['00000000-0000-4000-8000-000000000001'] });
  expect([unknown.status, unknown.body]).toEqual([200, { activity_id: activityId, updated: 0 }]);
});
