/**
 * Shared set-up of the benchmarks (bench/*.ts): a separate database
 * (`BENCH_DATABASE_URL`, default catalog_enrichment_bench), migrated; the real app in-process on
 * an ephemeral port; an organization with an API key; 20-field catalogs seeded in SQL.
 */
import './env';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createKnex, databaseOf, ensureDatabase, migrateLatest } from '../src/db';
import { newId } from '../src/lib/ids';
import { createOrganizationWithKey } from '../src/services/access/auth';
import { createServiceCaches, ServiceCaches } from '../src/services/service-caches';
import type { JobRunner } from '../src/services/job-runner';
import { refusingJobs } from '../test/fixtures/job-runners';
import { createCatalogClient, type CatalogClient } from '@catalog-enrichment/client';

/** The benchmark database (never the development or test one). */
export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/catalog_enrichment_bench';

/** Item routes never start jobs; a runner that refuses keeps the benchmarks honest. */
const noJobs: JobRunner = refusingJobs('benchmarks start no jobs');

/** A running benchmark environment. */
export interface Bench {
  knex: Knex;
  baseUrl: string;
  organizationId: string;
  auth: Record<string, string>;
  /** The typed client (packages/client) bound to the app and the organization's API key: the benches' API calls go through it. */
  api: CatalogClient;
  /** The app's caches (benchmarks empty or read the search count cache). */
  caches: ServiceCaches;
  close(): Promise<void>;
}

/**
 * Drops and creates the bench database (its sessions ended first): what `npm run bench` does
 * before its first figure, so every run starts from the same empty, migrated state rather than
 * from the catalogs, dead rows and churn the scripts left in it before (docs/benchmarks.md
 * "How to run them"). Refuses a database whose name does not contain `bench`.
 * @throws Error naming the database when its name does not contain `bench`
 */
export async function recreateBenchDatabase(databaseUrl: string = BENCH_DATABASE_URL): Promise<void> {
  const { name, adminUrl } = databaseOf(databaseUrl);
  if (!name.includes('bench')) throw new Error(`refusing to drop ${name}: the bench database's name must contain "bench" (BENCH_DATABASE_URL)`);
  const knex = createKnex(adminUrl, { min: 0, max: 1 });
  try {
    await knex.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await knex.destroy();
  }
  await ensureDatabase(databaseUrl);
}

/** Creates/migrates the bench database and starts the app on an ephemeral port. */
export async function startBench(): Promise<Bench> {
  await ensureDatabase(BENCH_DATABASE_URL);
  const knex = createKnex(BENCH_DATABASE_URL, { min: 0, max: 20 });
  await migrateLatest(knex);
  const caches = createServiceCaches();
  const app = createApp({ config: loadConfig(), knex, jobRunner: noJobs, caches });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const { organizationId, apiKey } = await createOrganizationWithKey(knex, `bench ${new Date().toISOString()}`);
  return {
    knex,
    baseUrl: `http://127.0.0.1:${port}`,
    organizationId,
    auth: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    api: createCatalogClient({ baseUrl: `http://127.0.0.1:${port}`, token: apiKey }),
    caches,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Each run works in its own organization; removing it drops its catalogs, items and snapshots.
      await knex('organizations').where('id', organizationId).delete();
      await knex.destroy();
    },
  };
}

/** The 20 fields of the benchmark schema (strings, numbers, a boolean, an array). */
export const FIELDS: Record<string, Record<string, unknown>> = {
  sku: { type: 'string' },
  title: { type: 'string' },
  description: { type: 'string' },
  brand: { type: 'string' },
  category: { type: 'string' },
  color: { type: 'string' },
  size: { type: 'string' },
  material: { type: 'string' },
  price: { type: 'number' },
  currency: { type: 'string' },
  stock: { type: 'integer' },
  weight_kg: { type: 'number' },
  gtin: { type: 'string' },
  mpn: { type: 'string' },
  country_of_origin: { type: 'string' },
  active: { type: 'boolean' },
  tags: { type: 'array', items: { type: 'string' } },
  image_url: { type: 'string' },
  rating: { type: 'number' },
  season: { type: 'string' },
};

/** Creates a strict-mode catalog with the 20-field schema (version 1.0.0). */
export async function createBenchCatalog(b: Pick<Bench, 'knex' | 'organizationId'>, name: string): Promise<string> {
  const id = newId();
  await b.knex('catalogs').insert({
    id,
    organization_id: b.organizationId,
    name,
    unique_id_field: 'sku',
    strict_mode: true,
    current_schema_version: '1.0.0',
    created_by_user_id: 'bench',
  });
  await b.knex('catalog_schemas').insert({
    id: newId(),
    catalog_id: id,
    version: '1.0.0',
    schema_definition: JSON.stringify({ type: 'object', properties: FIELDS, required: ['sku'] }),
    created_by: 'bench',
    change_reason: 'bench',
  });
  return id;
}

const COLORS = ['Red', 'Blue', 'Green', 'Black', 'White', 'Navy', 'Olive', 'Grey'];
const KINDS = ['Shirt', 'Trousers', 'Jacket', 'Sneaker', 'Boot', 'Scarf', 'Hat', 'Sock', 'Dress', 'Sweater'];
const BRANDS = ['Acme', 'Northwind', 'Contoso', 'Fabrikam', 'Tailspin', 'Wingtip', 'Litware', 'Proseware'];

