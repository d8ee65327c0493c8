// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Reading rules of category prediction added in round 7 of docs/evaluation-taxonomy.md: character
 * references decoded before clauses are split, the first clause being the first that names a product
 * (not only a flavour), the brand's second word, the product named before the form it is sold in
 * (classify.ts); short pants and shoe-size notations (lexicon.ts); another language's product noun in
 * an English title (translate.ts). Titles are made up; each was checked to be read otherwise before
 * its rule.
 */
import path from 'node:path';
import { classify } from '../../../src/enrichment/taxonomy/classify';
import { notationTerms } from '../../../src/enrichment/taxonomy/lexicon';
import { terms } from '../../../src/enrichment/taxonomy/terms';
import { foreignNouns } from '../../../src/enrichment/taxonomy/translate';
import { compileTaxonomy } from '../../../src/enrichment/taxonomy/tree';
import { readGoogleTaxonomy } from '../../../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../enrichment/data-dir';

const GOOGLE = compileTaxonomy(readGoogleTaxonomy(path.join(SHARED_DATA, 'taxonomy/google/taxonomy-with-ids.en-US.txt')));
const googlePath = (title: string): string | undefined => {
  const p = classify(GOOGLE, { titles: [title], categories: [], texts: [] });
  return p && !p.abstain ? p.node.path.join(' > ') : undefined;
};
const SHORTS = 'Apparel & Accessories > Clothing > Shorts';
const TEA = 'Food, Beverages & Tobacco > Beverages > Tea & Infusions';

describe('clauses and the first clause', () => {
  it('decodes character references before splitting clauses ("Women&#39;s" ends no clause)', () => {
    expect(googlePath('Acme Flower Print Women&#39;s Running Shorts Sports Gym')).toBe(SHORTS);
    expect(googlePath('Zorblat Label Men&#39;s Board Shorts Summer')).toBe(SHORTS);
  });

  it('takes the head from the first clause that names a product, past a maker-only clause', () => {
    expect(googlePath('Golden Valley Traditional, Orange Peel Tea')).toBe(TEA);
  });

  it('lets a clause naming only a flavour give way to a later clause naming a product', () => {
    expect(googlePath('Zorblat Honey And Almond, Deep Conditioner, 8 oz')).toBe(
      'Health & Beauty > Personal Care > Hair Care > Shampoo & Conditioner > Conditioners',
    );
  });

  it("weighs the brand's second word less than the product named after it", () => {
    expect(googlePath('Blue Seasonings Organic Green Tea, 20 Count')).toBe(TEA);
  });
});

describe('forms and kinds', () => {
  it('reads the one product named before its form as the head', () => {
    expect(googlePath('Zorblat Cappuccino Single Serve Cups, 12 Count')).toBe('Food, Beverages & Tobacco > Beverages > Coffee');
  });

  it('keeps the form as the head when several products come before it', () => {
    // "Guitar … Top … Kit": neither guitar nor top is surely the product; top (a shirt) must not become the head.
    expect(googlePath('Classical Guitar Spruce Top Starter Kit')).not.toMatch(/Shirts & Tops/);
  });

  it('reads short pants as shorts', () => {
    expect(googlePath('Breathable Short Pants Men Running Fitness Leggings')).toBe(SHORTS);
    expect(googlePath('Zorblat Men Cotton Short Pants Summer Beach Casual')).toBe(SHORTS);
    expect(googlePath('Zorblat Men Cotton Pants Summer Casual')).toBe('Apparel & Accessories > Clothing > Pants');
  });
});

describe('shoe-size notations', () => {
  const [shoe] = terms('shoes');

  it('read US sizes with a (M) width, a bare US size ending a clause and European sizes as shoes', () => {
    for (const title of ['Acme Loafer, Tan, 9 D(M) US', "Acme Women's Paola, Ivory, 7.5 US", 'Acme Barceloneta - Black EU38', 'Acme Clog, 41 M EU']) {
      expect(notationTerms(title)).toContain(shoe);
    }
  });

  it('leave other uses of US and EU alone, and count a kind once', () => {
    expect(notationTerms('Travel Adapter 2 US Plugs')).not.toContain(shoe);
    expect(notationTerms('EU Plug Charger 5V')).not.toContain(shoe);
    expect(notationTerms('Acme Flat, 8 M US (39 EU)').filter((t) => t === shoe)).toHaveLength(1);
  });
});

describe("another language's product noun in an English title", () => {
  const english = (w: string): boolean => ['guitar', 'glasses', 'basket', 'robe'].includes(w.toLowerCase());

  it('gives its English word, unless an English product word is spelled alike', () => {
    expect(foreignNouns('Acoustic Guitar Rosewood Fingerboard guitarra', english)).toEqual(['guitar']);
    expect(foreignNouns('Kids Ski Glasses Snow Gafas', english)).toEqual(['sunglasses']);
    expect(foreignNouns('Basket Weave Bath Robe', english)).toEqual([]);
  });

  it('gives nothing for a title read in that language as a whole', () => {
    expect(foreignNouns('Camiseta Hombre Algodón', english)).toEqual([]);
  });

  it('adds that word to the title read', () => {
    expect(googlePath('Spruce Acoustic Guitar Rosewood Fingerboard guitarra Beginner')).toBe(
      'Arts & Entertainment > Hobbies & Creative Arts > Musical Instruments > String Instruments > Guitars',
    );
  });
});
