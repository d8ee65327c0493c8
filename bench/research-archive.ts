/**
 * Research archives at scale ("index a 100,000-page archive at ≥ 200 pages/s on 2
 * cores; research lookup p95 ≤ 50 ms at 100,000 pages; the worker's memory does not grow with the
 * archive's size"). Generates a synthetic `.warc.gz` of BENCH_PAGES pages (default 100,000) with
 * warcio from the shared product pages as templates (templates up to 200 KB; each copy gets its
 * own URL, title and a JSON-LD Product with its own name, brand, SKU and GTIN), indexes it with the
 * indexing service the workflow's activity runs (src/services/research-archives/indexing.ts),
 * sampling the process's RSS after every batch and its CPU time (all threads), then times BENCH_LOOKUPS lookups through the
 * research providers (half by GTIN, half by name words; search, then fetch of the best hit from its
 * WARC record). Prints one JSON line with the 1-minute load average at start and end (the machine
 * is shared). `BENCH_WARC=<file>` keeps the generated archive in that file, or indexes it when it
 * exists already (made by an earlier run with the same `BENCH_PAGES`): generating 100,000 pages
 * takes minutes, and may be done ahead of a quiet moment.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filesystemBlobStore } from '../src/lib/blob-store-fs';
import { newId } from '../src/lib/ids';
import { ResearchArchive } from '../src/models/research-archive';
import { fileDigest } from '../src/services/research-archives/archives';
import { indexResearchArchive } from '../src/services/research-archives/indexing';
import { archiveIndexFetcher, archiveIndexSearch } from '../src/services/research-archives/search';
import { writeWarc, type ArchivedPage } from '../test/fixtures/warc';
import { type Bench, loadAvg, runBench, since } from './lib';

const PAGES = Number(process.env.BENCH_PAGES ?? 100000);
const LOOKUP_COUNT = Number(process.env.BENCH_LOOKUPS ?? 400);
const SHARED = path.resolve(__dirname, '..', '..', 'shared', 'data');
const WORDS = [
  'alpine',
  'breeze',
  'carbon',
  'delta',
  'ember',
  'falcon',
  'granite',
  'harbor',
  'ivory',
  'juniper',
  'kestrel',
  'lumen',
  'maple',
  'nova',
  'onyx',
  'prism',
];

/** The shared product pages of at most 200 KB, as templates. */
function templates(): Buffer[] {
  const dirs = [path.join(SHARED, 'zyte-product-extraction', 'pages'), path.join(SHARED, 'pages', 'metascraper-shopping')];
  const files = dirs.flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d).map((f) => path.join(d, f)) : [])).filter((f) => /\.html?$/.test(f));
  return files.filter((f) => fs.statSync(f).size <= 200_000).map((f) => fs.readFileSync(f));
}

/** The name words, GTIN and SKU of synthetic page `i`. */
function identity(i: number): { name: string; brand: string; gtin: string; sku: string } {
  const w = (k: number) => WORDS[Math.floor(i / WORDS.length ** k) % WORDS.length];
  return { name: `${w(0)} ${w(1)} ${w(2)} ${w(3)} model ${i}`, brand: `Brand${i % 300}`, gtin: String(4000000000000 + i), sku: `SKU-${i}` };
}

/** Synthetic page `i`: a template with its own title and JSON-LD Product. */
function* syntheticPages(tpl: Buffer[], n: number): Generator<ArchivedPage> {
  for (let i = 0; i < n; i++) {
    const id = identity(i);
    const product = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: id.name,
      brand: { '@type': 'Brand', name: id.brand },
      sku: id.sku,
      gtin13: id.gtin,
    };
    const html = tpl[i % tpl.length]
      .toString('utf8')
      .replace(/<title[^>]*>[\s\S]*?<\/title>/i, '')
      .replace(/<head([^>]*)>/i, `<head$1><title>${id.name}</title><script type="application/ld+json">${JSON.stringify(product)}</script>`);
    yield { url: `https://shop-${i % 500}.example/p/${i}`, date: '2025-01-02T03:04:05Z', body: html };
  }
}

function percentile(sorted: number[], p: number): number {
  return Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(1));
}

