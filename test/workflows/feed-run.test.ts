/**
 * Feeds and feed runs (docs/feeds.md) through the HTTP API, the real Temporal dev server
 * (feedRunWorkflow and its activities) and PostgreSQL: a Google Merchant Center TSV feed of a
 * catalog with a product and its two variants, a product with a bad GTIN and a plain product.
 * Proves: the file parsed back has one row per exportable item (variants inherit the product's
 * values and carry item_group_id), the bad GTIN's item is excluded and listed with
 * `invalid_gtin`, counters and progress; the public URL without a key and its Content-Type; a
 * rotated or deleted feed's old URL answers 404; a proposed mapping carries reasons; bad input is
 * 422; cancel mid-run leaves the run cancelled without a file; a delta run after an item changed
 * and one was deleted lists exactly those, reading only the items written since its base (an
 * updated product, an updated variant, a product change its variants inherit, a deletion, a new
 * item, a write that changes no row) and updating the feed's item state in place by exactly the
 * changed and removed rows (the same state as a full run's after); a delta after the feed's
 * settings changed compares every row and still finds a deleted item; a delta after a snapshot
 * restore compares every row (the restore writes no per-item change records); a cron schedule is a
 * Temporal Schedule kept in step with the feed.
 */
import request from 'supertest';
import { feedRunWorkflowId, feedScheduleId } from '../../src/contracts/feed-workflows';
import { createTestCatalog } from '../helpers/catalogs';
import { createTestOrg } from '../helpers/db';
import { useFeedRunSuite, type FeedRunSuite } from '../helpers/feed-run-suite';
import { waitUntil } from '../helpers/wait';
import { newId } from '../../src/lib/ids';
import { FEED_MAPPING, FEED_SCHEMA, feedProductData, seedFeedCatalog } from '../helpers/feed-catalog';

const TASK_QUEUE = 'test-feed-runs';
/** Two items per page, so every run here writes several pages (and parts). */
const PAGE_ITEMS = 2;

let env: FeedRunSuite['env'];
let knex: FeedRunSuite['knex'];
let app: FeedRunSuite['app'];
let org: FeedRunSuite['org'];

const SCHEMA = FEED_SCHEMA;
const MAPPING = FEED_MAPPING;
const seed = (catalogId: string) => seedFeedCatalog(knex, catalogId);

useFeedRunSuite({ orgName: 'feed tests', taskQueue: TASK_QUEUE, pageItems: PAGE_ITEMS }, (suite) => ({ env, knex, app, org } = suite));

async function newFeed(catalogId: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown> & { id: string; public_url: string }> {
  const res = await request(app)
    .post(`/api/public/catalogs/${catalogId}/feeds`)
    .set(org.auth)
    .send({ channel: 'google_merchant_center', format: 'tsv', target_country: 'DE', language: 'de', currency: 'EUR', mapping: MAPPING, ...extra });
  expect(res.status).toBe(201);
  return res.body;
}

/** A run as `GET …/runs/{run_id}` answers it. */
interface RunBody {
  id: string;
  status: string;
  delta: boolean;
  file_url: string;
  issues_url: string;
  counts: Record<string, number>;
}

async function runToEnd(feedId: string, body: Record<string, unknown> = {}): Promise<RunBody> {
  const res = await request(app).post(`/api/public/feeds/${feedId}/runs`).set(org.auth).send(body);
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  await env.client.workflow.getHandle(feedRunWorkflowId(runId)).result();
  return (await request(app).get(`/api/public/feeds/${feedId}/runs/${runId}`).set(org.auth)).body;
}

/** A TSV file as header + rows of objects. */
function parseTsv(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trimEnd().split('\n');
  const cols = head.split('\t');
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])));
}

/** A delta file's line, or all its lines together: changed rows and removed items. */
interface DeltaRows {
  changed: Array<Record<string, string>>;
  removed: Array<{ item_id: string; id: string }>;
}

