// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * The product in a title (src/enrichment/taxonomy/head.ts), general synonyms (synonyms.ts),
 * titles in other languages (translate.ts) and abstaining across departments (classify.ts);
 * docs/evaluation-taxonomy.md. The five Google titles below were misclassified
 * before (Shoes, Shorts, Crafting Fibers, no category, no category).
 */
import path from 'node:path';
import { createEngine } from '../../../src/enrichment/engine';
import { classify } from '../../../src/enrichment/taxonomy/classify';
import { headOf, withStyleNotationsJoined } from '../../../src/enrichment/taxonomy/head';
import { terms } from '../../../src/enrichment/taxonomy/terms';
import { titleLanguage, translateTitle } from '../../../src/enrichment/taxonomy/translate';
import { compileTaxonomy } from '../../../src/enrichment/taxonomy/tree';
import type { EnrichInput, TaxonomyInput } from '../../../src/enrichment/types';
import { readGoogleTaxonomy } from '../../../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../enrichment/data-dir';

const GOOGLE = compileTaxonomy(readGoogleTaxonomy(path.join(SHARED_DATA, 'taxonomy/google/taxonomy-with-ids.en-US.txt')));
const pathOf = (title: string): string | undefined => {
  const p = classify(GOOGLE, { titles: [title], categories: [], texts: [] });
  return p && !p.abstain ? p.node.path.join(' > ') : undefined;
};

describe('the head of a title', () => {
  const products = new Set(terms('shirt dress oxford shorts pole fiber carbon cotton kids boys earbuds'));
  const head = (title: string): string | undefined =>
    headOf(
      terms(withStyleNotationsJoined(title)),
      (t) => products.has(t),
      () => false,
    );

  it('is the last product word, not a material, an audience word or a style notation', () => {
    const [shirt, pole, cotton] = terms('shirt poles cotton');
    expect(head("Men's Slim Fit Long Sleeve Oxford Dress Shirt")).toBe(shirt);
    expect(head('Kids Boys Short Sleeve Shirt')).toBe(shirt);
    expect(head('Ultralight Trekking Poles Carbon Fiber')).toBe(pole);
    expect(head('Cotton')).toBe(cotton);
  });

  it('joins sleeve, fit and rise notations into one word, so "Short" is not read as shorts', () => {
    expect(withStyleNotationsJoined('Kids Short Sleeve Shirt, Slim Fit, High Rise')).toBe('Kids ShortSleeve Shirt, SlimFit, HighRise');
    expect(withStyleNotationsJoined('Board Shorts')).toBe('Board Shorts');
  });
});

describe('titles in other languages', () => {
  const english = (w: string): boolean => ['shirt', 'bluetooth', 'wireless', 'pants', 'table', 'lamp'].includes(w);

  it('detects the language from two lexicon words, not from one English-looking word', () => {
    expect(titleLanguage('Camisa Social Masculina Slim', english)).toBe('es');
    expect(titleLanguage('Herren Wanderschuhe wasserdicht', english)).toBe('de');
    expect(titleLanguage('Table Lamp with USB Port', english)).toBeUndefined();
    expect(titleLanguage('Eau de Parfum Spray for Women', english)).toBeUndefined();
  });

  it('reads Romance titles head-last and German compounds by their last part', () => {
    expect(translateTitle('Camisa Social Masculina Slim', english)).toBe('formal men slim shirt');
    expect(translateTitle('Herren Wanderschuhe wasserdicht', english)).toBe('men hiking shoes wasserdicht');
    expect(translateTitle("Robe d'Été Femme", english)).toBe('dress, ete women');
    expect(translateTitle('Wireless Earbuds Bluetooth 5.3', english)).toBe('Wireless Earbuds Bluetooth 5.3');
  });
});

describe('the five misses, on the Google product taxonomy', () => {
  it.each([
    ["Men's Slim Fit Long Sleeve Oxford Dress Shirt", 'Apparel & Accessories > Clothing > Shirts & Tops'],
    ['Kids Boys Short Sleeve Shirt', 'Apparel & Accessories > Clothing > Shirts & Tops'],
    ['Ultralight Trekking Poles Carbon Fiber', 'Sporting Goods > Outdoor Recreation > Camping & Hiking > Hiking Poles'],
    ['Wireless Earbuds Bluetooth 5.3', 'Electronics > Audio > Audio Components > Headphones & Headsets > Headphones'],
    ['Camisa Social Masculina Slim', 'Apparel & Accessories > Clothing > Shirts & Tops'],
    ['Fone de Ouvido Bluetooth Sem Fio', 'Electronics > Audio > Audio Components > Headphones & Headsets > Headphones'],
    ['Sac à Dos de Voyage 40L', 'Luggage & Bags > Backpacks'],
  ])('%s → %s', (title, expected) => {
    expect(pathOf(title)).toBe(expected);
  });
});

/** Two departments that name the same product: a title naming only the product ties across them. */
const TWO_DEPARTMENTS: TaxonomyInput = {
  name: 'Two departments',
  hierarchy_levels: ['department', 'type'],
  nodes: {
    garden: { name: 'Garden', parent: null },
    'garden-poles': { name: 'Poles', parent: 'garden' },
    camping: { name: 'Camping', parent: null },
    'camping-poles': { name: 'Poles', parent: 'camping' },
  },
};

describe('abstaining across departments', () => {
  const tax = compileTaxonomy(TWO_DEPARTMENTS);

  it('abstains when the best nodes of two departments tie, not when one department is named', () => {
    const tie = classify(tax, { titles: ['Adjustable Poles'], categories: [], texts: [] });
    expect(tie).toMatchObject({ abstain: true, confidence: 'low' });
    const named = classify(tax, { titles: ['Adjustable Camping Poles'], categories: [], texts: [] });
    expect(named?.abstain).toBeUndefined();
    expect(named?.node.id).toBe('camping-poles');
  });

  it('sets no category_id in the engine, and offers the node as a candidate when asked', async () => {
    const engine = createEngine({
      search: { search: async () => [] },
      fetcher: {
        fetch: async () => {
          throw new Error('no fetch');
        },
      },
    });
    const input = (options: Partial<EnrichInput['options']> = {}): EnrichInput => ({
      item: { name: 'Adjustable Poles' },
      output_schema: [],
      options: { speed: 'fast', web_search: false, taxonomy: TWO_DEPARTMENTS, predict_taxonomy: true, ...options },
    });
    const plain = (await engine.enrich(input())).result;
    expect(plain.category_id).toBeUndefined();
    expect(plain.review_info.flags).toContain('low_confidence_category');
    const asked = (await engine.enrich(input({ low_confidence: { enabled: true, scopes: ['category'] } }))).result;
    expect(asked.category_id).toBeUndefined();
    expect(asked.low_confidence_candidates?.[0]).toMatchObject({ name: 'category_id', scope: 'category', confidence: 'LOW' });
  });
});
