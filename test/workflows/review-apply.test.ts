/**
 * Apply of a review activity (docs/api-review.md "Apply") through the HTTP
 * route, the real Temporal dev server (activityApplyWorkflow and its activity) and the real
 * PostgreSQL: creates, updates, deletes, partially accepted fields, conflicts and `force`, a
 * custom transform's schema and taxonomy changes as one schema version, the idempotent second
 * apply, failure (nothing applied, phase failed), restoring the pre-apply snapshot, and the
 * route's 404/403/409 answers.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Knex } from 'knex';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { reviewApplyWorkflowId } from '../../src/contracts/workflows';
import { applyProgressQuery } from '../../workflows/definitions';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { itemsBySku, seedReviewActivity, seedItems } from '../helpers/review-apply';
import { fakeEngine, RunningTestWorker, runTestWorker, startTestTemporal, testApiFor } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-activity-apply';

let env: TestWorkflowEnvironment;
let worker: RunningTestWorker;
let knex: Knex;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let other: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  knex = testKnex();
  org = await createTestOrg('apply tests');
  other = await createTestOrg('apply tests, other org');
  env = await startTestTemporal();
  worker = await runTestWorker(env, { taskQueue: TASK_QUEUE, knex, engine: fakeEngine(), applyDeferWordsMinItems: 3 });
  app = testApiFor(env, TASK_QUEUE, { applyTuning: { retry_initial_interval_s: 0.1, maximum_attempts: 2 } });
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
  await closeTestKnex();
});

interface ApplyBody {
  activity_id: string;
  status: string;
  apply_progress: Record<string, unknown> | null;
  apply_result: { applied: number; skipped_conflicts: number; failed: number; pre_apply_snapshot_id: string } | null;
}

/** POSTs the apply route (public path unless `alias`) and returns the response. */
function postApply(activityId: string, body: Record<string, unknown> = {}, auth = org.auth, alias = false): request.Test {
  return request(app)
    .post(`/api${alias ? '' : '/public'}/activities/${activityId}/apply`)
    .set(auth)
    .send(body);
}

/** Waits until the activity's apply ended (completed, or apply_progress failed) and returns the row. */
async function settled(
  activityId: string,
): Promise<{ status: string; apply_progress: Record<string, unknown> | null; apply_result: ApplyBody['apply_result'] }> {
  return waitUntil(async () => {
    const row = await knex('review_activities').where('id', activityId).first('status', 'apply_progress', 'apply_result');
    return row.status === 'completed' || row.apply_progress?.phase === 'failed' ? row : null;
  }, `apply of ${activityId} to end`);
}

/** Staged changes of an activity in row order. */
async function changesOf(activityId: string): Promise<Array<Record<string, unknown>>> {
  return knex('staged_changes').where('activity_id', activityId).orderBy('row_index');
}

/** Snapshots of type pre_apply of a catalog. */
async function preApplySnapshots(catalogId: string): Promise<Array<{ id: string; item_count: number }>> {
  return knex('catalog_snapshots').where({ catalog_id: catalogId, snapshot_type: 'pre_apply' }).select('id', 'item_count');
}

