import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { auditResult } from '../../src/enrichment/audit';
import { createEngine } from '../../src/enrichment/engine';
import { possibleCurrencyCodes } from '../../src/enrichment/normalize/price';
import { openArchives, readArchiveIndex, stripUrl } from '../../src/enrichment/research/archive';
import type { EnrichmentResult, OutputField, Speed } from '../../src/enrichment/types';
import { canonicalDecimal, count, prf, type FieldCounts } from './metrics';
import { findFiles, options, readJson, table } from './files';

/** The labelled fields of the zyte product-extraction layout, in report order. */
export const PAGE_FIELDS = ['price', 'currency', 'availability', 'sku', 'brand', 'gtin', 'mpn'] as const;
type PageField = (typeof PAGE_FIELDS)[number];

/** Output schema of the pages suite (evaluation.md, "pages"). */
export const PAGES_SCHEMA: OutputField[] = [
  { name: 'price', type: 'number', description: 'Current selling price of the product' },
  { name: 'currency', type: 'string', description: 'ISO 4217 currency code of the price' },
  { name: 'availability', type: 'string', description: 'Stock availability', enum: ['InStock', 'OutOfStock'] },
  { name: 'sku', type: 'string', description: 'Identifier of the product on the site (SKU)' },
  { name: 'brand', type: 'string', description: 'Brand of the product' },
  { name: 'gtin', type: 'string', description: 'GTIN / EAN / UPC barcode number' },
  { name: 'mpn', type: 'string', description: 'Manufacturer part number' },
  { name: 'description', type: 'string', description: 'Product description' },
  { name: 'image_urls', type: 'array', array_element_type: 'image_url', description: 'Product image URLs' },
];

type Labels = Record<string, Record<string, unknown>>;

interface IndexRecord {
  id: string;
  url: string;
  file: string;
  og_title?: string | null;
  jsonld_product_names?: string[];
  html_title?: string | null;
}

/** Whether a JSON value is `{id: {field: value(s), url}}` keyed by the page ids. */
function keyedByIds(v: unknown, ids: Set<string>): v is Labels {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.filter((k) => ids.has(k)).length >= keys.length * 0.8;
}

/** `Title - Site` / `Site: Title` → `Title` (the longest segment around common separators). */
export function titleWithoutSite(title: string): string {
  const t = title.replace(/^[\w.-]+\.[a-z]{2,}(\.[a-z]{2})?\s*:\s*/i, '').trim();
  const parts = t
    .split(/\s+[|–—-]\s+|\s+::\s+/)
    .map((p) => p.trim())
    .filter(Boolean);
  return parts.length > 1 ? parts.slice(0, -1).join(' - ') : t;
}

/** Tier A item = name + brand when labelled; tier B = name only (evaluation.md). */
export function pageItem(rec: IndexRecord, labels: Record<string, unknown>, tier: 'A' | 'B'): Record<string, unknown> {
  const name = rec.og_title || rec.jsonld_product_names?.[0] || titleWithoutSite(rec.html_title ?? '');
  const item: Record<string, unknown> = { name };
  const brand = Array.isArray(labels.brand) ? labels.brand[0] : undefined;
  if (tier === 'A' && typeof brand === 'string' && brand) item.brand = brand;
  return item;
}

function acceptable(labels: Record<string, unknown>, field: string): string[] {
  const v = labels[field];
  return (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).map(String).filter((s) => s.trim() !== '');
}

/** Whether `predicted` is among `gold` for a field (price as decimal; currency by the codes a symbol may denote). */
export function correct(field: PageField, predicted: unknown, gold: string[]): boolean {
  if (field === 'price') return gold.some((g) => canonicalDecimal(g) !== null && canonicalDecimal(g) === canonicalDecimal(predicted));
  if (field === 'currency') {
    const p = new Set([String(predicted), ...possibleCurrencyCodes(String(predicted))]);
    return gold.some((g) => g === predicted || [g, ...possibleCurrencyCodes(g)].some((c) => p.has(c)));
  }
  return gold.some((g) => g.trim() === String(predicted).trim());
}

