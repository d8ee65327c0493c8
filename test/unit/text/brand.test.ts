/**
 * The pure parts of the rule for brands read from an item's text (src/enrichment/text/brand.ts,
 * docs/enrich-options.md "Brands read from the item's text"): which fields are brands, the
 * known brands of a field, the longest known brand a title starts with, and known spellings.
 */
import { brandAtStart, brandKey, brandKnowledge, isBrandField, knownBrand, knownBrands } from '../../../src/enrichment/text/brand';
import type { OutputField } from '../../../src/enrichment/types';

const field = (name: string, extra: Partial<OutputField> = {}): OutputField => ({ name, type: 'string', description: name, ...extra });

describe('isBrandField', () => {
  it('is the brand role by name, or a description about the brand itself; not a sub-brand', () => {
    expect(['brand', 'Brand', 'brand_name', 'Brand Name', 'manufacturer', 'Manufacturer'].map((n) => isBrandField(field(n)))).toEqual(Array(6).fill(true));
    expect(isBrandField(field('label', { description: 'Brand of the product' }))).toBe(true);
    expect(isBrandField(field('Sub brand'))).toBe(false);
    // Something of the brand is not the brand.
    expect(isBrandField(field('product_line', { description: 'Product line (series) of the brand' }))).toBe(false);
    expect(isBrandField(field('Manufacturer Stock Number', { description: 'Manufacturer stock number' }))).toBe(false);
    expect(isBrandField(field('colour'))).toBe(false);
  });
});

describe('brandAtStart', () => {
  const known = knownBrands(['John Lewis', 'John Lewis & Partners', 'Nike', "Levi's", 'Coca-Cola']);

  it('finds the longest known brand the title starts with, in its known spelling and the title words', () => {
    expect(brandAtStart('John Lewis & Partners Faux Fur Throw, Platinum', known)).toEqual({ value: 'John Lewis & Partners', snippet: 'John Lewis & Partners' });
    expect(brandAtStart('JOHN LEWIS and partners faux fur throw', known)).toEqual({ value: 'John Lewis & Partners', snippet: 'JOHN LEWIS and partners' });
    expect(brandAtStart('John Lewis Wool Blanket', known)).toEqual({ value: 'John Lewis', snippet: 'John Lewis' });
  });

  it('ignores case, accents, spacing and punctuation, but only at word boundaries at the start', () => {
    expect(brandAtStart('  "Levis" 501 Original Jeans', known)?.value).toBe("Levi's");
    expect(brandAtStart('Coca Cola Zero 330 ml', known)?.value).toBe('Coca-Cola');
    expect(brandAtStart('Nikes for kids', known)).toBeNull();
    expect(brandAtStart('Running shoes by Nike', known)).toBeNull();
    expect(brandAtStart('John Smith Throw', known)).toBeNull();
  });
});

describe('known brands', () => {
  it('tells a known brand by its key and returns the first spelling', () => {
    const known = knownBrands(['Marks & Spencer', 'marks and spencer', 'Dr. Martens']);
    expect(knownBrand('MARKS AND SPENCER', known)).toBe('Marks & Spencer');
    expect(knownBrand('Dr Martens', known)).toBe('Dr. Martens');
    expect(knownBrand('Marks', known)).toBeNull();
    expect(brandKey("L'Oréal Paris")).toBe('loreal paris');
  });

  it("gathers the catalog's values, the examples' values, the item's own brands and the samples; an enum alone when there is one", () => {
    const brands = brandKnowledge(
      [field('brand', { sample_values: ['Sampled'] }), field('manufacturer', { enum: ['Acme'] }), field('colour')],
      { brand: 'Own Brand', manufacturer: 'Other' },
      { brand: ['Catalog Brand'], manufacturer: ['Known Maker'] },
      [{ text: 'Example Brand thing', values: { brand: 'Example Brand' } }],
    );
    expect([...brands.keys()]).toEqual(['brand', 'manufacturer']);
    expect([...brands.get('brand')!.byKey.values()]).toEqual(['Catalog Brand', 'Example Brand', 'Own Brand', 'Other', 'Sampled']);
    expect([...brands.get('manufacturer')!.byKey.values()]).toEqual(['Acme']);
  });
});
