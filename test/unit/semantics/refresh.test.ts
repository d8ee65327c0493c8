// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Refresh and merge against the item's own values (src/enrichment/semantics/refresh.ts;
 * docs/api-enrichment.md "Refresh and merge"), sample shapes (src/enrichment/semantics/samples.ts), and
 * the engine's use of both on pages of the offline archive (`../shared/data`).
 */
import path from 'node:path';
import { createEngine } from '../../../src/enrichment/engine';
import { openArchives } from '../../../src/enrichment/research/archive';
import { applySemantics } from '../../../src/enrichment/semantics';
import { identityKeys, keepIdentity, mergeValues } from '../../../src/enrichment/semantics/refresh';
import { sampleShapes, shapeOf } from '../../../src/enrichment/semantics/samples';
import type { EnrichInput, EnrichmentResult, OutputField } from '../../../src/enrichment/types';
import { SHARED_DATA } from '../enrichment/data-dir';

const field = (f: Partial<OutputField> & { name: string }): OutputField => ({ type: 'string', description: f.name, ...f });
const PAGE = 'https://shop.example/p';

/** A built result over `item` with `values` read from `sources`. */
function built(item: Record<string, unknown>, values: Record<string, unknown>, sources: Record<string, string[]>): EnrichmentResult {
  return {
    original_data: item,
    after_data: { ...item, ...values, sources, source_explanations: Object.fromEntries(Object.keys(sources).map((k) => [k, `Read ${k} on ${PAGE}.`])) },
    all_sources: [PAGE],
    review_info: { reasoning: '', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
  };
}

function reconcile(
  item: Record<string, unknown>,
  values: Record<string, unknown>,
  sources: Record<string, string[]>,
  schema: OutputField[],
  extra: Partial<EnrichInput['options']> = {},
) {
  const result = built(item, values, sources);
  applySemantics(result, { item, output_schema: schema, options: { speed: 'fast', web_search: true, ...extra } });
  return result;
}

describe('refresh: every requested field is researched, a sourced value replaces the item value', () => {
  it('replaces a stale value with the sourced one, keeps the item value cited INPUT when nothing is found', () => {
    const r = reconcile({ name: 'X', price: 7, color: 'red' }, { price: 9.5 }, { price: [PAGE] }, [
      field({ name: 'price', type: 'number' }),
      field({ name: 'color' }),
    ]);
    expect(r.after_data.price).toBe(9.5);
    expect(r.after_data.sources.price).toEqual([PAGE]);
    expect(r.after_data.color).toBe('red');
    expect(r.after_data.sources.color).toEqual(['INPUT:color']);
    expect(r.review_info.field_methods.color).toBe('input');
  });

  it('a sourced value naming the same thing keeps the item’s spelling and cites the research', () => {
    const schema = [field({ name: 'brand' }), field({ name: 'color' })];
    const r = reconcile({ brand: 'DeLonghi', color: 'Dark-blue' }, { brand: 'De’Longhi', color: 'dark blue' }, { brand: [PAGE], color: [PAGE] }, schema);
    expect([r.after_data.brand, r.after_data.color, r.after_data.sources.brand]).toEqual(['DeLonghi', 'Dark-blue', [PAGE]]);
    // A brand the page writes with more words around it is the item's brand.
    const sub = reconcile({ brand: 'Roborock' }, { brand: 'Ver mais artigos da Marca: Roborock' }, { brand: [PAGE] }, schema);
    expect(sub.after_data.brand).toBe('Roborock');
    // Not for other fields: a more precise colour refreshes the item's.
    const precise = reconcile({ color: 'blue' }, { color: 'navy blue' }, { color: [PAGE] }, schema);
    expect(precise.after_data.color).toBe('navy blue');
  });

  it('a value read only from the item’s own text never replaces the item’s own field', () => {
    const r = reconcile({ title: 'Red lamp', color: 'Crimson' }, { color: 'Red' }, { color: ['INPUT:title'] }, [field({ name: 'color' })]);
    expect(r.after_data.color).toBe('Crimson');
    expect(r.after_data.sources.color).toEqual(['INPUT:color']);
  });
});

describe('merge: true', () => {
  it('unions lists (existing first, duplicates by normalised value removed), citing the input and the page', () => {
    const r = reconcile({ tags: ['Sale', 'lamp'] }, { tags: ['Lamp ', 'Lighting'] }, { tags: [PAGE] }, [field({ name: 'tags', type: 'array', merge: true })]);
    expect(r.after_data.tags).toEqual(['Sale', 'lamp', 'Lighting']);
    expect(r.after_data.sources.tags).toEqual(['INPUT:tags', PAGE]);
    expect(r.after_data.source_explanations.tags).toMatch(/^Merged with the item's tags \(1 new value\(s\)\)/);
  });

  it('merges objects key by key with the same rules', () => {
    expect(mergeValues({ width: 10, colors: ['red'], note: 'a' }, { width: 12, colors: ['blue'], depth: 3 })).toEqual({
      width: 10,
      colors: ['red', 'blue'],
      note: 'a',
      depth: 3,
    });
  });

  it('keeps a scalar and offers the different sourced value as a LOW candidate with its source', () => {
    const schema = [field({ name: 'brand', merge: true })];
    const r = reconcile({ brand: 'Zeta' }, { brand: 'Acme' }, { brand: [PAGE] }, schema, { low_confidence: { enabled: true } });
    expect(r.after_data.brand).toBe('Zeta');
    expect(r.after_data.sources.brand).toEqual(['INPUT:brand']);
    expect(r.low_confidence_candidates).toEqual([
      expect.objectContaining({
        name: 'brand',
        scope: 'field',
        candidate_value: 'Acme',
        confidence: 'LOW',
        sources: [PAGE],
        source_explanation: `Read brand on ${PAGE}.`,
      }),
    ]);
    expect(r.low_confidence_fields).toEqual(['brand']);
    // Without candidates requested, the kept-out value is named in a field issue, never dropped silently.
    const quiet = reconcile({ brand: 'Zeta' }, { brand: 'Acme' }, { brand: [PAGE] }, schema);
    expect(quiet.after_data.brand).toBe('Zeta');
    expect(quiet.low_confidence_candidates).toBeUndefined();
    expect(quiet.review_info.field_issues).toEqual([{ field: 'brand', message: `Kept the item's value (merge); ${PAGE} gives "Acme".` }]);
    // The same value confirmed by research: kept, research cited, nothing offered.
    const same = reconcile({ brand: 'ZETA' }, { brand: 'Zeta' }, { brand: [PAGE] }, schema, { low_confidence: { enabled: true } });
    expect([same.after_data.brand, same.after_data.sources.brand, same.low_confidence_candidates]).toEqual(['ZETA', [PAGE], undefined]);
  });
});

describe('identity fields', () => {
  it('recognises name, brand, GTIN, MPN and SKU keys and puts back those not requested', () => {
    const item = { title: 'Lamp', ean: '4006381333931', model_number: 'L-1', sku: 'S1', marke: 'Zeta', color: 'red' };
    expect(identityKeys(item)).toEqual(['title', 'ean', 'model_number', 'sku', 'marke']);
    const r = built(item, { title: 'Other lamp', sku: 'S2', color: 'blue' }, { sku: [PAGE], color: [PAGE] });
    keepIdentity(r, { item, output_schema: [field({ name: 'sku' }), field({ name: 'color' })], options: { speed: 'fast', web_search: true } });
    expect([r.after_data.title, r.after_data.sku, r.after_data.color]).toEqual(['Lamp', 'S2', 'blue']);
  });
});

describe('sample shapes', () => {
  it('keeps what a value is made of, not its content', () => {
    expect(shapeOf('SKU-12345')).toBe('a-9');
    expect(shapeOf('abc-9')).toBe('a-9');
    expect(shapeOf('199.99')).toBe('9.9');
    expect(shapeOf('1,299.00')).toBe('9,9.9');
    expect(shapeOf('Dark  blue')).toBe('a a');
    expect([...sampleShapes(['AB-1', 'CD-22', ' '])]).toEqual(['a-9']);
  });
});

describe('sample_values guide web extraction', () => {
  const URL = 'https://shop.example/lamp-kl-100234';
  const html = `<html><head><title>Zeta desk lamp</title>
    <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Zeta desk lamp","sku":"100234"}</script></head>
    <body><h1>Zeta desk lamp</h1><table><tr><th>Item number</th><td>KL-100234</td></tr></table></body></html>`;
  const engine = createEngine({
    search: { search: async () => [{ url: URL, title: 'Zeta desk lamp', snippet: '', score: 1 }] },
    fetcher: {
      fetch: async (url) => ({ url, final_url: url, status: 200, content_type: 'text/html', body: Buffer.from(html), fetched_at: '2026-01-01T00:00:00Z' }),
    },
  });
  const run = (sample_values?: string[]) =>
    engine.enrich({
      item: { name: 'Zeta desk lamp' },
      output_schema: [field({ name: 'sku', description: 'SKU', sample_values })],
      options: { speed: 'fast', web_search: true },
    });

  it('ranks a reading shaped like the samples above a stronger one shaped otherwise', async () => {
    expect((await run()).result.after_data.sku).toBe('100234');
    const shaped = (await run(['AB-1234', 'XY-99'])).result;
    expect(shaped.after_data.sku).toBe('KL-100234');
    expect(shaped.review_info.field_methods.sku).toBe('table');
  });
});

describe('the engine on the offline archive', () => {
  const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
  const archive = openArchives([ZYTE]);
  const engine = createEngine({ search: archive.search, fetcher: archive.fetcher });
  const OTTO = 'https://www.otto.de/p/kaercher-hochdruckreiniger-k-3-full-control-848068924/#variationId=836232854';
  const item = { name: 'KÄRCHER Hochdruckreiniger K 3 Full Control', price: 99, color: 'gelb', categories: ['Garten'] };

  it('refreshes a stale price with its source, keeps what it cannot find, unions a merge list', async () => {
    const { result } = await engine.enrich({
      item,
      output_schema: [
        field({ name: 'price', type: 'number', description: 'Current price' }),
        field({ name: 'color', description: 'Colour' }),
        field({ name: 'categories', type: 'array', array_element_type: 'string', merge: true, description: 'Categories' }),
      ],
      options: { speed: 'fast', web_search: true },
    });
    expect(result.after_data.price).toBe(119.01);
    expect(result.after_data.sources.price).toEqual([OTTO]);
    expect(result.original_data.price).toBe(99);
    expect(result.after_data.color).toBe('gelb');
    expect(result.after_data.sources.color).toEqual(['INPUT:color']);
    expect(result.after_data.categories).toEqual(['Garten', 'Baumarkt > Reinigungsgeräte > Hochdruckreiniger']);
    expect(result.after_data.sources.categories).toEqual(['INPUT:categories', OTTO]);
    // The name identified the product and was not requested: never rewritten.
    expect(result.after_data.name).toBe(item.name);
  });
});
