/**
 * Physical limits of the benchmark machine and database, measured in the same run and database as
 * the figures they are printed beside (bench/run-all.ts): what PostgreSQL itself does with the
 * benchmark rows (bench/lib.ts `benchItem`) without the service in between, and what one core
 * parses of HTML. A figure divided by its limit (its "ratio") moves much less with the load of a
 * shared machine than the figure itself: both slow down together.
 *
 * - `copy_in`: rows/s of `COPY catalog_items FROM STDIN` of the rows with their search columns
 *   (the service supplies them too, so both pay the same index work and neither runs the
 *   search-column trigger);
 * - `raw_update`: rows/s of one `UPDATE` bumping `current_version` of every row of the catalog
 *   (its row triggers fire as for any writer). It changes no column an index reads, so on a table
 *   as designed every row is a heap-only (HOT) update: the floor a restore of changed data
 *   reaches when it stays HOT too. An index that reads `data` does not slow this limit but does
 *   slow such a restore, so its ratio shows the regression (docs/benchmarks.md, "Restore
 *   regression"). Best of 3 runs.
 * - `keyset_pull`: rows/s of reading the catalog's rows (every column the API returns) by
 *   primary-key keyset pages of 5,000;
 * - `gin_posting`: milliseconds (median of 21) of a GIN look-up of one word that one item has, in
 *   the index proper: its pending list is merged first (every look-up reads the whole pending
 *   list, whose size at that moment depends on when the writes before last filled it: 1.1–3.8 ms
 *   over runs on one machine with it, which made every search ratio swing with it);
 * - `html_parse`: pages/s of htmlparser2's `parseDocument` of a 60 KB product page on one core.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseDocument } from 'htmlparser2';
import { from as copyFrom } from 'pg-copy-streams';
import { newId } from '../src/lib/ids';
import { searchTextOf, searchWordsOf } from '../src/services/catalog/items/items-keys';
import { SEARCH_GIN_INDEXES } from '../src/services/catalog/search/post-write-maintenance';
import { benchItem, createBenchCatalog, median, since, type Bench } from './lib';

/** The names of the limits (see the module comment). */
export type LimitName = 'copy_in' | 'raw_update' | 'keyset_pull' | 'gin_posting' | 'html_parse';

/** One measured limit: its value and unit (`rows/s`, `pages/s` or `ms`). */
export interface Limit {
  name: LimitName;
  value: number;
  unit: string;
}

/**
 * COPYs `items` into catalog `catalogId` with their search columns, as the service would write
 * them (words are runs of [A-Za-z0-9]; the bench data is ASCII, so tsvector input needs no quoting).
 * @returns milliseconds the COPY took
 */
export async function copyItems(b: Pick<Bench, 'knex'>, catalogId: string, items: Array<Record<string, unknown>>): Promise<number> {
  const client = await b.knex.client.acquireConnection();
  const t = performance.now();
  try {
    const stream = client.query(copyFrom('COPY catalog_items (id, catalog_id, entity_type, business_key, data, search_text, search_tsv) FROM STDIN'));
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
    const lines = function* () {
      for (let k = 0; k < items.length; k += 1000) {
        yield items
          .slice(k, k + 1000)
          .map((item) => {
            const text = searchTextOf(item);
            const tsv = (searchWordsOf(text) ?? []).join(' ');
            return `${newId()}\t${catalogId}\tproduct\t${esc(String(item.sku))}\t${esc(JSON.stringify(item))}\t${esc(text)}\t${tsv}\n`;
          })
          .join('');
      }
    };
    await pipeline(Readable.from(lines()), stream);
  } finally {
    await b.knex.client.releaseConnection(client);
  }
  return since(t);
}

