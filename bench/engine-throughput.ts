/**
 * Throughput of the deterministic engine on the pages suite: opens the zyte archive (plus
 * metascraper distractors), builds the index once (timed separately), then enriches every
 * labelled page's tier-A-style name item and prints one JSON line
 * `{bench, items, index_build_s, seconds, items_per_s, extract_items_per_s}`.
 * Usage: `npx tsx bench/engine-throughput.ts [data-folder] [corpus-folder ...]`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { createEngine } from '../src/enrichment/engine';
import { openArchives } from '../src/enrichment/research/archive';
import type { Evidence } from '../src/enrichment/types';
import { pageItem, PAGES_SCHEMA } from './eval/pages';

async function main(): Promise<void> {
  const shared = path.resolve(REPO_ROOT, '..', 'shared', 'data');
  const [data = path.join(shared, 'zyte-product-extraction'), ...corpus] = process.argv.slice(2);
  const folders = [data, ...(corpus.length ? corpus : [path.join(shared, 'pages/metascraper-shopping')])];
  const archive = openArchives(folders);
  const t0 = Date.now();
  archive.warm();
  const indexS = (Date.now() - t0) / 1000;
  const engine = createEngine({ search: archive.search, fetcher: archive.fetcher });
  const index = JSON.parse(fs.readFileSync(path.join(data, 'page-index.json'), 'utf8')) as Array<Parameters<typeof pageItem>[0]>;
  const options = { speed: 'fast' as const, web_search: true };
  const stored: Array<[Record<string, unknown>, Evidence]> = [];
  const t1 = Date.now();
  for (const rec of index) {
    const item = pageItem(rec, {}, 'B');
    const { evidence } = await engine.enrich({ item, output_schema: PAGES_SCHEMA, options });
    stored.push([item, evidence]);
  }
  const seconds = (Date.now() - t1) / 1000;
  const t2 = Date.now();
  for (const [item, evidence] of stored) await engine.extract({ item, output_schema: PAGES_SCHEMA, options }, evidence);
  const extractS = (Date.now() - t2) / 1000;
  const r = (x: number) => Number(x.toFixed(3));
  console.log(
    JSON.stringify({
      bench: 'engine-throughput',
      items: index.length,
      index_build_s: r(indexS),
      seconds: r(seconds),
      items_per_s: r(index.length / seconds),
      extract_items_per_s: r(index.length / Math.max(extractS, 1e-3)),
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