function ws(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Text a value may be found in: raw HTML (also with JSON's escaped slashes `https:\/\/cdn…`
 * undone: the same text in another encoding), the document text as rendered (line breaks and
 * block boundaries as spaces, as a browser shows them) and attribute values.
 */
function haystack(file: string): string {
  const html = fs.readFileSync(file);
  const $ = cheerio.loadBuffer(html, { encoding: { defaultEncoding: 'utf-8' } });
  const attrs: string[] = [];
  $('meta[content],img[src],a[href],link[href]').each((_, el) => void attrs.push($(el).attr('content') ?? $(el).attr('src') ?? $(el).attr('href') ?? ''));
  const raw = html.toString('utf8');
  const glued = ws($.root().text());
  $('br').replaceWith(' ');
  $('p,div,li,h1,h2,h3,h4,h5,h6,tr,td,th,section,article,blockquote').append(' ');
  return [ws(raw), ws(raw.replace(/\\\//g, '/')), glued, ws($.root().text()), ws(attrs.join(' \n '))].join('\n');
}

function grounded(value: unknown, hay: string): boolean {
  const values = Array.isArray(value) ? value.map(String) : [String(value)];
  return values.every((v) => {
    if (hay.includes(ws(v))) return true;
    try {
      const u = new URL(v);
      return hay.includes(u.pathname + u.search) || hay.includes((u.pathname + u.search).replace(/&/g, '&amp;'));
    } catch {
      return false;
    }
  });
}

function scoreBaselines(files: Array<[string, Labels]>, gold: Labels): Array<[string, Record<string, number>]> {
  return files.map(([name, preds]) => {
    const f1: Record<string, number> = {};
    for (const field of PAGE_FIELDS) {
      const c: FieldCounts = { tp: 0, fp: 0, fn: 0 };
      for (const [id, labels] of Object.entries(gold)) {
        const g = acceptable(labels, field);
        let p = preds[id]?.[field];
        if ((p === undefined || p === null || p === '') && field === 'availability') p = 'InStock';
        const has = p !== undefined && p !== null && p !== '';
        const goldEff = field === 'availability' && g.length === 0 ? ['InStock'] : g;
        count(c, has, has && correct(field, p, goldEff), goldEff.length > 0);
      }
      f1[field] = prf(c).f1;
    }
    return [name, f1];
  });
}

/**
 * The pages suite (evaluation.md "pages"): for each page of `--data` (a zyte
 * product-extraction layout: page-index.json, a ground-truth JSON keyed by page id, baseline
 * predictions in the same shape), builds the tier's input item, runs the full engine
 * (search, fetch, parse, extract) over `--data` plus every `--corpus` archive, and scores it.
 * Prints tables; returns `{suite: "pages", items, fields, source_precision, hit_at_5,
 * grounded_rate, items_per_s, ...}`.
 * Long on purpose: options, corpus, run and report read in order as one suite.
 * @throws Error when --data has no page-index.json or no ground truth
 */
export async function runPagesSuite(argv: string[]): Promise<Record<string, unknown>> {
  const data = options(argv, '--data')[0];
  if (!data) throw new Error('pages suite: --data <folder> is required');
  const corpus = options(argv, '--corpus');
  const tier = (options(argv, '--tier')[0] ?? 'A').toUpperCase() === 'B' ? 'B' : 'A';
  const speed = (options(argv, '--speed')[0] ?? 'fast') as Speed;
  const index = readJson(path.join(data, 'page-index.json')) as IndexRecord[];
  const ids = new Set(index.map((r) => r.id));
  const keyed = findFiles(data, '.json')
    .map((f) => [f, readJson(f)] as const)
    .filter(([, v]) => keyedByIds(v, ids)) as Array<[string, Labels]>;
  const goldEntry = keyed.find(([, v]) => Object.values(v).some((r) => Object.values(r).some(Array.isArray)));
  if (!goldEntry) throw new Error(`pages suite: no ground truth keyed by page id under ${data}`);
  const gold = goldEntry[1];
  const baselines = keyed.filter(([f]) => f !== goldEntry[0]).map(([f, v]) => [path.basename(f, '.json'), v] as [string, Labels]);

  const archive = openArchives([data, ...corpus]);
  const indexStart = Date.now();
  archive.warm();
  const indexSeconds = (Date.now() - indexStart) / 1000;
  const engine = createEngine({ search: archive.search, fetcher: archive.fetcher });
  const filesByUrl = new Map(archive.pages.map((p) => [p.url, p.file]));
  const ownFile = new Map(readArchiveIndex(data).map((p) => [p.url, p]));

  const counts = Object.fromEntries(PAGE_FIELDS.map((f) => [f, { tp: 0, fp: 0, fn: 0 }])) as Record<PageField, FieldCounts>;
  const byConfidence: Record<string, { returned: number; correct: number }> = {};
  // Post-enrichment audit (src/enrichment/audit.ts): per decision, items and the precision of their labelled values.
  const byAudit: Record<string, { items: number; returned: number; correct: number }> = {};
  let cited = 0,
    citedOwn = 0,
    hits = 0,
    unlabelled = 0,
    groundedCount = 0,
    items = 0;
  const misses: string[] = [];
  let engineMs = 0;
  for (const rec of index) {
    const labels = gold[rec.id];
    if (!labels) continue;
    items++;
    const own = ownFile.get(rec.url);
    const ownUrls = new Set([rec.url, own?.canonical_href, stripUrl(rec.url)].filter(Boolean) as string[]);
    const item = pageItem(rec, labels, tier);
    const t0 = Date.now();
    const { result, evidence } = await engine.enrich({ item, output_schema: PAGES_SCHEMA, options: { speed, web_search: true } });
    engineMs += Date.now() - t0;
    if (evidence.search_results.slice(0, 5).some((r) => ownUrls.has(r.url))) hits++;
    const after = result.after_data;
    const audit = (byAudit[auditResult(result, item, PAGES_SCHEMA, evidence).decision] ??= { items: 0, returned: 0, correct: 0 });
    audit.items++;
    for (const field of PAGE_FIELDS) {
      const g = acceptable(labels, field);
      let p = after[field];
      const has = p !== undefined && p !== null && p !== '';
      if (!has && field === 'availability') p = 'InStock';
      const goldEff = field === 'availability' && g.length === 0 ? ['InStock'] : g;
      const predicted = has || field === 'availability';
      const ok = predicted && correct(field, p, goldEff);
      count(counts[field], predicted, ok, goldEff.length > 0);
      if (has) {
        audit.returned++;
        if (ok) audit.correct++;
        const level = result.review_info.field_confidence[field] ?? 'none';
        byConfidence[level] ??= { returned: 0, correct: 0 };
        byConfidence[level].returned++;
        if (ok) byConfidence[level].correct++;
      }
      if (!ok && (has || goldEff.length > 0) && !(field === 'availability' && !has && goldEff.includes('InStock'))) {
        misses.push(
          `${rec.id.slice(0, 8)} ${field}: got ${has ? JSON.stringify(p) : '-'} want ${JSON.stringify(g)} [${after.source_explanations[field] ?? ''}]`,
        );
      }
    }
    for (const field of [...PAGE_FIELDS, 'description', 'image_urls']) {
      const src = after.sources[field]?.[0];
      if (!src || src.startsWith('INPUT:')) continue;
      cited++;
      if (ownUrls.has(src)) citedOwn++;
    }
    for (const field of ['description', 'image_urls']) {
      const src = after.sources[field]?.[0];
      const file = src ? filesByUrl.get(src) : undefined;
      if (!src || !file) continue;
      unlabelled++;
      if (grounded(after[field], haystack(file))) groundedCount++;
      else
        misses.push(
          `${rec.id.slice(0, 8)} ${field}: ${JSON.stringify(after[field]).slice(0, 160)} not found verbatim in ${src} [${after.source_explanations[field] ?? ''}]`,
        );
    }
    logResultProblems(result);
  }
  const fields = Object.fromEntries(PAGE_FIELDS.map((f) => [f, prf(counts[f])]));
  const baselineF1 = scoreBaselines(baselines, gold);
  if (argv.includes('--misses')) console.log(misses.join('\n'));
  console.log(`pages suite: ${items} items, tier ${tier}, speed ${speed}, corpus ${archive.pages.length} pages (index built in ${indexSeconds.toFixed(1)} s)`);
  console.log(
    table(
      ['field', 'precision', 'recall', 'F1', ...baselineF1.map(([n]) => `${n} F1`)],
      PAGE_FIELDS.map((f) => [
        f,
        fields[f].precision.toFixed(3),
        fields[f].recall.toFixed(3),
        fields[f].f1.toFixed(3),
        ...baselineF1.map(([, b]) => b[f].toFixed(3)),
      ]),
    ),
  );
  console.log(
    table(
      ['confidence', 'returned', 'precision'],
      Object.entries(byConfidence).map(([k, v]) => [k, v.returned, (v.correct / v.returned).toFixed(3)]),
    ),
  );
  console.log(
    table(
      ['audit', 'items', 'values', 'precision'],
      Object.entries(byAudit).map(([k, v]) => [k, v.items, v.returned, (v.correct / Math.max(1, v.returned)).toFixed(3)]),
    ),
  );
  const r = (x: number) => Number(x.toFixed(4));
  return {
    suite: 'pages',
    items,
    fields,
    source_precision: r(cited ? citedOwn / cited : 0),
    hit_at_5: r(items ? hits / items : 0),
    grounded_rate: r(unlabelled ? groundedCount / unlabelled : 0),
    items_per_s: r(items / Math.max(engineMs / 1000, 1e-3)),
    tier,
    speed,
    index_build_s: r(indexSeconds),
    precision_by_confidence: Object.fromEntries(Object.entries(byConfidence).map(([k, v]) => [k, r(v.correct / v.returned)])),
    audit: Object.fromEntries(Object.entries(byAudit).map(([k, v]) => [k, { items: v.items, precision: r(v.correct / Math.max(1, v.returned)) }])),
    baselines_f1: Object.fromEntries(baselineF1),
  };
}

function logResultProblems(result: EnrichmentResult): void {
  if (result.error) console.error(`engine error: ${result.error}`);
}
