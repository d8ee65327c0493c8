/**
 * `GET …/items?search=…&limit=50` on a 1,000,000-item catalog (pg_trgm GIN over
 * `search_text`), exact `total` included. The catalog is seeded once with INSERT … SELECT
 * generate_series and kept (organization "bench search 1m") for later runs. Terms are a mix of
 * identifiers and phrases from narrow to broad; the broad ones are reported apart because an
 * exact total over hundreds of thousands of matches is counting work, not search work.
 * Prints one JSON line. Target: p95 ≤ 100 ms for the narrow mix.
 */
import { newId } from '../src/lib/ids';
import { sha256Hex } from '../src/lib/ids';
import { FIELDS, since, startBench, seedItems } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 1000000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const NARROW = ['sku-123456', 'SKU-98765', '4000000777777', 'mpn4242', 'model 996', 'https://img.example.com/55555.', 'Acme Red Shirt 8', 'Contoso'.toLowerCase() + ' green trousers 1234'];
const BROAD = ['olive boot', 'wool'];

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

async function main(): Promise<void> {
  const b = await startBench();
  try {
    // A persistent organization + catalog of N items, reused across runs.
    const key = 'ck_benchsearch1m';
    let org = await b.knex('api_keys').where('key_hash', sha256Hex(key)).first('organization_id');
    if (!org) {
      const id = newId();
      await b.knex('organizations').insert({ id, name: 'bench search 1m', webhook_secret: 'x' });
      await b.knex('api_keys').insert({ id: newId(), organization_id: id, name: 'bench', key_hash: sha256Hex(key), key_prefix: key.slice(0, 10) });
      org = { organization_id: id };
    }
    let catalog = await b.knex('catalogs').where({ organization_id: org.organization_id, item_count: N }).first('id');
    let seedMs = 0;
    if (!catalog) {
      await b.knex('catalogs').where('organization_id', org.organization_id).delete();
      const id = newId();
      await b.knex('catalogs').insert({ id, organization_id: org.organization_id, name: 'search 1m', unique_id_field: 'sku', strict_mode: true, current_schema_version: '1.0.0', created_by_user_id: 'bench' });
      await b.knex('catalog_schemas').insert({ id: newId(), catalog_id: id, version: '1.0.0', schema_definition: JSON.stringify({ type: 'object', properties: FIELDS }), created_by: 'bench', change_reason: 'bench' });
      const t = performance.now();
      await seedItems({ ...b, organizationId: org.organization_id }, id, N);
      seedMs = since(t);
      catalog = { id };
    }
    const auth = { Authorization: `Bearer ${key}` };
    const run = async (term: string) => {
      const t = performance.now();
      const res = await fetch(`${b.baseUrl}/api/public/catalogs/${catalog.id}/items?limit=50&search=${encodeURIComponent(term)}`, { headers: auth });
      const body = (await res.json()) as { total: number; items: unknown[] };
      if (res.status !== 200) throw new Error(`list ${res.status}`);
      return { ms: since(t), total: body.total };
    };
    for (const term of [...NARROW, ...BROAD]) await run(term); // warm-up
    const narrow: number[] = [];
    const broad: number[] = [];
    const totals: Record<string, number> = {};
    const perTerm: Record<string, number[]> = {};
    for (let r = 0; r < ROUNDS; r++) {
      for (const term of NARROW) {
        const x = await run(term);
        narrow.push(x.ms);
        totals[term] = x.total;
        (perTerm[term] ??= []).push(x.ms);
      }
      for (const term of BROAD) {
        const x = await run(term);
        broad.push(x.ms);
        totals[term] = x.total;
        (perTerm[term] ??= []).push(x.ms);
      }
    }
    const t = performance.now();
    const noSearch = await fetch(`${b.baseUrl}/api/public/catalogs/${catalog.id}/items?limit=50&offset=500000`, { headers: auth });
    await noSearch.json();
    const p95 = percentile(narrow, 95);
    console.log(JSON.stringify({
      bench: 'list_search_1m', items: N, page: 50, requests: narrow.length + broad.length, seed_ms: Math.round(seedMs),
      narrow_p50_ms: Number(percentile(narrow, 50).toFixed(1)), narrow_p95_ms: Number(p95.toFixed(1)),
      broad_p50_ms: Number(percentile(broad, 50).toFixed(1)), broad_p95_ms: Number(percentile(broad, 95).toFixed(1)),
      no_search_offset_500k_ms: Math.round(since(t)), totals,
      p50_ms_by_term: Object.fromEntries(Object.entries(perTerm).map(([k, v]) => [k, Math.round(percentile(v, 50))])), target_p95_ms: 100, pass: p95 <= 100,
    }));
  } finally {
    await b.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