/**
 * The benchmark of this file's header with `N` pages and `LOOKUPS` look-ups on a running
 * {@link Bench} (the caller closes it); returns its figures (the JSON line's fields).
 */
export async function measureResearchArchive(bench: Bench, N: number = PAGES, LOOKUPS: number = LOOKUP_COUNT): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'research-archive-bench-'));
  // The archive is a local file (as a configured one); the store is where uploads would be.
  const blobs = filesystemBlobStore(dir);
  try {
    const tpl = templates();
    const file = process.env.BENCH_WARC ? path.resolve(process.env.BENCH_WARC) : path.join(dir, 'synthetic.warc.gz');
    const tGen = performance.now();
    if (!fs.existsSync(file)) await writeWarc(file, syntheticPages(tpl, N), { gzip: true });
    const genMs = since(tGen);
    const digest = await fileDigest(file);
    const archiveId = newId();
    await ResearchArchive.query(bench.knex).insert({
      id: archiveId,
      organization_id: bench.organizationId,
      name: 'synthetic.warc.gz',
      format: 'warc.gz',
      file_path: file,
      content_sha256: digest.sha256,
      size_bytes: digest.bytes,
      status: 'indexing',
      skipped: {},
    });
    const load = loadAvg();
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    const samples: Array<[number, number]> = [];
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const progress = await indexResearchArchive(bench.knex, blobs, archiveId, (p) => samples.push([p.pages_indexed, process.memoryUsage().rss]));
    const indexMs = since(t0);
    // CPU time of this process (every thread, parser threads included; PostgreSQL's not): less load-dependent than wall time.
    const cpu = process.cpuUsage(cpu0);
    const tenth = samples.find(([n]) => n >= N / 10)?.[1] ?? rss0;
    const maxRss = Math.max(...samples.map(([, r]) => r));

    const search = archiveIndexSearch(bench.knex);
    const fetcher = archiveIndexFetcher(bench.knex, blobs);
    const searchMs: number[] = [];
    const lookupMs: number[] = [];
    let found = 0;
    for (let k = 0; k < LOOKUPS; k++) {
      const i = Math.floor((k * 7919) % N);
      const id = identity(i);
      const query = k % 2 === 0 ? id.gtin : `${id.brand} ${id.name}`;
      const t = performance.now();
      const hits = await search.search(query, { limit: 10, organization_id: bench.organizationId });
      searchMs.push(since(t));
      if (hits[0]) await fetcher.fetch(hits[0].url, { organization_id: bench.organizationId });
      lookupMs.push(since(t));
      if (hits[0]?.url === `https://shop-${i % 500}.example/p/${i}`) found++;
    }
    searchMs.sort((x, y) => x - y);
    lookupMs.sort((x, y) => x - y);
    const mb = (b: number) => Math.round(b / 1e6);
    const out = {
      bench: 'research_archive',
      pages: N,
      templates: tpl.length,
      warc_mb: mb(digest.bytes),
      generate_s: Number((genMs / 1000).toFixed(1)),
      index_s: Number((indexMs / 1000).toFixed(1)),
      pages_per_s: Math.round(progress.pages_indexed / (indexMs / 1000)),
      pages_indexed: progress.pages_indexed,
      node_cpu_ms_per_page: Number(((cpu.user + cpu.system) / 1000 / progress.pages_indexed).toFixed(2)),
      skipped: progress.skipped,
      rss_mb: { before: mb(rss0), at_10pct: mb(tenth), max: mb(maxRss), end: mb(process.memoryUsage().rss) },
      search_ms: { p50: percentile(searchMs, 50), p95: percentile(searchMs, 95) },
      search_and_fetch_ms: { p50: percentile(lookupMs, 50), p95: percentile(lookupMs, 95) },
      top_hit_is_the_page: `${found}/${LOOKUPS}`,
      target: { pages_per_s: 200, lookup_p95_ms: 50 },
      load_start: load,
      load_end: loadAvg(),
      cpus: os.cpus().length,
    };
    await bench.knex('research_archives').where({ id: archiveId }).delete();
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) runBench((b) => measureResearchArchive(b));