describe('POST /public/activities/{id}/apply', () => {
  it('applies creates, updates, deletes and partially accepted fields in one go, leaves conflicts, and is idempotent', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const ids = await seedItems(knex, org.organizationId, catalogId, [
      { sku: 'a1', title: 'Alpha', price: 1 },
      { sku: 'b1', title: 'Bravo', price: 2 },
      { sku: 'c1', title: 'Charlie', price: 3 },
      { sku: 'd1', title: 'Delta', price: 4 },
      { sku: 'f1', title: 'Foxtrot', price: 6 },
    ]);
    const { activityId, changeIds } = await seedReviewActivity(knex, org.organizationId, catalogId, [
      // update: full rows, one field differs
      {
        catalog_item_id: ids.get('a1'),
        before_data: { sku: 'a1', title: 'Alpha', price: 1 },
        after_data: { sku: 'a1', title: 'Zebrawood', price: 1 },
        base_version: 1,
      },
      // partially accepted: only price
      {
        catalog_item_id: ids.get('b1'),
        before_data: { title: 'Bravo', price: 2 },
        after_data: { title: 'Bravo two', price: 22 },
        status: 'partially_accepted',
        accepted_fields: ['price'],
        base_version: 1,
      },
      // delete
      { catalog_item_id: ids.get('c1'), before_data: { sku: 'c1', title: 'Charlie', price: 3 }, after_data: {}, is_delete: true, base_version: 1 },
      // create
      { is_new_item: true, after_data: { sku: 'e1', title: 'Echo', price: 5, __catalog_item_id: null } },
      // conflict: computed from version 0, the item is at 1
      { catalog_item_id: ids.get('d1'), before_data: { price: 4 }, after_data: { price: 44 }, base_version: 0 },
      // rejected: never applied
      { catalog_item_id: ids.get('f1'), before_data: { price: 6 }, after_data: { price: 66 }, status: 'rejected' },
    ]);

    const res = await postApply(activityId);
    expect(res.status).toBe(202);
    const body = res.body as ApplyBody;
    expect(body.activity_id).toBe(activityId);
    expect(['pending_review', 'completed']).toContain(body.status);

    const done = await settled(activityId);
    expect(done.status).toBe('completed');
    const snapshots = await preApplySnapshots(catalogId);
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0].item_count).toBe(5);
    expect(done.apply_result).toEqual({ applied: 4, skipped_conflicts: 1, failed: 0, errors: [], pre_apply_snapshot_id: snapshots[0].id });
    expect(done.apply_progress).toMatchObject({ phase: 'completed', pre_apply_snapshot_id: snapshots[0].id });

    const items = await itemsBySku(knex, catalogId);
    expect(items.get('a1')).toMatchObject({ data: { sku: 'a1', title: 'Zebrawood', price: 1 }, current_version: 2 });
    expect(items.get('a1')!.search_text).toContain('zebrawood');
    const found = await knex.raw("SELECT count(*)::int AS n FROM catalog_items WHERE catalog_id = ? AND search_tsv @@ 'zebrawood'::tsquery", [catalogId]);
    expect(found.rows[0].n).toBe(1);
    expect(items.get('b1')).toMatchObject({ data: { sku: 'b1', title: 'Bravo', price: 22 }, current_version: 2 });
    expect(items.has('c1')).toBe(false);
    expect(items.get('e1')).toMatchObject({ data: { sku: 'e1', title: 'Echo', price: 5 }, current_version: 1, business_key: 'e1' });
    expect(items.get('d1')).toMatchObject({ data: { price: 4 }, current_version: 1 });
    expect(items.get('f1')).toMatchObject({ data: { price: 6 }, current_version: 1 });
    const catalog = await knex('catalogs').where('id', catalogId).first('item_count');
    expect(catalog.item_count).toBe(5);

    const changes = await changesOf(activityId);
    expect(changes.map((c) => c.status)).toEqual(['approved', 'partially_accepted', 'approved', 'approved', 'conflict', 'rejected']);
    expect(changes.map((c) => c.applied_at !== null)).toEqual([true, true, true, true, false, false]);
    expect(changes[3].catalog_item_id).toBe(items.get('e1')!.id);
    expect(changes[4]).toMatchObject({ id: changeIds[4], conflict_version: 1, conflict_data: { sku: 'd1', title: 'Delta', price: 4 } });

    // The workflow: its search attributes and progress query.
    const handle = env.client.workflow.getHandle(reviewApplyWorkflowId(activityId));
    const description = await handle.describe();
    expect(description.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['OrganizationId', org.organizationId],
        ['CatalogId', catalogId],
        ['JobKind', 'apply'],
      ]),
    );
    expect(await handle.query(applyProgressQuery)).toMatchObject({ phase: 'completed', result: done.apply_result });

    // A second apply answers the stored result and applies nothing again (alias path too).
    const again = await postApply(activityId, {}, org.auth, true);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'completed', apply_result: done.apply_result });
    expect(await preApplySnapshots(catalogId)).toHaveLength(1);
    expect((await itemsBySku(knex, catalogId)).get('a1')!.current_version).toBe(2);

    // Restoring the pre-apply snapshot undoes the apply.
    const restored = await request(app).post(`/api/public/catalogs/${catalogId}/snapshots/${snapshots[0].id}/restore`).set(org.auth).send({});
    expect(restored.status).toBe(200);
    const after = await itemsBySku(knex, catalogId);
    expect([...after.keys()].sort()).toEqual(['a1', 'b1', 'c1', 'd1', 'f1']);
    expect(after.get('a1')).toMatchObject({ data: { sku: 'a1', title: 'Alpha', price: 1 }, current_version: 1 });
    expect(after.get('b1')).toMatchObject({ data: { sku: 'b1', title: 'Bravo', price: 2 }, current_version: 1 });
    expect(after.get('c1')!.id).toBe(ids.get('c1'));
    expect((await knex('catalogs').where('id', catalogId).first('item_count')).item_count).toBe(5);

    // The restore is shown on the activity, with its absolute review_url.
    const shown = await request(app).get(`/api/activities/${activityId}`).set(org.auth);
    expect(shown.body).toMatchObject({
      status: 'completed',
      review_url: `${loadConfig().publicUrl}/dashboard/catalogs/${catalogId}/activities/${activityId}`,
      restores: [{ snapshot_id: snapshots[0].id, safety_snapshot_id: restored.body.safety_snapshot_id, restored_by: expect.any(String) }],
    });
    expect(Date.parse(shown.body.restores[0].restored_at)).not.toBeNaN();
  });

  it('a rejection and a partial accept survive approve_all: apply writes only what the reviewer accepted', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const ids = await seedItems(knex, org.organizationId, catalogId, [
      { sku: 'r1', brand: 'Old', title: 'Rejected', price: 1 },
      { sku: 'p1', brand: 'Old', title: 'Partly', price: 2 },
      { sku: 'u1', brand: 'Old', title: 'Undecided', price: 3 },
    ]);
    const pending = (sku: string) => ({
      catalog_item_id: ids.get(sku),
      before_data: { brand: 'Old', price: 0 },
      after_data: { brand: 'New', price: 99 },
      status: 'pending' as const,
      base_version: 1,
    });
    const { activityId, changeIds } = await seedReviewActivity(knex, org.organizationId, catalogId, [pending('r1'), pending('p1'), pending('u1')]);
    const review = (body: Record<string, unknown>) => request(app).post(`/api/activities/${activityId}/staged-changes/bulk-review`).set(org.auth).send(body);
    expect((await review({ action: 'reject', change_ids: [changeIds[0]], rejection_reason: 'wrong brand' })).body.updated).toBe(1);
    expect((await review({ action: 'approve', change_ids: [changeIds[1]], field_names: ['brand'] })).body.updated).toBe(1);
    expect((await review({ action: 'approve_all' })).body.updated).toBe(1);

    expect((await postApply(activityId)).status).toBe(202);
    const done = await settled(activityId);
    expect(done.apply_result).toMatchObject({ applied: 2, failed: 0 });
    const items = await itemsBySku(knex, catalogId);
    expect(items.get('r1')).toMatchObject({ data: { sku: 'r1', brand: 'Old', title: 'Rejected', price: 1 }, current_version: 1 });
    expect(items.get('p1')).toMatchObject({ data: { sku: 'p1', brand: 'New', title: 'Partly', price: 2 }, current_version: 2 });
    expect(items.get('u1')).toMatchObject({ data: { sku: 'u1', brand: 'New', title: 'Undecided', price: 99 }, current_version: 2 });
    expect((await changesOf(activityId)).map((c) => [c.status, c.applied_at !== null])).toEqual([
      ['rejected', false],
      ['partially_accepted', true],
      ['approved', true],
    ]);
  });

  it.each([false, true])(
    'never writes a value that fails its field type (strict_mode %s): the change is an error with its reason, the rest applies',
    async (strict) => {
      const schema = {
        type: 'object',
        properties: {
          sku: { type: 'string' },
          qty: { type: 'integer' },
          price: { type: ['number', 'null'] },
          tags: { type: 'array', items: { type: 'string' } },
        },
      };
      const catalogId = await createTestCatalog(org.organizationId, { schema_definition: schema, strict_mode: strict });
      const ids = await seedItems(knex, org.organizationId, catalogId, [
        { sku: 's1', qty: 1, price: 1, tags: ['a'] },
        { sku: 's2', qty: 2, price: 2, tags: ['a'] },
        { sku: 's3', qty: 3, price: 3, tags: ['a'] },
        { sku: 's4', qty: 4, price: 4, tags: ['a'] },
      ]);
      const update = (sku: string, after: Record<string, unknown>) => ({ catalog_item_id: ids.get(sku), before_data: {}, after_data: after, base_version: 1 });
      const { activityId, changeIds } = await seedReviewActivity(knex, org.organizationId, catalogId, [
        update('s1', { qty: '7' }), // a string in an integer field
        update('s2', { qty: 7.5, price: 8 }), // a fraction in an integer field: the whole change is refused
        update('s3', { qty: 7, price: null, tags: ['a', 'b'] }), // right types (null admitted by price)
        update('s4', { tags: 'a\nb' }), // a newline-joined string in an array field
        { is_new_item: true, after_data: { sku: 'n1', qty: 1, price: '9.99' } }, // a create with a string price
        { is_new_item: true, after_data: { sku: 'n2', qty: 2, price: 9.99 } },
      ]);
      expect((await postApply(activityId)).status).toBe(202);
      const done = await settled(activityId);
      expect(done.status).toBe('completed');
      expect(done.apply_result).toMatchObject({ applied: 2, failed: 4, skipped_conflicts: 0 });
      const errors = (done.apply_result as unknown as { errors: Array<{ change_id: string; row_index: number; reason: string }> }).errors;
      expect(errors.map((e) => [e.change_id, e.row_index])).toEqual([
        [changeIds[0], 0],
        [changeIds[1], 1],
        [changeIds[3], 3],
        [changeIds[4], 4],
      ]);
      expect(errors[0].reason).toMatch(/qty must be integer, not string "7"/);
      expect(errors[1].reason).toMatch(/qty must be integer, not number 7\.5/);
      expect(errors[2].reason).toMatch(/tags must be array, not string/);
      expect(errors[3].reason).toMatch(/price must be number or null, not string "9\.99"/);
      const items = await itemsBySku(knex, catalogId);
      expect(items.get('s1')).toMatchObject({ data: { qty: 1 }, current_version: 1 });
      expect(items.get('s2')).toMatchObject({ data: { qty: 2, price: 2 }, current_version: 1 });
      expect(items.get('s3')).toMatchObject({ data: { sku: 's3', qty: 7, price: null, tags: ['a', 'b'] }, current_version: 2 });
      expect(items.get('s4')).toMatchObject({ data: { tags: ['a'] }, current_version: 1 });
      expect(items.has('n1')).toBe(false);
      expect(items.get('n2')).toMatchObject({ data: { sku: 'n2', qty: 2, price: 9.99 } });
      const changes = await changesOf(activityId);
      expect(changes.map((c) => c.status)).toEqual(['error', 'error', 'approved', 'error', 'error', 'approved']);
      expect(changes[0].error_reason).toBe(errors[0].reason);
    },
  );

  it('applies changes reviewed after an apply by a further apply (a fresh pre-apply snapshot), and only those', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const ids = await seedItems(knex, org.organizationId, catalogId, [
      { sku: 'x1', title: 'One' },
      { sku: 'x2', title: 'Two' },
    ]);
    const { activityId, changeIds } = await seedReviewActivity(knex, org.organizationId, catalogId, [
      { catalog_item_id: ids.get('x1'), before_data: { title: 'One' }, after_data: { title: 'One, first apply' }, status: 'pending', base_version: 1 },
      { catalog_item_id: ids.get('x2'), before_data: { title: 'Two' }, after_data: { title: 'Two, further apply' }, status: 'pending', base_version: 1 },
    ]);
    const review = (body: Record<string, unknown>) =>
      request(app).post(`/api/public/activities/${activityId}/staged-changes/bulk-review`).set(org.auth).send(body);
    await review({ action: 'approve', change_ids: [changeIds[0]] }).expect(200);
    expect((await postApply(activityId)).status).toBe(202);
    const first = await settled(activityId);
    expect(first.apply_result).toMatchObject({ applied: 1 });

    // The completed activity: its applied change can no longer be reviewed, the pending one can.
    expect((await review({ action: 'reject', change_ids: [changeIds[0]] })).body.updated).toBe(0);
    expect((await review({ action: 'approve_all' })).body.updated).toBe(1);
    const again = await postApply(activityId);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'pending_review', apply_progress: { phase: 'queued' } });
    const second = await settled(activityId);
    expect(second.status).toBe('completed');
    expect(second.apply_result).toMatchObject({ applied: 1, failed: 0 });
    const snapshots = await preApplySnapshots(catalogId);
    expect(snapshots).toHaveLength(2);
    expect(second.apply_result!.pre_apply_snapshot_id).not.toBe(first.apply_result!.pre_apply_snapshot_id);
    const items = await itemsBySku(knex, catalogId);
    expect(items.get('x1')).toMatchObject({ data: { title: 'One, first apply' }, current_version: 2 });
    expect(items.get('x2')).toMatchObject({ data: { title: 'Two, further apply' }, current_version: 2 });
    // Nothing left to apply: the stored result, no third snapshot.
    expect((await postApply(activityId)).body).toMatchObject({ status: 'completed', apply_result: second.apply_result });
    expect(await preApplySnapshots(catalogId)).toHaveLength(2);

    // Restoring the first apply's snapshot is shown on the activity.
    const restored = await request(app)
      .post(`/api/public/catalogs/${catalogId}/snapshots/${first.apply_result!.pre_apply_snapshot_id}/restore`)
      .set(org.auth)
      .send({});
    expect(restored.status).toBe(200);
    const shown = (await request(app).get(`/api/public/activities/${activityId}`).set(org.auth)).body;
    expect(shown.restores).toEqual([
      expect.objectContaining({ snapshot_id: first.apply_result!.pre_apply_snapshot_id, safety_snapshot_id: restored.body.safety_snapshot_id }),
    ]);
  });

  it('leaves the word index right after a large apply (deferred, then caught up before the workflow closes)', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const skus = ['w1', 'w2', 'w3'];
    const ids = await seedItems(
      knex,
      org.organizationId,
      catalogId,
      skus.map((sku) => ({ sku, title: 'plain' })),
    );
    // Three updates: at the worker's threshold (applyDeferWordsMinItems: 3), so the words are deferred.
    const { activityId } = await seedReviewActivity(
      knex,
      org.organizationId,
      catalogId,
      skus.map((sku) => ({ catalog_item_id: ids.get(sku), before_data: { title: 'plain' }, after_data: { title: `Quokka ${sku}` }, base_version: 1 })),
    );
    expect((await postApply(activityId)).status).toBe(202);
    const done = await settled(activityId);
    expect(done.apply_result).toMatchObject({ applied: 3 });
    // The workflow closes after its catch-up: then nothing is pending and the index has the words.
    await env.client.workflow.getHandle(reviewApplyWorkflowId(activityId)).result();
    expect((await knex('catalogs').where('id', catalogId).first('search_words_pending')).search_words_pending).toBe(false);
    const { rows } = await knex.raw(
      `SELECT count(*) FILTER (WHERE search_tsv @@ 'quokka'::tsquery)::int AS found, count(*) FILTER (WHERE search_tsv_pending IS NOT NULL)::int AS pending,
         count(*) FILTER (WHERE search_tsv = catalog_item_search_tsv(search_text))::int AS exact
       FROM catalog_items WHERE catalog_id = ?`,
      [catalogId],
    );
    expect(rows[0]).toEqual({ found: 3, pending: 0, exact: 3 });
  });

  it('deletes a product with its variants, as deleting the item does', async () => {
    const catalogId = await createTestCatalog(org.organizationId, { product_id_field: 'product_id' });
    await seedItems(knex, org.organizationId, catalogId, [
      { sku: 'v1', product_id: 'P1', title: 'Variant one' },
      { sku: 'v2', product_id: 'P1', title: 'Variant two' },
      { sku: 'v3', product_id: 'P2', title: 'Variant three' },
    ]);
    const rows: Array<{ id: string; entity_type: string; parent_id: string | null; data: Record<string, unknown> }> = await knex('catalog_items')
      .where('catalog_id', catalogId)
      .select('id', 'entity_type', 'parent_id', 'data');
    const p1 = rows.find((r) => r.entity_type === 'product' && r.data.product_id === 'P1')!;
    expect(rows.filter((r) => r.parent_id === p1.id)).toHaveLength(2);
    const before = (await knex('catalogs').where('id', catalogId).first('item_count')).item_count;
    expect(before).toBe(rows.length);
    const { activityId } = await seedReviewActivity(knex, org.organizationId, catalogId, [
      { catalog_item_id: p1.id, before_data: p1.data, after_data: {}, base_version: 1 },
    ]);
    expect((await postApply(activityId)).status).toBe(202);
    expect((await settled(activityId)).apply_result).toMatchObject({ applied: 1, failed: 0 });
    const left: Array<{ id: string }> = await knex('catalog_items').where('catalog_id', catalogId).select('id');
    expect(left).toHaveLength(rows.length - 3);
    expect(left.map((r) => r.id)).not.toContain(p1.id);
    expect((await knex('catalogs').where('id', catalogId).first('item_count')).item_count).toBe(rows.length - 3);
  });

  it('applies a conflicting change with force: true', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const ids = await seedItems(knex, org.organizationId, catalogId, [{ sku: 'd1', title: 'Delta', price: 4 }]);
    await knex('catalog_items').where('id', ids.get('d1')).update({ current_version: 3 });
    const { activityId } = await seedReviewActivity(knex, org.organizationId, catalogId, [
      { catalog_item_id: ids.get('d1'), before_data: { price: 4 }, after_data: { price: 44 }, base_version: 1 },
    ]);
    expect((await postApply(activityId, { force: true })).status).toBe(202);
    const done = await settled(activityId);
    expect(done.apply_result).toMatchObject({ applied: 1, skipped_conflicts: 0, failed: 0 });
    expect((await itemsBySku(knex, catalogId)).get('d1')).toMatchObject({ data: { sku: 'd1', title: 'Delta', price: 44 }, current_version: 4 });
    expect((await changesOf(activityId))[0].status).toBe('approved');
  });

  it("applies a custom transform's schema and taxonomy changes as one new schema version, with its items", async () => {
    // Created through the API, so its schema version carries the field lineage a field batch extends.
    const created = await request(app)
      .post('/api/public/catalogs')
      .set(org.auth)
      .send({
        name: 'apply schema',
        unique_id_field: 'sku',
        schema_definition: { type: 'object', properties: { sku: { type: 'string' }, title: { type: 'string' }, price: { type: 'number' } } },
      });
    expect(created.status).toBe(200);
    const catalogId = created.body.id as string;
    const ids = await seedItems(knex, org.organizationId, catalogId, [{ sku: 'a1', title: 'Alpha', price: 1 }]);
    const taxonomy = { name: 'Tools', nodes: { hand: { name: 'Hand tools' }, power: { name: 'Power tools', parent: null } } };
    const { activityId } = await seedReviewActivity(
      knex,
      org.organizationId,
      catalogId,
      [{ catalog_item_id: ids.get('a1'), before_data: { sku: 'a1' }, after_data: { sku: 'a1', color: 'red' }, base_version: 1 }],
      { input_data: { schema_changes: { fields_to_add: [{ field_name: 'color', field_type: 'string', description: 'Colour' }] }, taxonomy_changes: taxonomy } },
    );
    expect((await postApply(activityId)).status).toBe(202);
    const done = await settled(activityId);
    expect(done.status).toBe('completed');
    expect(done.apply_result).toMatchObject({ applied: 1, new_schema_version: '1.1.0' });
    const versions = await knex('catalog_schemas').where('catalog_id', catalogId).orderBy('created_at').select('version', 'schema_definition', 'taxonomy');
    expect(versions.map((v) => v.version)).toEqual(['1.0.0', '1.1.0']);
    expect(versions[1].schema_definition.properties.color).toMatchObject({ type: 'string' });
    expect(versions[1].taxonomy).toMatchObject({ name: 'Tools' });
    expect(Object.keys(versions[1].taxonomy.nodes).sort()).toEqual(['hand', 'power']);
    expect((await knex('catalogs').where('id', catalogId).first('current_schema_version')).current_schema_version).toBe('1.1.0');
    expect((await itemsBySku(knex, catalogId)).get('a1')!.data).toEqual({ sku: 'a1', title: 'Alpha', price: 1, color: 'red' });
  });

  it('fails as a whole when a part cannot be applied (nothing applied, phase failed, still pending_review), and can be asked again', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const ids = await seedItems(knex, org.organizationId, catalogId, [{ sku: 'a1', title: 'Alpha', price: 1 }]);
    const { activityId } = await seedReviewActivity(
      knex,
      org.organizationId,
      catalogId,
      [{ catalog_item_id: ids.get('a1'), before_data: { title: 'Alpha' }, after_data: { title: 'Changed' }, base_version: 1 }],
      { input_data: { schema_changes: { fields_to_remove: ['no_such_field'] } } },
    );
    expect((await postApply(activityId)).status).toBe(202);
    const done = await settled(activityId);
    expect(done.status).toBe('pending_review');
    expect(done.apply_progress).toMatchObject({ phase: 'failed' });
    expect(String(done.apply_progress!.error)).toContain('no_such_field');
    expect(done.apply_result).toBeNull();
    expect((await itemsBySku(knex, catalogId)).get('a1')).toMatchObject({ data: { title: 'Alpha' }, current_version: 1 });
    expect((await changesOf(activityId))[0]).toMatchObject({ status: 'approved', applied_at: null });

    // Asked again once the cause is gone: a new run (fresh pre-apply snapshot) applies it.
    await knex('review_activities').where('id', activityId).update({ input_data: null });
    const again = await postApply(activityId);
    expect(again.status).toBe(202);
    expect(again.body.apply_progress).toMatchObject({ phase: 'queued' });
    const retried = await settled(activityId);
    expect(retried.status).toBe('completed');
    const snapshots = await preApplySnapshots(catalogId);
    expect(snapshots).toHaveLength(2);
    expect(snapshots.map((x) => x.id)).toContain(retried.apply_result!.pre_apply_snapshot_id);
    expect(retried.apply_result).toMatchObject({ applied: 1, skipped_conflicts: 0, failed: 0 });
    expect((await itemsBySku(knex, catalogId)).get('a1')).toMatchObject({ data: { title: 'Changed' }, current_version: 2 });
  });

  it('answers 404 for an unknown id, 403 for another organization, 409 for an activity that cannot be applied, 422 for a bad body', async () => {
    const catalogId = await createTestCatalog(org.organizationId);
    const created = await seedReviewActivity(knex, org.organizationId, catalogId, [], { status: 'created' });
    const noCatalog = await seedReviewActivity(knex, org.organizationId, null, []);
    const cancelled = await seedReviewActivity(knex, org.organizationId, catalogId, [], { status: 'cancelled' });
    const pending = await seedReviewActivity(knex, org.organizationId, catalogId, []);

    expect((await postApply('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await postApply('not-a-uuid')).status).toBe(404);
    expect((await postApply(pending.activityId, {}, other.auth)).status).toBe(403);
    for (const a of [created, noCatalog, cancelled]) {
      const res = await postApply(a.activityId);
      expect(res.status).toBe(409);
      expect(typeof res.body.detail).toBe('string');
    }
    expect((await postApply(pending.activityId, { force: 'yes' })).status).toBe(422);
    // Nothing was started for the refused ones.
    for (const a of [created, noCatalog, cancelled]) {
      await expect(env.client.workflow.getHandle(reviewApplyWorkflowId(a.activityId)).describe()).rejects.toThrow();
    }
    // An activity without approved changes applies nothing and completes.
    expect((await postApply(pending.activityId)).status).toBe(202);
    expect((await settled(pending.activityId)).apply_result).toMatchObject({ applied: 0, skipped_conflicts: 0, failed: 0 });
  });

  it('is in the OpenAPI document under both paths', async () => {
    const doc = await request(app).get('/api/openapi.json');
    expect(doc.body.paths['/api/public/activities/{activity_id}/apply'].post.responses['202']).toBeDefined();
    expect(doc.body.paths['/api/activities/{activity_id}/apply'].post).toBeDefined();
  });
});