/** A delta run's JSONL file (`application/x-ndjson`): the changed rows and the removed items of all its lines. */
async function deltaFile(run: RunBody): Promise<DeltaRows> {
  const file = await request(app).get(run.file_url).set(org.auth).buffer(true);
  expect(file.headers['content-type']).toMatch(/^application\/x-ndjson/);
  const lines = file.text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as DeltaRows);
  return { changed: lines.flatMap((l) => l.changed), removed: lines.flatMap((l) => l.removed) };
}

/** The feed's current item state (its latest completed run's generation), by item id. */
async function stateOf(feedId: string): Promise<Array<{ item_id: string; offer_id: string; row_hash: string }>> {
  const latest = await knex('feed_runs').where({ feed_id: feedId, status: 'completed' }).orderBy('completed_at', 'desc').first('state_id');
  return knex('feed_item_state').select('item_id', 'offer_id', 'row_hash').where('state_id', latest.state_id).orderBy('item_id');
}

const grouped = () => createTestCatalog(org.organizationId, { product_id_field: 'product_id', product_enabled: true, schema_definition: SCHEMA });

describe('feed runs', () => {
  it('writes the file: variants inherit and carry item_group_id, the bad GTIN is excluded and listed', async () => {
    const catalogId = await grouped();
    const ids = await seed(catalogId);
    const feed = await newFeed(catalogId);
    expect(feed.mapping_suggested).toBe(false);
    const run = await runToEnd(feed.id);
    expect(run).toMatchObject({ status: 'completed', progress: { items_read: 4, total: 4 }, counts: { items: 4, exported: 3, excluded: 1 } });
    expect(run.file_url).toBe(`/api/public/feeds/${feed.id}/runs/${run.id}/file`);

    const file = await request(app).get(run.file_url).set(org.auth).buffer(true);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toMatch(/^text\/tab-separated-values/);
    const rows = parseTsv(file.text);
    expect(rows.map((r) => r.id).sort()).toEqual(['P3', 'V1', 'V2']);
    const v1 = rows.find((r) => r.id === 'V1') as Record<string, string>;
    expect(v1).toMatchObject({
      item_group_id: 'P1',
      title: 'Trail shirt',
      brand: 'Acme',
      gtin: '4006381333931',
      color: 'red',
      size: 'M',
      price: '19.50 EUR',
      condition: 'new',
    });
    expect(rows.find((r) => r.id === 'P3')?.item_group_id ?? '').toBe('');

    const issues = await request(app).get(`${run.issues_url}?code=invalid_gtin`).set(org.auth);
    expect(issues.status).toBe(200);
    expect(issues.body).toMatchObject({ total: 1, page: 1, total_pages: 1 });
    expect(issues.body.items[0]).toMatchObject({
      item_id: ids.P2,
      sku: 'P2',
      attribute: 'gtin',
      severity: 'error',
      code: 'invalid_gtin',
      value: '4006381333932',
    });
    const errors = await request(app).get(`${run.issues_url}?severity=error&page_size=100`).set(org.auth);
    expect(new Set(errors.body.items.map((i: { item_id: string }) => i.item_id))).toEqual(new Set([ids.P2]));
  });

  it('serves the latest file at the public URL without a key; rotation and deletion revoke the old URL', async () => {
    const catalogId = await grouped();
    await seed(catalogId);
    const feed = await newFeed(catalogId);
    const path = new URL(feed.public_url).pathname;
    expect((await request(app).get(path)).status).toBe(404); // no completed run yet
    const run = await runToEnd(feed.id);
    const pub = await request(app).get(path).buffer(true);
    expect(pub.status).toBe(200);
    expect(pub.headers['content-type']).toMatch(/^text\/tab-separated-values/);
    const own = await request(app).get(run.file_url).set(org.auth).buffer(true);
    expect(pub.text).toBe(own.text);

    const rotated = await request(app).post(`/api/public/feeds/${feed.id}/rotate-token`).set(org.auth);
    expect(rotated.status).toBe(200);
    expect(rotated.body.public_url).not.toBe(feed.public_url);
    expect((await request(app).get(path)).status).toBe(404);
    const newPath = new URL(rotated.body.public_url).pathname;
    expect((await request(app).get(newPath)).status).toBe(200);
    expect((await request(app).get('/feeds/public/not-a-token')).status).toBe(404);

    expect((await request(app).delete(`/api/public/feeds/${feed.id}`).set(org.auth)).status).toBe(200);
    expect((await request(app).get(newPath)).status).toBe(404);
    expect((await request(app).get(`/api/public/feeds/${feed.id}`).set(org.auth)).status).toBe(404);
  });

  it('proposes a mapping with reasons when none is given, and refuses bad settings with 422', async () => {
    const catalogId = await grouped();
    const res = await request(app)
      .post(`/api/public/catalogs/${catalogId}/feeds`)
      .set(org.auth)
      .send({ channel: 'google_merchant_center', format: 'xml', target_country: 'DE', language: 'de' });
    expect(res.status).toBe(201);
    expect(res.body.mapping_suggested).toBe(true);
    expect(res.body.mapping).toMatchObject({ title: 'title', gtin: 'gtin', brand: 'brand' });
    expect(typeof res.body.mapping_reasons.gtin).toBe('string');
    const list = await request(app).get(`/api/public/catalogs/${catalogId}/feeds`).set(org.auth);
    expect(list.body.feeds.map((f: { id: string }) => f.id)).toEqual([res.body.id]);

    const bad = async (body: Record<string, unknown>, loc: string) => {
      const r = await request(app)
        .post(`/api/public/catalogs/${catalogId}/feeds`)
        .set(org.auth)
        .send({ channel: 'google_merchant_center', format: 'tsv', target_country: 'DE', language: 'de', ...body });
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(loc);
    };
    await bad({ channel: 'myspace' }, 'body.channel');
    await bad({ format: 'jsonl' }, 'body.format');
    await bad({ schedule: '61 * * * *' }, 'body.schedule');
    await bad({ mapping: { title: 'no_such_field' } }, 'body.mapping.title');
    await bad({ mapping: { title: { template: '{brand} {nope}' } } }, 'body.mapping.title');
    // Another organization sees neither the feed nor its runs.
    const other = await createTestOrg('feed tests, other org');
    expect((await request(app).get(`/api/public/feeds/${res.body.id}`).set(other.auth)).status).toBe(404);
    expect((await request(app).post(`/api/public/feeds/${res.body.id}/runs`).set(other.auth).send({})).status).toBe(404);
    const patch = await request(app).patch(`/api/public/feeds/${res.body.id}`).set(org.auth).send({ mapping: MAPPING });
    expect(patch.status).toBe(200);
    expect(patch.body.mapping_suggested).toBe(false);
  });

  it('cancels a running run: cancelled, no file, the workflow closed', async () => {
    const catalogId = await grouped();
    await seed(catalogId);
    const feed = await newFeed(catalogId);
    // Hold page inserts so the run is mid-way when it is cancelled (made, not waited for).
    const trx = await knex.transaction();
    await trx.raw('LOCK TABLE feed_run_pages IN SHARE MODE');
    let runId = '';
    try {
      const res = await request(app).post(`/api/public/feeds/${feed.id}/runs`).set(org.auth).send({});
      runId = res.body.run_id;
      await waitUntil(async () => {
        const { rows } = await knex.raw(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%feed_run_pages%' LIMIT 1",
        );
        return rows.length > 0;
      }, 'a page waiting on its insert');
      const cancel = await request(app).post(`/api/public/feeds/${feed.id}/runs/${runId}/cancel`).set(org.auth);
      expect(cancel.status).toBe(200);
      expect(cancel.body.status).toBe('cancelled');
    } finally {
      await trx.commit();
    }
    await expect(env.client.workflow.getHandle(feedRunWorkflowId(runId)).result()).rejects.toThrow();
    const run = (await request(app).get(`/api/public/feeds/${feed.id}/runs/${runId}`).set(org.auth)).body;
    expect(run).toMatchObject({ status: 'cancelled', file_url: null });
    expect((await request(app).get(`/api/public/feeds/${feed.id}/runs/${runId}/file`).set(org.auth)).status).toBe(404);
    expect((await request(app).post(`/api/public/feeds/${feed.id}/runs/${runId}/cancel`).set(org.auth)).status).toBe(409);
    const desc = await env.client.workflow.getHandle(feedRunWorkflowId(runId)).describe();
    expect(desc.status.name).toBe('CANCELLED');
  });

  it('a delta run lists the items changed and removed since the last completed run, as JSONL', async () => {
    const catalogId = await grouped();
    const ids = await seed(catalogId);
    const feed = await newFeed(catalogId);
    expect((await runToEnd(feed.id)).status).toBe('completed');
    await knex('catalog_items')
      .where('id', ids.P3)
      .update({ data: JSON.stringify({ ...feedProductData('P3', 'Lamp, brighter'), gtin: '9780201379624' }), updated_at: knex.fn.now() });
    await knex('catalog_items').where('id', ids.V2).delete();
    const delta = await runToEnd(feed.id, { delta: true });
    // It read only the touched ids: P3 (written), V2 (deleted) and P1 (V2's product), of which
    // P3 is exportable (P1 still has V1).
    expect(delta).toMatchObject({ status: 'completed', delta: true, progress: { items_read: 3, total: 3 }, counts: { items: 1, exported: 1, excluded: 0 } });
    const { changed, removed } = await deltaFile(delta);
    expect(changed.map((r) => [r.id, r.title])).toEqual([['P3', 'Lamp, brighter']]);
    expect(removed).toEqual([{ item_id: ids.V2, id: 'V2' }]);
    // The public URL keeps serving the last full file.
    const pub = await request(app).get(new URL(feed.public_url).pathname).buffer(true);
    expect(pub.headers['content-type']).toMatch(/^text\/tab-separated-values/);
  });

  it('a delta reads only the items written since its base and lists what a row comparison lists; its item list stays complete', async () => {
    const catalogId = await grouped();
    const ids = await seed(catalogId);
    const extra: Record<string, string> = { P4: newId(), V4a: newId(), V4b: newId(), P5: newId(), P8: newId() };
    const item = (sku: string, data: Record<string, unknown>, parent?: string) => ({
      id: extra[sku] ?? ids[sku] ?? newId(),
      catalog_id: catalogId,
      entity_type: parent ? 'variant' : 'product',
      parent_id: parent ?? null,
      business_key: sku,
      data: JSON.stringify(data),
    });
    const untouched = Array.from({ length: 12 }, (_, i) => item(`Q${i}`, { ...feedProductData(`Q${i}`, `Quiet ${i}`), gtin: '9780201379624' }));
    await knex('catalog_items').insert([
      item('P4', feedProductData('P4', 'Rain coat')),
      item('V4a', { sku: 'V4a', product_id: 'P4', gtin: '4006381333931', color: 'green', size: 'S' }, extra.P4),
      item('V4b', { sku: 'V4b', product_id: 'P4', gtin: '5901234123457', color: 'green', size: 'M' }, extra.P4),
      item('P5', { ...feedProductData('P5', 'Kettle'), gtin: '9780201379624' }),
      item('P8', { ...feedProductData('P8', 'Stool'), gtin: '9780201379624' }),
      ...untouched,
    ]);
    const feed = await newFeed(catalogId);
    const base = await runToEnd(feed.id);
    expect(base.counts).toMatchObject({ items: 20, exported: 19, excluded: 1 });
    const stateBefore = await stateOf(feed.id);
    expect(stateBefore).toHaveLength(19);

    const write = (id: string, data: Record<string, unknown>) =>
      knex('catalog_items')
        .where('id', id)
        .update({ data: JSON.stringify(data), updated_at: knex.fn.now() });
    await write(ids.P3, { ...feedProductData('P3', 'Lamp, brighter'), gtin: '9780201379624' }); // an updated product
    await write(ids.V1, { sku: 'V1', product_id: 'P1', gtin: '4006381333931', color: 'crimson', size: 'M' }); // an updated variant
    await write(extra.P4, { ...feedProductData('P4', 'Rain coat'), brand: 'Borealis' }); // inherited by V4a and V4b
    await write(extra.P8, { ...feedProductData('P8', 'Stool'), gtin: '9780201379624' }); // written, nothing the channel sees changed
    await knex('catalog_items').where('id', extra.P5).delete(); // a deleted item
    const p6 = item('P6', { ...feedProductData('P6', 'Vase'), gtin: '9780201379624' }); // a new item
    await knex('catalog_items').insert(p6);

    const delta = await runToEnd(feed.id, { delta: true });
    expect((await knex('feed_runs').where('id', delta.id).first()).delta_mode).toBe('changed');
    // Touched: P3, V1 and its product P1, P4 and its variants, P8, P5 (deleted), P6: 9 of 20 items,
    // 6 of them exportable (P1 and P4 have variants, P5 is gone).
    expect(delta).toMatchObject({ status: 'completed', progress: { items_read: 9, total: 9 }, counts: { items: 6, exported: 5, excluded: 0 } });
    const { changed, removed } = await deltaFile(delta);
    expect(changed.map((r) => r.id).sort()).toEqual(['P3', 'P6', 'V1', 'V4a', 'V4b']);
    expect(changed.find((r) => r.id === 'V4a')).toMatchObject({ brand: 'Borealis', item_group_id: 'P4' });
    expect(changed.find((r) => r.id === 'V1')).toMatchObject({ color: 'crimson', title: 'Trail shirt' });
    expect(removed).toEqual([{ item_id: extra.P5, id: 'P5' }]);

    // The feed's item state: the base's generation, updated in place by exactly the changed
    // rows (new hashes), the new item and the removed one, and now the same as a full run's.
    expect((await knex('feed_runs').where('id', delta.id).first()).state_id).toBe(base.id);
    const afterDelta = await stateOf(feed.id);
    const changedIds = afterDelta.filter((r) => stateBefore.find((b) => b.item_id === r.item_id)?.row_hash !== r.row_hash).map((r) => r.offer_id);
    expect(changedIds.sort()).toEqual(['P3', 'P6', 'V1', 'V4a', 'V4b']);
    expect(stateBefore.filter((b) => !afterDelta.some((r) => r.item_id === b.item_id)).map((b) => b.offer_id)).toEqual(['P5']);
    expect(afterDelta).toHaveLength(19);
    // The applied rows are dropped with the run; nothing was copied forward.
    expect(await knex('feed_run_items').where('run_id', delta.id).count({ n: '*' })).toEqual([{ n: '0' }]);
    const full = await runToEnd(feed.id);
    expect((await knex('feed_runs').where('id', full.id).first()).state_id).toBe(full.id);
    expect(await stateOf(feed.id)).toEqual(afterDelta);
    // The older generation is dropped once the full run's is current.
    expect(await knex('feed_item_state').where('state_id', base.id).count({ n: '*' })).toEqual([{ n: '0' }]);

    // Nothing written since: a delta reads nothing, lists nothing and leaves the state as it is.
    const quiet = await runToEnd(feed.id, { delta: true });
    expect(quiet).toMatchObject({ status: 'completed', progress: { items_read: 0, total: 0 }, counts: { items: 0, exported: 0 } });
    expect((await request(app).get(quiet.file_url).set(org.auth).buffer(true)).text).toBe('');
    expect(await stateOf(feed.id)).toEqual(afterDelta);
  });

  it("a delta after a change of the feed's settings compares every row", async () => {
    const catalogId = await grouped();
    const ids = await seed(catalogId);
    const feed = await newFeed(catalogId);
    expect((await runToEnd(feed.id)).status).toBe('completed');
    const patched = await request(app)
      .patch(`/api/public/feeds/${feed.id}`)
      .set(org.auth)
      .send({ mapping: { ...MAPPING, condition: { value: 'used' } } });
    expect(patched.status).toBe(200);
    await knex('catalog_items').where('id', ids.V2).delete();
    const delta = await runToEnd(feed.id, { delta: true });
    expect((await knex('feed_runs').where('id', delta.id).first()).delta_mode).toBe('compare');
    expect(delta).toMatchObject({ status: 'completed', progress: { items_read: 3, total: 3 }, counts: { exported: 2 } });
    const { changed, removed } = await deltaFile(delta);
    expect(changed.map((r) => [r.id, r.condition]).sort()).toEqual([
      ['P3', 'used'],
      ['V1', 'used'],
    ]);
    // A row comparison finds the removed item between the ids it reads (the state's rows in each page's id range).
    expect(removed).toEqual([{ item_id: ids.V2, id: 'V2' }]);
    expect((await stateOf(feed.id)).map((r) => r.offer_id).sort()).toEqual(['P3', 'V1']);
  });

  it('a delta after a snapshot restore compares every row and lists what the restore changed; the restore leaves no per-item change records', async () => {
    const catalogId = await grouped();
    const ids = await seed(catalogId);
    const snap = await request(app).post(`/api/public/catalogs/${catalogId}/snapshots`).set(org.auth).send({ reason: 'before edits' });
    expect(snap.status).toBe(200);
    // After the snapshot: P3 renamed, V2 deleted (the restore brings both back).
    await knex('catalog_items')
      .where('id', ids.P3)
      .update({ data: JSON.stringify({ ...feedProductData('P3', 'Lamp, brighter'), gtin: '9780201379624' }), updated_at: knex.fn.now() });
    await knex('catalog_items').where('id', ids.V2).delete();
    const feed = await newFeed(catalogId);
    expect((await runToEnd(feed.id)).counts).toMatchObject({ exported: 2 });
    const records = async () => Number((await knex('catalog_item_changes').where('catalog_id', catalogId).count({ n: '*' }))[0].n);
    const before = await records();
    const restored = await request(app).post(`/api/public/catalogs/${catalogId}/snapshots/${snap.body.id}/restore`).set(org.auth).send({});
    expect(restored.status).toBe(200);
    expect(restored.body.items_restored).toBe(5);
    // Two items written back (P3 updated, V2 inserted) and not one record: the safety snapshot stands for them.
    expect(await records()).toBe(before);

    const delta = await runToEnd(feed.id, { delta: true });
    expect((await knex('feed_runs').where('id', delta.id).first()).delta_mode).toBe('compare');
    const { changed, removed } = await deltaFile(delta);
    expect(changed.map((r) => [r.id, r.title]).sort()).toEqual([
      ['P3', 'Lamp'],
      ['V2', 'Trail shirt'],
    ]);
    expect(removed).toEqual([]);
  });

  it('a cron schedule becomes the Temporal Schedule feed-schedule-<feed_id>, replaced on change and removed with the feed', async () => {
    const catalogId = await grouped();
    const feed = await newFeed(catalogId, { schedule: '0 3 * * *' });
    expect(feed.notices).toBeUndefined();
    const handle = env.client.schedule.getHandle(feedScheduleId(feed.id));
    const first = await handle.describe();
    expect(first.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 3, end: 3, step: 1 }] });
    expect(first.action).toMatchObject({ type: 'startWorkflow', workflowType: 'feedScheduledRunWorkflow', args: [{ feed_id: feed.id }] });
    const patched = await request(app).patch(`/api/public/feeds/${feed.id}`).set(org.auth).send({ schedule: '30 5 * * 1' });
    expect(patched.status).toBe(200);
    expect((await handle.describe()).spec.calendars?.[0]).toMatchObject({ hour: [{ start: 5, end: 5, step: 1 }] });
    expect((await request(app).delete(`/api/public/feeds/${feed.id}`).set(org.auth)).status).toBe(200);
    await expect(handle.describe()).rejects.toThrow();
  });
});
