/**
 * The review loop's write path at scale: 100,000 staged changes
 * appended through HTTP in chunks of 2,000 (`POST /api/public/activities/{id}/staged-changes/append`,
 * each chunk with a `batch_key`, one chunk retried to show the retry is a no-op), then
 * `approve_all` on them through HTTP. Each figure is also given as a ratio to a raw SQL
 * `UPDATE … FROM` of the same 100,000 staged-change rows in the same run (the floor of touching
 * those rows once). The changes are what the tool server's HEAD diff sends for a price and title
 * change (docs/tool-server-design.md "Diff"): changed fields only, with the snapshot system columns
 * `__catalog_item_id` / `__current_version` and the array field `tags` as a JSON string; 1% have
 * an invalid price and must be stored as `error` (and never approved). Targets: append ≤ 15 s in
 * total, approve_all ≤ 2 s. Prints one JSON line.
 */
import { createBenchCatalog, loadAvg, runBench, seedItems, since } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 100000);
const CHUNK = 2000;

runBench(async (b) => {
  const loadStart = loadAvg();
  const catalog = await createBenchCatalog(b, 'review append');
  await seedItems(b, catalog, N);
  const items = (await b.knex.raw('SELECT id, current_version, data FROM catalog_items WHERE catalog_id = ? ORDER BY created_at, id', [catalog]))
    .rows as Array<{ id: string; current_version: number; data: { price: number; title: string; tags: string[] } }>;

  /** One call through the typed client, timed; its JSON answer, or an error naming the status. */
  const timed = async (call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>) => {
    const t = performance.now();
    const { data, error, response } = await call();
    if (response.status !== 200) throw new Error(`${new URL(response.url).pathname}: ${response.status} ${JSON.stringify(error)}`);
    return { ms: since(t), json: data as Record<string, unknown> };
  };
  const shell = await timed(() =>
    b.api.POST('/api/public/catalogs/{catalog_id}/activities', {
      params: { path: { catalog_id: catalog } },
      body: { type: 'custom_transform', description: 'bench', status: 'created', staged_changes: [] },
    }),
  );
  const aid = shell.json.activity_id as string;

  const change = (i: number) => {
    const it = items[i];
    const sys = { __catalog_item_id: it.id, __current_version: String(it.current_version) };
    return {
      catalog_item_id: it.id,
      catalog_item_entity_type: 'product',
      before_data: { ...sys, price: it.data.price, title: it.data.title, tags: JSON.stringify(it.data.tags) },
      after_data: { ...sys, price: i % 100 === 0 ? 'x' : it.data.price + 1, title: `${it.data.title} (new)`, tags: JSON.stringify([...it.data.tags, 'sale']) },
      source_data: null,
      is_new_item: false,
      row_index: i,
    };
  };
  const chunks: Array<ReturnType<typeof change>[]> = [];
  for (let s = 0; s < items.length; s += CHUNK) chunks.push(items.slice(s, s + CHUNK).map((_, j) => change(s + j)));
  const append = (staged_changes: ReturnType<typeof change>[], batch_key: string) =>
    timed(() =>
      b.api.POST('/api/public/activities/{activity_id}/staged-changes/append', { params: { path: { activity_id: aid } }, body: { staged_changes, batch_key } }),
    );

  const chunkMs: number[] = [];
  let total = 0;
  const t0 = performance.now();
  for (const [i, c] of chunks.entries()) {
    const r = await append(c, `chunk-${i}`);
    chunkMs.push(r.ms);
    total = r.json.total_staged_changes as number;
  }
  const appendMs = since(t0);
  const retry = await append(chunks[1], 'chunk-1');
  await timed(() =>
    b.api.POST('/api/public/activities/{activity_id}/pending-review', {
      params: { path: { activity_id: aid } },
      body: { message: 'bench', output: { rows_modified: N } },
    }),
  );

  // The floor: one raw UPDATE … FROM over the same rows.
  await b.knex.raw('VACUUM ANALYZE staged_changes');
  const t1 = performance.now();
  await b.knex.raw(
    `UPDATE staged_changes s SET status = t.status, updated_at = now()
     FROM (SELECT id, status FROM staged_changes WHERE activity_id = ?) t WHERE s.id = t.id`,
    [aid],
  );
  const rawMs = since(t1);

  const approve = await timed(() =>
    b.api.POST('/api/activities/{activity_id}/staged-changes/bulk-review', { params: { path: { activity_id: aid } }, body: { action: 'approve_all' } }),
  );
  const counts = Object.fromEntries(
    (
      (await b.knex('staged_changes').where({ activity_id: aid }).groupBy('status').select('status').count({ n: '*' })) as Array<{ status: string; n: string }>
    ).map((r) => [r.status, Number(r.n)]),
  );
  const stored = (await b.knex('staged_changes').where({ activity_id: aid }).orderBy('row_index').first('after_data', 'base_version')) as {
    after_data: Record<string, unknown>;
    base_version: number;
  };
  const errors = Math.ceil(N / 100);
  const correct =
    total === N &&
    retry.json.appended_count === CHUNK &&
    retry.json.total_staged_changes === N &&
    counts.approved === N - errors &&
    counts.error === errors &&
    approve.json.updated === N - errors &&
    Array.isArray(stored.after_data.tags) &&
    !('__catalog_item_id' in stored.after_data) &&
    stored.base_version === items[0].current_version;
  const sorted = [...chunkMs].sort((a, c) => a - c);
  return {
    bench: 'review_append',
    changes: N,
    chunk: CHUNK,
    chunks: chunks.length,
    append_total_ms: Math.round(appendMs),
    append_chunk_median_ms: Math.round(sorted[Math.floor(sorted.length / 2)]),
    append_chunk_max_ms: Math.round(sorted[sorted.length - 1]),
    approve_all_ms: Math.round(approve.ms),
    raw_update_from_ms: Math.round(rawMs),
    append_ratio_to_raw_update: Number((appendMs / rawMs).toFixed(2)),
    approve_all_ratio_to_raw_update: Number((approve.ms / rawMs).toFixed(2)),
    retried_batch_noop: retry.json.appended_count === CHUNK && retry.json.total_staged_changes === N,
    by_status: counts,
    correct,
    target_append_ms: 15000,
    target_approve_all_ms: 2000,
    pass: correct && appendMs <= 15000 && approve.ms <= 2000,
    load_start: loadStart,
  };
});
