/**
 * When a row asks for rendering: product signals of static HTML, and the decision
 * with rendering on (pages requested in PostgreSQL, once) and off (a notice on the row, research
 * goes on) — the engine works where no Chromium is installed.
 */
import { randomUUID } from 'node:crypto';
import { hasProductData } from '../../../src/enrichment/providers/product-signals';
import type { FetchedPage } from '../../../src/enrichment/research/types';
import type { EnrichInput, EnrichmentResult, Evidence } from '../../../src/enrichment/types';
import { markRenderedMethods, requestRowRenders } from '../../../src/services/enrichment/rows/rendering';
import { closeTestKnex, testKnex } from '../../helpers/db';

afterAll(() => closeTestKnex());

test.each([
  ['<script type="application/ld+json">{"@type":"Product","name":"A"}</script>', true],
  ['<script type="application/ld+json">{"@graph":[{"@type":["Thing","Product"]}]}</script>', true],
  ['<div itemscope itemtype="https://schema.org/Product"></div>', true],
  ['<meta property="og:type" content="product">', true],
  ['<meta property="product:price:amount" content="3">', true],
  ['<script id="__NEXT_DATA__" type="application/json">{}</script>', true],
  ['<div id="app">Loading</div><script>load()</script>', false],
])('hasProductData(%s) = %s', (html, expected) => {
  expect(hasProductData(html)).toBe(expected);
});

const input: EnrichInput = {
  item: { name: 'A' },
  output_schema: [{ name: 'brand', type: 'string', description: 'brand' }],
  options: { speed: 'fast', web_search: true },
};
const emptyResult = (): EnrichmentResult => ({
  original_data: { name: 'A' },
  after_data: { name: 'A', sources: {}, source_explanations: {} },
  all_sources: [],
  review_info: { reasoning: '', confidence: 'low', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
});
const bare = (url: string): FetchedPage => ({
  url,
  final_url: url,
  status: 200,
  content_type: 'text/html',
  body: Buffer.from('<div id="app">Loading</div>'),
  fetched_at: new Date().toISOString(),
  outcome: 'ok',
});

test('without Chromium the row is written with a notice; with it the page is requested once', async () => {
  const url = `https://shop-${randomUUID()}.example/p`;
  const result = emptyResult();
  const evidence: Evidence = { queries: [], search_results: [], documents: [] };
  const row = { job_id: randomUUID(), row_index: 0 };
  const off = await requestRowRenders(testKnex(), { enabled: false, unavailable: 'no Chromium at /nowhere', maxAgeS: 60 }, row, input, result, evidence, [
    bare(url),
  ]);
  expect(off).toBe(false);
  expect(result.review_info.flags).toContain('not_rendered');
  expect(evidence.problems?.[0]).toMatch(/no Chromium at \/nowhere/);

  const on = { enabled: true, maxAgeS: 60 };
  expect(await requestRowRenders(testKnex(), on, row, input, emptyResult(), evidence, [bare(url)])).toBe(true);
  expect(await requestRowRenders(testKnex(), on, row, input, emptyResult(), evidence, [bare(url)])).toBe(false);
  // Nothing missing, or a page with product data: no rendering.
  const filled = emptyResult();
  filled.after_data.sources.brand = [url];
  expect(await requestRowRenders(testKnex(), on, row, input, filled, evidence, [bare(`${url}2`)])).toBe(false);
});

test('fields read only from rendered pages say "rendered"', () => {
  const result = emptyResult();
  result.after_data.sources = { brand: ['https://a.example/p'], sku: ['https://b.example/q'] };
  result.review_info.field_methods = { brand: 'jsonld', sku: 'jsonld' };
  markRenderedMethods(result, [{ ...bare('https://a.example/p'), rendered: true }, bare('https://b.example/q')]);
  expect(result.review_info.field_methods).toEqual({ brand: 'rendered', sku: 'jsonld' });
});