/** Item `i` of the benchmark data set (the same values as {@link seedSql}). */
export function benchItem(i: number, prefix = 'SKU'): Record<string, unknown> {
  return {
    sku: `${prefix}-${i}`,
    title: `${BRANDS[i % 8]} ${COLORS[i % 8]} ${KINDS[i % 10]} ${i}`,
    description: `Comfortable ${COLORS[(i * 7) % 8].toLowerCase()} ${KINDS[i % 10].toLowerCase()} made for everyday wear, model ${i % 997}`,
    brand: BRANDS[i % 8],
    category: `Apparel > ${KINDS[i % 10]}`,
    color: COLORS[i % 8],
    size: ['S', 'M', 'L', 'XL'][i % 4],
    material: ['cotton', 'wool', 'linen', 'polyester'][i % 4],
    price: (i % 1000) / 10 + 1,
    currency: 'EUR',
    stock: i % 500,
    weight_kg: (i % 50) / 10,
    gtin: String(4000000000000 + i),
    mpn: `MPN${i}`,
    country_of_origin: ['PT', 'IT', 'VN', 'DE'][i % 4],
    active: i % 3 !== 0,
    tags: [KINDS[i % 10].toLowerCase(), COLORS[i % 8].toLowerCase()],
    image_url: `https://img.example.com/${i}.jpg`,
    rating: (i % 50) / 10,
    season: ['SS', 'AW'][i % 2],
  };
}

/** A SQL expression (over `g`, a generate_series integer) building {@link benchItem}(g) as jsonb. */
export function seedSql(prefix = 'SKU'): string {
  const arr = (xs: string[]) => `(ARRAY[${xs.map((x) => `'${x}'`).join(',')}])`;
  return `jsonb_build_object(
    'sku', '${prefix}-' || g, 'title', ${arr(BRANDS)}[g % 8 + 1] || ' ' || ${arr(COLORS)}[g % 8 + 1] || ' ' || ${arr(KINDS)}[g % 10 + 1] || ' ' || g,
    'description', 'Comfortable ' || lower(${arr(COLORS)}[(g * 7) % 8 + 1]) || ' ' || lower(${arr(KINDS)}[g % 10 + 1]) || ' made for everyday wear, model ' || (g % 997),
    'brand', ${arr(BRANDS)}[g % 8 + 1], 'category', 'Apparel > ' || ${arr(KINDS)}[g % 10 + 1], 'color', ${arr(COLORS)}[g % 8 + 1],
    'size', ${arr(['S', 'M', 'L', 'XL'])}[g % 4 + 1], 'material', ${arr(['cotton', 'wool', 'linen', 'polyester'])}[g % 4 + 1],
    'price', (g % 1000) / 10.0 + 1, 'currency', 'EUR', 'stock', g % 500, 'weight_kg', (g % 50) / 10.0, 'gtin', (4000000000000 + g)::text,
    'mpn', 'MPN' || g, 'country_of_origin', ${arr(['PT', 'IT', 'VN', 'DE'])}[g % 4 + 1], 'active', g % 3 <> 0,
    'tags', jsonb_build_array(lower(${arr(KINDS)}[g % 10 + 1]), lower(${arr(COLORS)}[g % 8 + 1])),
    'image_url', 'https://img.example.com/' || g || '.jpg', 'rating', (g % 50) / 10.0, 'season', ${arr(['SS', 'AW'])}[g % 2 + 1])`;
}

/** Seeds `n` items into a catalog with one INSERT … SELECT generate_series (not via HTTP). */
export async function seedItems(b: Bench, catalogId: string, n: number, prefix = 'SKU'): Promise<void> {
  await b.knex.raw(
    `INSERT INTO catalog_items (id, catalog_id, entity_type, business_key, data, created_at, updated_at)
     SELECT gen_random_uuid(), ?, 'product', '${prefix}-' || g, ${seedSql(prefix)}, now() + g * interval '1 microsecond', now()
     FROM generate_series(0, ? - 1) AS g`,
    [catalogId, n],
  );
  await b.knex('catalogs').where('id', catalogId).update({ item_count: n });
  await b.knex.raw('VACUUM ANALYZE catalog_items');
}

/** Milliseconds since `t0` (from `performance.now()`). */
export function since(t0: number): number {
  return performance.now() - t0;
}

/** The 1-minute load average now (the machine is shared: every figure is reported with it). */
export function loadAvg(): number {
  return Number(os.loadavg()[0].toFixed(2));
}

/** The median of some numbers (the middle one, or the mean of the two middle ones). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Runs one benchmark: starts a {@link Bench}, runs `body`, prints the figures it returns as ONE
 * JSON line with `load_end` (the 1-minute load average when it finished) added, and closes the
 * bench. On failure prints the error and exits with code 1.
 */
export function runBench(body: (b: Bench) => Promise<Record<string, unknown>>): void {
  (async () => {
    const b = await startBench();
    try {
      console.log(JSON.stringify({ ...(await body(b)), load_end: loadAvg() }));
    } finally {
      await b.close();
    }
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
