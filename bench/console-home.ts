/**
 * Server time of the console's home page with a 100,000-item catalog, and of the
 * completeness its script loads afterwards (`GET /dashboard/completeness.json`: the catalog's
 * completeness report, src/services/catalog/grid/completeness-report.ts, one scan of its items when
 * cold, the app's cache when warm). Seeds `BENCH_ITEMS` items
 * (default 100,000), makes three of the schema's fields required, signs in through
 * /dashboard/login and fetches /dashboard over loopback HTTP (the figures bound the server time
 * from above). Prints one JSON line (ms: the first, cold request; median and max of `BENCH_RUNS`
 * warm ones, default 5) with the load average at start and end (the machine is shared).
 */
import './env';
import { createBenchCatalog, loadAvg, median, runBench, seedItems, since } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 100000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

runBench(async (b) => {
  const loadStart = loadAvg();
  const catalogId = await createBenchCatalog(b, 'console home');
  await seedItems(b, catalogId, N);
  await b.knex.raw(
    `UPDATE catalog_schemas SET schema_definition = jsonb_set(schema_definition, '{required}', '["sku", "title", "color"]'::jsonb) WHERE catalog_id = ?`,
    [catalogId],
  );
  await b.knex.raw('VACUUM ANALYZE catalog_items');
  const apiKey = b.auth.Authorization.replace(/^Bearer /, '');
  const login = await fetch(`${b.baseUrl}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ credential: apiKey, next: '/dashboard' }).toString(),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  if (login.status !== 303 || !cookie) throw new Error(`sign-in failed: ${login.status}`);
  const time = async () => {
    const t = performance.now();
    const res = await fetch(`${b.baseUrl}/dashboard`, { headers: { Cookie: cookie } });
    const body = await res.text();
    if (res.status !== 200 || !body.includes(catalogId)) throw new Error(`home: ${res.status}`);
    return since(t);
  };
  const cold = await time();
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) warm.push(await time());
  const completeness = async () => {
    const t = performance.now();
    const res = await fetch(`${b.baseUrl}/dashboard/completeness.json?catalog_id=${catalogId}`, { headers: { Cookie: cookie } });
    const body = (await res.json()) as { catalogs: Array<{ share: number | null }> };
    if (res.status !== 200 || body.catalogs.length !== 1) throw new Error(`completeness: ${res.status}`);
    return { ms: since(t), share: body.catalogs[0].share };
  };
  const completenessCold = await completeness();
  const completenessWarm = await completeness();
  return {
    items: N,
    completeness: completenessCold.share,
    home_cold_ms: cold,
    home_median_ms: median(warm),
    home_max_ms: Math.max(...warm),
    completeness_cold_ms: completenessCold.ms,
    completeness_warm_ms: completenessWarm.ms,
    load_start: loadStart,
    load_end: loadAvg(),
  };
});
