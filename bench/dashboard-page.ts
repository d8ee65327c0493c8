/**
 * Server time of the review dashboard's activity page on a 100,000-change activity ("First page of a 100,000-change activity renders in ≤ 300 ms server time"). Seeds 100,000
 * items and stages one change per item (3 changed fields, sources, explanations, field
 * confidence and methods, as enrichment stages them) with set-based INSERT … SELECT, signs in
 * through /dashboard/login, then fetches the first page (and filtered first pages) over HTTP on
 * loopback: the figures include the whole request, so they bound the server time from above.
 * Prints one JSON line (ms; median and max of `BENCH_RUNS` warm requests, default 10; the first,
 * cold request separately) with the load average at start and end (the machine is shared).
 */
import './env';
import { listStagedChanges, stagedChangesSummary } from '../src/services/review/staged-changes';
import { createBenchCatalog, loadAvg, median, runBench, seedItems, since } from './lib';

const N = Number(process.env.BENCH_CHANGES ?? 100000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);

runBench(async (b) => {
  const loadStart = loadAvg();
  const catalogId = await createBenchCatalog(b, 'dashboard page');
  await seedItems(b, catalogId, N);
  const activityId = (await b.knex.raw('SELECT gen_random_uuid() AS id')).rows[0].id as string;
  await b.knex('review_activities').insert({
    id: activityId,
    organization_id: b.organizationId,
    catalog_id: catalogId,
    type: 'enrichment',
    status: 'pending_review',
    description: 'dashboard bench',
  });
  const t0 = performance.now();
  await b.knex.raw(
    `INSERT INTO staged_changes (id, activity_id, organization_id, catalog_id, catalog_item_id, catalog_item_entity_type,
       before_data, after_data, source_data, is_new_item, row_index, status, review_info, base_version)
     SELECT gen_random_uuid(), ?, ?, ?, i.id, 'product', i.data,
       i.data || jsonb_build_object('color', 'Navy blue', 'material', 'organic ' || (i.data ->> 'material'),
         'description', (i.data ->> 'description') || ' — machine washable'),
       jsonb_build_object(
         'sources', jsonb_build_object('color', jsonb_build_array('https://shop.example.com/p/' || (i.data ->> 'sku')),
           'material', jsonb_build_array('https://maker.example.com/' || (i.data ->> 'mpn'))),
         'source_explanations', jsonb_build_object('color', 'colour name on the product page', 'material', 'fabric composition table')),
       false, row_number() OVER (ORDER BY i.created_at, i.id) - 1, 'pending',
       jsonb_build_object('reasoning', 'bench', 'confidence', (ARRAY['high','medium','low'])[(abs(hashtext(i.id::text)) % 3) + 1], 'flags', '[]'::jsonb,
         'field_issues', '[]'::jsonb,
         'field_confidence', jsonb_build_object('color', 'high', 'material', 'medium', 'description', 'low'),
         'field_methods', jsonb_build_object('color', 'jsonld', 'material', 'table', 'description', 'llm')),
       i.current_version
     FROM catalog_items i WHERE i.catalog_id = ?`,
    [activityId, b.organizationId, catalogId, catalogId],
  );
  const stageMs = since(t0);
  await b.knex.raw('VACUUM ANALYZE staged_changes');

  const apiKey = b.auth.Authorization.replace(/^Bearer /, '');
  const login = await fetch(`${b.baseUrl}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ credential: apiKey, next: '/dashboard' }).toString(),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  if (login.status !== 303 || !cookie) throw new Error(`sign-in failed: ${login.status}`);

  const pageUrl = `${b.baseUrl}/dashboard/catalogs/${catalogId}/activities/${activityId}`;
  const time = async (query: string) => {
    const t = performance.now();
    const res = await fetch(pageUrl + query, { headers: { Cookie: cookie } });
    const body = await res.text();
    const ms = since(t);
    if (res.status !== 200 || !body.includes('data-change-id')) throw new Error(`${query}: ${res.status}`);
    return ms;
  };
  const measure = async (query: string) => {
    const cold = await time(query);
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) warm.push(await time(query));
    return { cold_ms: Math.round(cold), median_ms: Math.round(median(warm)), max_ms: Math.round(Math.max(...warm)) };
  };
  // The parts, called directly: the summary (per-field completion over every change) and one list page.
  const scope = { organizationId: b.organizationId, principal: { kind: 'api_key' as const, id: 'bench', organizationIds: [b.organizationId] } };
  const part = async (f: () => Promise<unknown>) => {
    const t = performance.now();
    await f();
    return Math.round(since(t));
  };
  const summaryMs = await part(() => stagedChangesSummary(b.knex, scope, activityId));
  const listMs = await part(() => listStagedChanges(b.knex, scope, activityId, { page: 1, page_size: 25 }));
  return {
    bench: 'dashboard-page',
    service_summary_ms: summaryMs,
    service_list_first_page_ms: listMs,
    changes: N,
    stage_insert_ms: Math.round(stageMs),
    first_page: await measure(''),
    page_100: await measure('?page=100'),
    filter_status: await measure('?status=pending'),
    filter_text: await measure('?q=SKU-4242'),
    filter_field_confidence: await measure('?field=color&confidence=high'),
    load_start: loadStart,
  };
});
