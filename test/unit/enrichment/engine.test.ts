// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import path from 'node:path';
import { createEngine } from '../../../src/enrichment/engine';
import { openArchives } from '../../../src/enrichment/research/archive';
import type { EnrichInput, OutputField } from '../../../src/enrichment/types';
import { SHARED_DATA } from './data-dir';
import { noResearch } from '../../helpers/no-research';

const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const META = path.join(SHARED_DATA, 'pages/metascraper-shopping');
const SCHEMA: OutputField[] = [
  { name: 'price', type: 'number', description: 'Current price' },
  { name: 'currency', type: 'string', description: 'ISO 4217 currency code' },
  { name: 'availability', type: 'string', description: 'Stock', enum: ['InStock', 'OutOfStock'] },
  { name: 'sku', type: 'string', description: 'SKU' },
  { name: 'gtin', type: 'string', description: 'GTIN' },
  { name: 'brand', type: 'string', description: 'Brand' },
  { name: 'image_urls', type: 'array', array_element_type: 'image_url', description: 'Images' },
];
const OTTO = 'https://www.otto.de/p/kaercher-hochdruckreiniger-k-3-full-control-848068924/#variationId=836232854';

describe('enrichment engine on the offline archive', () => {
  const archive = openArchives([ZYTE, META]);
  const engine = createEngine({ search: archive.search, fetcher: archive.fetcher });
  const input = (item: Record<string, unknown>, web_search = true): EnrichInput => ({ item, output_schema: SCHEMA, options: { speed: 'fast', web_search } });

  it('extracts labelled values with the page URL as source and explains each', async () => {
    const { result, evidence } = await engine.enrich(input({ name: 'KÄRCHER Hochdruckreiniger K 3 Full Control' }));
    expect(evidence.search_results[0].url).toBe(OTTO);
    // The page's GTIN is only in its markup, never shown: withheld, with the reason as a field issue.
    expect(result.after_data.gtin).toBeUndefined();
    expect(result.review_info.field_issues.find((i) => i.field === 'gtin')?.message).toMatch(/^Withheld "4054278533728": .*only in the page markup/);
    expect(result.after_data.price).toBe(119.01);
    expect(result.after_data.currency).toBe('EUR');
    expect(result.after_data.sources.price).toEqual([OTTO]);
    expect(result.after_data.source_explanations.price).toMatch(/on https:\/\/www\.otto\.de/);
    expect(result.review_info.field_methods.price).toMatch(/jsonld|microdata/);
    const images = result.after_data.image_urls as string[];
    expect(images.length).toBeGreaterThan(0);
    for (const url of images) expect(url).toMatch(/^https?:\/\//);
  });

  it('offers a withheld markup-only GTIN as a low-confidence candidate when asked', async () => {
    const { result } = await engine.enrich({
      ...input({ name: 'KÄRCHER Hochdruckreiniger K 3 Full Control' }),
      options: { speed: 'fast', web_search: true, low_confidence: { enabled: true } },
    });
    expect(result.after_data.gtin).toBeUndefined();
    expect(result.low_confidence_candidates).toContainEqual(
      expect.objectContaining({ name: 'gtin', candidate_value: '4054278533728', confidence: 'LOW', sources: [OTTO] }),
    );
  });

  it('re-extracts the same result from serialised evidence without I/O', async () => {
    const first = await engine.enrich(input({ name: 'KÄRCHER Hochdruckreiniger K 3 Full Control' }));
    const stored = JSON.parse(JSON.stringify(first.evidence));
    const offline = createEngine(noResearch('during extract'));
    const again = await offline.extract(input({ name: 'KÄRCHER Hochdruckreiniger K 3 Full Control' }), stored);
    expect(again.result).toEqual(first.result);
  });

  it('rejects distractor pages: an unknown product gets no web values', async () => {
    const { result, evidence } = await engine.enrich(input({ name: 'Zyxwv Quantum Toaster 9000 Ultra' }));
    // The archive's search always answers, so pages were read and rejected, not merely absent.
    expect(evidence.documents.length).toBeGreaterThan(0);
    expect(result.review_info.flags).toContain('no_matching_page');
    expect(result.after_data.price).toBeUndefined();
    expect(result.after_data.sku).toBeUndefined();
    expect(result.all_sources).toEqual([]);
  });

  it('keeps input values with INPUT sources and honours blocked domains', async () => {
    const { result } = await engine.enrich({
      ...input({ name: 'KÄRCHER Hochdruckreiniger K 3 Full Control', brand: 'Kärcher' }),
      options: { speed: 'fast', web_search: true, blocked_domains: ['otto.de'] },
    });
    expect(result.after_data.brand).toBe('Kärcher');
    expect(result.after_data.sources.brand).toEqual(['INPUT:brand']);
    expect(result.all_sources.some((u) => u.includes('otto.de'))).toBe(false);
  });

  it('with web_search false reads values only from the item text', async () => {
    const fields: OutputField[] = [
      { name: 'gtin', type: 'string', description: 'GTIN / EAN barcode' },
      { name: 'price', type: 'number', description: 'price' },
    ];
    const { result, evidence } = await engine.enrich({
      item: { title: 'Garden hose 20 m EAN 4054278533728' },
      output_schema: fields,
      options: { speed: 'fast', web_search: false },
    });
    expect(evidence.queries).toEqual([]);
    expect(result.after_data.price).toBeUndefined();
    // 4054278533728 has a valid GTIN-13 check digit and is labelled EAN in the title.
    expect(result.after_data.gtin).toBe('4054278533728');
    expect(result.after_data.sources.gtin).toEqual(['INPUT:title']);
    expect(result.review_info.field_methods.gtin).toBe('text');
  });
});
