import { createEngine } from '../../../src/enrichment/engine';
import { mapEnum } from '../../../src/enrichment/semantics/enum';
import { validateValue } from '../../../src/enrichment/semantics/validate';
import { applySemantics, unionValues } from '../../../src/enrichment/semantics';
import type { EnrichInput, EnrichmentResult, OutputField } from '../../../src/enrichment/types';

const field = (f: Partial<OutputField> & { name: string }): OutputField => ({ type: 'string', description: f.name, ...f });

describe('enum mapping', () => {
  it('is case/diacritics/space-insensitive, reads schema.org URLs and spelling synonyms', () => {
    expect(mapEnum('https://schema.org/InStock', ['InStock', 'OutOfStock'])).toBe('InStock');
    expect(mapEnum('out of stock', ['InStock', 'OutOfStock'])).toBe('OutOfStock');
    expect(mapEnum('Crème', ['creme', 'noir'])).toBe('creme');
    expect(mapEnum('Gray', ['Black', 'Grey'])).toBe('Grey');
    expect(mapEnum('purple', ['Black', 'Grey'])).toBeUndefined();
  });
});

describe('validate_semantics checks', () => {
  it('checks type, pattern, bounds and enum', () => {
    expect(validateValue('12', field({ name: 'n', type: 'number' }))).toEqual(['is not a number']);
    expect(validateValue('AB-1', field({ name: 'code', pattern: '^[A-Z]{2}-\\d{3}$', pattern_message: 'two letters, dash, three digits' }))).toEqual([
      'does not match the pattern (two letters, dash, three digits)',
    ]);
    expect(validateValue(500, field({ name: 'w', type: 'number', maximum: 300 }))).toEqual(['is above the maximum 300']);
    expect(validateValue('x', field({ name: 's', min_length: 2 }))).toEqual(['is shorter than 2 characters']);
    expect(validateValue('Pink', field({ name: 'c', enum: ['Black'] }))).toEqual(['is not one of the allowed values']);
  });

  it('checks semantic types: GTIN check digit, URL, e-mail, currency, price', () => {
    expect(validateValue('4006381333931', field({ name: 'gtin' }))).toEqual([]);
    expect(validateValue('4006381333932', field({ name: 'gtin' }))).toEqual(['is not a valid GTIN (check digit)']);
    expect(
      validateValue(['https://a.example/x.jpg', 'ftp://a.example/y.jpg'], field({ name: 'images', type: 'array', array_element_type: 'image_url' })),
    ).toEqual(['is not an absolute http(s) URL']);
    expect(validateValue('sales@example', field({ name: 'contact', semantic_type: 'email' }))).toEqual(['is not an e-mail address']);
    expect(validateValue('EURO', field({ name: 'currency' }))).toEqual(['is not an ISO 4217 currency code']);
    expect(validateValue(0, field({ name: 'price', type: 'number' }))).toEqual(['is not a plausible price (must be > 0)']);
  });
});

describe('applySemantics', () => {
  const base = (after: Record<string, unknown>, sources: Record<string, string[]>): EnrichmentResult => ({
    original_data: {},
    after_data: { ...after, sources, source_explanations: Object.fromEntries(Object.keys(sources).map((k) => [k, 'read'])) },
    all_sources: [],
    review_info: { reasoning: '', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
  });

  it('moves a failing value to a low-confidence candidate, or to a field issue', () => {
    const schema = [field({ name: 'gtin' })];
    const r1 = base({ gtin: '4006381333932' }, { gtin: ['https://shop.example/p'] });
    applySemantics(r1, {
      item: {},
      output_schema: schema,
      options: { speed: 'fast', web_search: true, validate_semantics: true, low_confidence: { enabled: true } },
    });
    expect(r1.after_data.gtin).toBeUndefined();
    expect(r1.low_confidence_candidates).toEqual([
      expect.objectContaining({ name: 'gtin', scope: 'field', candidate_value: '4006381333932', sources: ['https://shop.example/p'] }),
    ]);
    const r2 = base({ gtin: '4006381333932' }, { gtin: ['https://shop.example/p'] });
    applySemantics(r2, { item: {}, output_schema: schema, options: { speed: 'fast', web_search: true, validate_semantics: true } });
    expect(r2.review_info.field_issues[0].message).toMatch(/check digit/);
    expect(r2.review_info.flags).toContain('semantic_check_failed');
  });

  it('flags a required field left empty', () => {
    const r = base({}, {});
    applySemantics(r, { item: {}, output_schema: [field({ name: 'brand', required: true })], options: { speed: 'fast', web_search: true } });
    expect(r.review_info.field_issues).toEqual([{ field: 'brand', message: 'Required field has no value.' }]);
    expect(r.review_info.flags).toContain('missing_required');
  });

  it('merge: arrays union with the existing value, citing the input too', () => {
    expect(unionValues(['Red', 'blue'], ['Blue', 'Green'])).toEqual(['Red', 'blue', 'Green']);
    const schema = [field({ name: 'tags', type: 'array', merge: true })];
    const r = base({ tags: ['b', 'c'] }, { tags: ['https://shop.example/p'] });
    applySemantics(r, { item: { tags: ['a', 'b'] }, output_schema: schema, options: { speed: 'fast', web_search: true } });
    expect(r.after_data.tags).toEqual(['a', 'b', 'c']);
    expect(r.after_data.sources.tags).toEqual(['INPUT:tags', 'https://shop.example/p']);
  });
});

describe('units and enums through the engine (item text only)', () => {
  const engine = createEngine({
    search: { search: async () => [] },
    fetcher: {
      fetch: async () => {
        throw new Error('no fetch');
      },
    },
  });
  it('keeps an existing merge array when nothing new is found, and reads dimensions by declared order', async () => {
    const input: EnrichInput = {
      item: { name: 'Frame with mesh baskets, 25x51x70 cm', tags: ['storage'] },
      output_schema: [
        { name: 'height', type: 'number', unit: 'in', description: 'Height; sizes are written W x D x H' },
        { name: 'tags', type: 'array', merge: true, description: 'Tags' },
      ],
      options: { speed: 'fast', web_search: false },
    };
    const { result } = await engine.enrich(input);
    expect(result.after_data.height).toBeCloseTo(27.559, 3);
    expect(result.after_data.sources.height).toEqual(['INPUT:name']);
    expect(result.after_data.tags).toEqual(['storage']);
    expect(result.after_data.sources.tags).toEqual(['INPUT:tags']);
  });
});
