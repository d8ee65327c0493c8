/**
 * Brands read from the item's own text through the engine (src/enrichment/engine.ts,
 * docs/enrich-options.md "Brands read from the item's text"): a brand the catalog knows is kept
 * whole where the title starts with it, a first-word guess is never a value (a field issue and a
 * low-confidence candidate instead), and a brand the page states is kept as the page writes it.
 */
import { createEngine } from '../../../src/enrichment/engine';
import type { EnrichInput, OutputField } from '../../../src/enrichment/types';
import { noResearch } from '../../helpers/no-research';
import { onePageSite } from '../../helpers/one-page-site';

const NAME = 'John Lewis & Partners Faux Fur Throw, Platinum';
const brand: OutputField = { name: 'brand', type: 'string', description: 'Brand' };
const textOnly = (options: Partial<EnrichInput['options']> = {}, item: Record<string, unknown> = { name: NAME }): EnrichInput => ({
  item,
  output_schema: [brand],
  options: { speed: 'fast', web_search: false, ...options },
});

describe('a brand read from the name alone', () => {
  const engine = createEngine(noResearch('web_search: false'));

  it('is kept whole when the catalog knows it, the longest known brand the name starts with', async () => {
    const { result } = await engine.enrich(textOnly({ known_values: { brand: ['John Lewis', 'Nike', 'John Lewis & Partners'] } }));
    expect(result.after_data.brand).toBe('John Lewis & Partners');
    expect(result.after_data.sources.brand).toEqual(['INPUT:name']);
    expect(result.after_data.source_explanations.brand).toBe('The item\'s name starts with "John Lewis & Partners", a known brand.');
    expect(result.review_info.field_methods.brand).toBe('text');
    expect(result.review_info.field_confidence.brand).toBe('medium');
    expect(result.review_info.field_issues).toEqual([]);
  });

  it("takes the catalog's spelling of a known brand written otherwise in the name", async () => {
    const { result } = await engine.enrich(
      textOnly({ known_values: { brand: ['John Lewis & Partners'] } }, { title: 'JOHN LEWIS AND PARTNERS faux fur throw' }),
    );
    expect(result.after_data.brand).toBe('John Lewis & Partners');
    expect(result.after_data.sources.brand).toEqual(['INPUT:title']);
  });

  it('is no value when nothing knows it: a field issue says it was guessed from the name', async () => {
    const { result } = await engine.enrich(textOnly({ known_values: { brand: ['Nike', 'Adidas'] } }));
    expect(result.after_data.brand).toBeUndefined();
    expect(result.after_data.sources.brand).toBeUndefined();
    expect(result.review_info.field_issues).toEqual([
      { field: 'brand', message: 'Not kept "John": a brand guessed from the item\'s name, which no catalog item or page states.' },
    ]);
    expect(result.low_confidence_candidates).toBeUndefined();
  });

  it('is a LOW field candidate when low-confidence candidates are asked for', async () => {
    const { result } = await engine.enrich(textOnly({ low_confidence: { enabled: true } }));
    expect(result.after_data.brand).toBeUndefined();
    expect(result.low_confidence_candidates).toEqual([
      {
        name: 'brand',
        scope: 'field',
        candidate_value: 'John',
        confidence: 'LOW',
        reason: "Brand guessed from the item's name; no catalog item or page states it.",
        sources: ['INPUT:name'],
        source_explanation: 'Found in the item\'s name: "John".',
      },
    ]);
    expect(result.low_confidence_fields).toEqual(['brand']);
  });

  it("is kept when it is the item's own value or one the schema lists", async () => {
    const own = await engine.enrich(textOnly({}, { name: 'Acme Widget 3000', manufacturer: 'Acme' }));
    expect(own.result.after_data.brand).toBe('Acme');
    const listed = await engine.enrich({ ...textOnly(), output_schema: [{ ...brand, sample_values: ['John Lewis & Partners'] }] });
    expect(listed.result.after_data.brand).toBe('John Lewis & Partners');
  });
});

describe('a brand the page states', () => {
  const html = `<html><head><title>${NAME}</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"${NAME}","sku":"81516402",
"brand":{"@type":"Brand","name":"John Lewis & Partners"},"offers":{"@type":"Offer","price":"45.00","priceCurrency":"GBP"}}</script>
</head><body><h1>${NAME}</h1><p>Price £45.00</p></body></html>`;
  const url = 'https://shop.example/throws/faux-fur-platinum/p81516402';

  it('is kept as the page writes it, with no catalog knowledge', async () => {
    const engine = createEngine(onePageSite(url, html, NAME));
    const { result } = await engine.enrich({ item: { name: NAME }, output_schema: [brand], options: { speed: 'fast', web_search: true } });
    expect(result.after_data.brand).toBe('John Lewis & Partners');
    expect(result.after_data.sources.brand).toEqual([url]);
    expect(result.review_info.field_methods.brand).toBe('jsonld');
    expect(result.review_info.field_issues).toEqual([]);
  });
});
