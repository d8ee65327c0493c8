import { extractFromText } from '../../../src/enrichment/text';
import { buildVocabulary, matchVocabulary } from '../../../src/enrichment/text/vocabulary';
import type { OutputField } from '../../../src/enrichment/types';

const field = (name: string, extra: Partial<OutputField> = {}): OutputField => ({ name, type: 'string', description: name, ...extra });

describe('vocabulary matching', () => {
  it('matches on token boundaries only ("men" is not inside "women")', () => {
    const vocab = buildVocabulary([{ value: 'Men', weight: 1 }]);
    expect(matchVocabulary("Ellie Shoes Women's 8400", vocab)).toEqual([]);
    expect(matchVocabulary('Cap For Men Women', vocab).map((h) => h.text)).toEqual(['Men']);
  });

  it('prefers the longest entry and returns the text as written', () => {
    const vocab = buildVocabulary([
      { value: 'dark roast', weight: 1 },
      { value: 'Medium Dark Roast', weight: 1 },
    ]);
    const hits = matchVocabulary('Clean Coffee Co Whole Bean Coffee, MEDIUM DARK ROAST, 12 Ounce Bag', vocab);
    expect(hits.map((h) => h.text)).toEqual(['MEDIUM DARK ROAST']);
  });

  it('treats dashes and spaces alike between words', () => {
    const vocab = buildVocabulary([{ value: 'Anti Fog', weight: 1 }]);
    expect(matchVocabulary('Double-Layer Anti-Fog MTB', vocab).map((h) => h.text)).toEqual(['Anti-Fog']);
    expect(matchVocabulary('Anti  _Fog', vocab).map((h) => h.text)).toEqual(['Anti  _Fog']);
  });

  it('drops values without letters from the vocabulary', () => {
    expect(buildVocabulary([{ value: '24', weight: 5 }]).counts.size).toBe(0);
  });
});

describe('extractFromText', () => {
  it('returns snippets that are exact substrings of the input', () => {
    const text = "Crocs Women's Jayna Ballet Flat,Nautical Navy,4 M US";
    const out = extractFromText(text, [field('Brand'), field('Gender'), field('Color')], {
      Brand: ['Crocs', 'Ellie Shoes'],
      Gender: ["Women's", "Men's"],
      Color: ['Nautical Navy', 'Black'],
    });
    expect(out.length).toBe(3);
    for (const e of out) expect(text.includes(e.snippet)).toBe(true);
    expect(Object.fromEntries(out.map((e) => [e.field, e.value]))).toEqual({ Brand: 'Crocs', Gender: "Women's", Color: 'Nautical Navy' });
  });

  it('gives a span known to two fields to the field whose catalog holds it more often', () => {
    const out = extractFromText('Lipton Green Tea Bags, 100 Count', [field('Flavor'), field('Tea variety')], {
      Flavor: ['Green Tea', 'Peach', 'Lemon'],
      'Tea variety': ['Green Tea', 'Green Tea', 'Green Tea', 'Black Tea'],
    });
    expect(out.map((e) => e.field)).toContain('Tea variety');
  });

  it('maps enum fields onto the enum member', () => {
    const out = extractFromText('Unisex leather sandal', [field('Gender', { enum: ['Men', 'Women', 'Unisex'] })]);
    expect(out).toEqual([expect.objectContaining({ field: 'Gender', value: 'Unisex', snippet: 'Unisex' })]);
  });

  it('returns nothing for a field without evidence', () => {
    expect(extractFromText('Plain title', [field('Material')])).toEqual([]);
  });

  it('learns number templates from catalog values ("# Ounce")', () => {
    const out = extractFromText('Gaviña Old Havana Espresso, Whole Bean, 32-Ounce', [field('Net content')], {
      'Net content': ['12 Ounce', '16 Ounce', '2 Pound'],
    });
    expect(out).toEqual([expect.objectContaining({ field: 'Net content', value: '32-Ounce' })]);
  });
});
