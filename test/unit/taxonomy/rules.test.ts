// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * General rules of category prediction added with docs/evaluation-taxonomy.md: examples naming
 * another kind vote for less (classify.ts, examples.ts), a jersey is a shirt and a count of
 * tablets a supplement's notation (lexicon.ts), Romance noun complements (translate.ts), and
 * two-part node names with a plural first part (classify.ts). Titles are made up.
 */
import path from 'node:path';
import { classify } from '../../../src/enrichment/taxonomy/classify';
import { exampleVotes, trainCategoryExamples } from '../../../src/enrichment/taxonomy/examples';
import { notationTerms } from '../../../src/enrichment/taxonomy/lexicon';
import { terms } from '../../../src/enrichment/taxonomy/terms';
import { translateTitle } from '../../../src/enrichment/taxonomy/translate';
import { compileTaxonomy } from '../../../src/enrichment/taxonomy/tree';
import type { TaxonomyInput } from '../../../src/enrichment/types';
import { readGoogleTaxonomy } from '../../../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../enrichment/data-dir';

const GOOGLE = compileTaxonomy(readGoogleTaxonomy(path.join(SHARED_DATA, 'taxonomy/google/taxonomy-with-ids.en-US.txt')));
const googlePath = (title: string): string | undefined => {
  const p = classify(GOOGLE, { titles: [title], categories: [], texts: [] });
  return p && !p.abstain ? p.node.path.join(' > ') : undefined;
};

/** A small sportswear shop. */
const SPORT: TaxonomyInput = {
  name: 'Sport shop',
  hierarchy_levels: ['department', 'type'],
  nodes: {
    wear: { name: 'Sportswear', parent: null },
    shirts: { name: 'Shirts', parent: 'wear' },
    shorts: { name: 'Shorts', parent: 'wear' },
    kitchen: { name: 'Kitchen', parent: null },
    knives: { name: 'Knives & Chopping Boards', parent: 'kitchen' },
    cups: { name: 'Coffee & Tea Cups', parent: 'kitchen' },
  },
};

describe('catalog examples of another kind', () => {
  const tax = compileTaxonomy(SPORT);
  // The shop's examples are all shirts; the titles to classify name shorts, a kind no example has.
  const shirts = [
    'Quick Dry Running Gym Shirt Men',
    'Breathable Running Gym Training Shirt',
    'Quick Dry Running Yoga Shirt Women',
    'Gym Running Fitness Shirt Quick Dry',
  ];
  const model = trainCategoryExamples(
    tax,
    shirts.map((text) => ({ text, category_id: 'shirts' })),
  );

  it('vote for less when they do not name the kind the title names', () => {
    const title = 'Quick Dry Running Gym Shorts';
    const full = exampleVotes(model, title);
    const [short] = terms('shorts');
    const discounted = exampleVotes(model, title, new Set([short]), 0.3);
    expect(full.get('shirts')).toBeGreaterThan(0);
    expect(discounted.get('shirts')).toBeCloseTo(0.3 * (full.get('shirts') as number), 6);
    // Examples naming the title's kind keep their full vote.
    const [shirt] = terms('shirt');
    expect(exampleVotes(model, 'Quick Dry Running Gym Shirt', new Set([shirt]), 0.3).get('shirts')).toBeCloseTo(
      exampleVotes(model, 'Quick Dry Running Gym Shirt').get('shirts') as number,
      6,
    );
  });

  it('so a title naming a node outside the examples keeps that node', () => {
    const p = classify(tax, { titles: ['Quick Dry Running Gym Shorts'], categories: [], texts: [] }, model);
    expect(p?.node.id).toBe('shorts');
    const shirt = classify(tax, { titles: ['Running Gym Top'], categories: [], texts: [] }, model);
    expect(shirt?.node.id).toBe('shirts');
  });
});

describe('two-part node names', () => {
  const tax = compileTaxonomy(SPORT);
  const id = (title: string): string | undefined => classify(tax, { titles: [title], categories: [], texts: [] })?.node.id;

  it('a plural first part is a kind of its own; a singular one shares the head', () => {
    expect(id('Stainless Chef Knives Set of 3')).toBe('knives');
    expect(id('Porcelain Tea Cups, Set of 6')).toBe('cups');
  });
});

describe('general lexicon additions', () => {
  it('reads a sports jersey as a shirt', () => {
    expect(googlePath('Retro Stitched Hockey Jersey Embroidered Logo')).toMatch(/^Apparel & Accessories > Clothing > (Shirts & Tops|Uniforms)/);
    const tree = compileTaxonomy({
      name: 'Outdoor',
      hierarchy_levels: ['department', 'type'],
      nodes: {
        wear: { name: 'Clothing', parent: null },
        tops: { name: 'Shirts & Base Layers', parent: 'wear' },
        socks: { name: 'Socks', parent: 'wear' },
      },
    });
    expect(classify(tree, { titles: ['Vintage Basketball Jersey Breathable'], categories: [], texts: [] })?.node.id).toBe('tops');
  });

  it('reads a count of tablets or caplets as a supplement notation', () => {
    const [supplement] = terms('supplements');
    expect(notationTerms('Acme Adult Daily Formula 120 Tablets')).toContain(supplement);
    expect(notationTerms('Acme Joint Care, 90 Caplets')).toContain(supplement);
    expect(notationTerms('Android Tablet 10 inch')).not.toContain(supplement);
    expect(googlePath('Acme Adult Daily Formula 120 Tablets')).toBe('Health & Beauty > Health Care > Fitness & Nutrition > Vitamins & Supplements');
  });
});

describe('Romance noun complements', () => {
  const none = (): boolean => false;

  it('put a known complement before the head, as an English noun modifier', () => {
    expect(translateTitle('Cuchillo de Cocina Acero Inoxidable', none)).toBe('kitchen knife, steel stainless');
    expect(translateTitle('Toalha de Banho Algodão', none)).toBe('bath towel, cotton');
    expect(translateTitle('Sac à Dos de Voyage 40L', none)).toBe('travel backpack, 40l');
    expect(translateTitle('Borsa da Spiaggia Donna', none)).toBe('beach handbag, women');
  });

  it('leave an unknown complement (a name) in its own clause', () => {
    expect(translateTitle('Camiseta de Zorblat Azul Hombre', none)).toBe('tshirt, zorblat azul men');
  });

  it('classify the translated titles by their head', () => {
    expect(googlePath('Cuchillo de Cocina Acero Inoxidable')).toBe('Home & Garden > Kitchen & Dining > Kitchen Tools & Utensils > Kitchen Knives');
    expect(googlePath('Toalha de Banho Algodão Egípcio')).toMatch(/> Towels/);
  });
});