/** A product page of about 60 KB: head with metadata and JSON-LD, navigation, description, specs, related items. */
export function samplePage(i: number): string {
  const item = benchItem(i);
  const li = Array.from({ length: 120 }, (_, k) => `<li class="nav-item"><a href="/c/${k}">Category ${k}</a></li>`).join('');
  const specs = Object.entries(item)
    .map(([k, v]) => `<tr><th scope="row">${k}</th><td>${String(v)}</td></tr>`)
    .join('');
  const related = Array.from(
    { length: 60 },
    (_, k) =>
      `<div class="card"><img src="/i/${k}.jpg" alt="Related ${k}"><p class="name">${String(benchItem(i + k).title)}</p><span class="price">€${k}.99</span></div>`,
  ).join('');
  const para = `<p>${String(item.description)} ${'Crafted with care and shipped worldwide. '.repeat(20)}</p>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${String(item.title)}</title>
<meta property="og:title" content="${String(item.title)}"><script type="application/ld+json">${JSON.stringify({ '@type': 'Product', ...item })}</script>
<style>${'.c{color:red}'.repeat(200)}</style></head><body><header><nav><ul>${li}</ul></nav></header>
<main><h1>${String(item.title)}</h1>${para.repeat(8)}<table>${specs}</table><section>${related}</section></main>
<footer>${li}</footer></body></html>`;
}

/** Pages/s of `parseDocument` on this thread (one core) over about `ms` milliseconds. */
export function htmlParseRate(ms = 1500): number {
  const pages = Array.from({ length: 8 }, (_, i) => samplePage(i * 101));
  let n = 0;
  const t = performance.now();
  while (since(t) < ms) parseDocument(pages[n++ % pages.length]);
  return n / (since(t) / 1000);
}

/**
 * Measures the database limits on a catalog of `n` benchmark rows made for the purpose (COPY, then
 * the UPDATE, the keyset pull and the GIN look-ups on it), and the HTML parse rate; the catalog is
 * deleted afterwards.
 * @param n rows (≥ 1,000)
 * @returns the five limits, in the order of {@link LimitName}
 */
export async function measureLimits(b: Bench, n: number): Promise<Limit[]> {
  const catalog = await createBenchCatalog(b, `limits ${n}`);
  try {
    const items = Array.from({ length: n }, (_, i) => benchItem(i, 'LIM'));
    const copyMs = await copyItems(b, catalog, items);
    await b.knex.raw('ANALYZE catalog_items');
    // Best of 3: a statement of well under a second on a shared machine is easily hit by a stall.
    let updateMs = Infinity;
    let t = 0;
    for (let k = 0; k < 3; k++) {
      t = performance.now();
      await b.knex.raw('UPDATE catalog_items SET current_version = current_version + 1 WHERE catalog_id = ?', [catalog]);
      updateMs = Math.min(updateMs, since(t));
    }
    t = performance.now();
    let after = '00000000-0000-0000-0000-000000000000';
    let read = 0;
    for (;;) {
      const { rows } = await b.knex.raw(
        `SELECT id, entity_type, parent_id, business_key, data, source_info, current_version, created_at, updated_at
         FROM catalog_items WHERE catalog_id = ? AND id > ? ORDER BY id LIMIT 5000`,
        [catalog, after],
      );
      if (!rows.length) break;
      read += rows.length;
      after = rows[rows.length - 1].id;
    }
    const pullMs = since(t);
    if (read !== n) throw new Error(`keyset pull read ${read} of ${n} rows`);
    for (const index of SEARCH_GIN_INDEXES) await b.knex.raw('SELECT gin_clean_pending_list(?::regclass)', [index]);
    const lookups: number[] = [];
    for (let k = 0; k < 21; k++) {
      const gtin = String(4000000000000 + ((k * 7919) % n));
      t = performance.now();
      const { rows } = await b.knex.raw(`SELECT id FROM catalog_items WHERE catalog_id = ? AND search_tsv @@ ?::tsquery LIMIT 50`, [catalog, gtin]);
      lookups.push(since(t));
      if (rows.length !== 1) throw new Error(`GIN look-up of ${gtin} found ${rows.length} rows`);
    }
    return [
      { name: 'copy_in', value: n / (copyMs / 1000), unit: 'rows/s' },
      { name: 'raw_update', value: n / (updateMs / 1000), unit: 'rows/s' },
      { name: 'keyset_pull', value: n / (pullMs / 1000), unit: 'rows/s' },
      { name: 'gin_posting', value: median(lookups), unit: 'ms' },
      { name: 'html_parse', value: htmlParseRate(), unit: 'pages/s' },
    ];
  } finally {
    await b.knex('catalogs').where('id', catalog).delete();
  }
}
