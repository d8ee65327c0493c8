// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import path from 'node:path';
import { createEngine } from '../../../src/enrichment/engine';
import { openArchives } from '../../../src/enrichment/research/archive';
import { classify } from '../../../src/enrichment/taxonomy/classify';
import { compileTaxonomy } from '../../../src/enrichment/taxonomy/tree';
import { attributeFields } from '../../../src/enrichment/taxonomy/attributes';
import { stem } from '../../../src/enrichment/taxonomy/terms';
import { enrichTaxonomy, normalizeTaxonomy } from '../../../src/services/catalog/taxonomy';
import type { EnrichInput, TaxonomyInput } from '../../../src/enrichment/types';
import { SHARED_DATA } from '../enrichment/data-dir';
import { readGoogleTaxonomy } from '../../../src/services/sheets/taxonomy';

const GOOGLE = readGoogleTaxonomy(path.join(SHARED_DATA, 'taxonomy/google/taxonomy-with-ids.en-US.txt'));

const FURNITURE: TaxonomyInput = {
  name: 'Furniture',
  hierarchy_levels: ['department', 'type'],
  nodes: {
    furniture: {
      name: 'Furniture',
      parent: null,
      attributes: [
        { name: 'width', type: 'number', description: 'Width in cm (sizes are written W x D x H)' },
        { name: 'colour', type: 'string', values: ['Black', 'White', 'Grey'] },
      ],
    },
    tables: { name: 'Tables', parent: 'furniture', attributes: [{ name: 'height', type: 'number', description: 'Height in cm (W x D x H)' }] },
    chairs: { name: 'Chairs', parent: 'furniture', attributes: [] },
    lighting: { name: 'Lighting', parent: null, attributes: [{ name: 'wattage', type: 'number' }] },
    lamps: { name: 'Lamps', parent: 'lighting', description: 'Table lamps, floor lamps, desk lamps' },
  },
};

describe('taxonomy compilation', () => {
  it('computes levels, paths and all_attributes as the API does', () => {
    const compiled = compileTaxonomy(FURNITURE);
    const api = enrichTaxonomy(normalizeTaxonomy(FURNITURE as never, ['body']));
    for (const [id, node] of compiled.nodes) {
      expect(node.level).toBe(api.nodes[id].level);
      expect(node.path).toEqual(api.nodes[id].path);
      expect(node.all_attributes.map((a) => a.name)).toEqual(api.nodes[id].all_attributes.map((a) => a.name));
    }
    expect(compileTaxonomy(GOOGLE).nodes.size).toBe(5595);
  });

  it('turns attributes into output fields (values become enum; units from the attribute)', () => {
    expect(
      attributeFields([
        { name: 'colour', type: 'string', values: ['Black'] },
        { name: 'Width (cm)', type: 'number' },
        { name: 'features', type: 'list', values: ['USB'] },
      ]),
    ).toEqual([
      { name: 'colour', type: 'string', description: 'colour', enum: ['Black'] },
      { name: 'Width (cm)', type: 'number', description: 'Width (cm)', unit: 'cm' },
      { name: 'features', type: 'array', description: 'features', items_enum: ['USB'], array_element_type: 'string' },
    ]);
  });

  it('stems plurals consistently', () => {
    expect(['tables', 'shelves', 'batteries', 'boxes', 'knives'].map(stem)).toEqual(['tabl', 'shelf', 'battery', 'box', 'knif'].map(stem));
  });
});

describe('taxonomy prediction on the Google Product Taxonomy (5,595 nodes)', () => {
  const tax = compileTaxonomy(GOOGLE);

  it('classifies obvious titles into the expected leaf, deterministically', () => {
    const top = (title: string) => classify(tax, { titles: [title], categories: [], texts: [] })?.node.path.join(' > ');
    expect(top('Samsung 55" 4K UHD Smart LED Television')).toMatch(/^Electronics > Video > Televisions/);
    expect(top('Lenovo ThinkPad X1 Carbon 14" Laptop')).toMatch(/^Electronics > Computers > Laptops/);
    expect(top('Salt and pepper shaker set, porcelain')).toBe('Home & Garden > Kitchen & Dining > Tableware > Salt & Pepper Shakers');
    expect(top('Salt and pepper shaker set, porcelain')).toBe(top('Salt and pepper shaker set, porcelain'));
    expect(classify(tax, { titles: ['zzqx 12345'], categories: [], texts: [] })).toBeNull();
  });

  it('a stated category (breadcrumb) outweighs the title', () => {
    const p = classify(tax, { titles: ['HEMNES 3 drawers'], categories: ['Furniture > Cabinets & Storage > Dressers'], texts: [] });
    expect(p?.node.path.slice(0, 2)).toEqual(['Furniture', 'Cabinets & Storage']);
  });

  it('top-level accuracy on WDC-PAVE offers (5 known categories)', () => {
    // WDC category → the Google top level it belongs to.
    const expected: Record<string, string> = {
      'Computers And Accessories': 'Electronics',
      'Home And Garden': 'Home & Garden',
      'Office Products': 'Office Supplies',
      Jewelry: 'Apparel & Accessories',
      'Grocery And Gourmet Food': 'Food, Beverages & Tobacco',
    };
    const lines = fs.readFileSync(path.join(SHARED_DATA, 'wdc-pave/wdc_with_all_attributes/train_large.jsonl'), 'utf8').trim().split('\n');
    let correct = 0;
    for (const line of lines) {
      const r = JSON.parse(line) as { category: string; input_title: string; input_description?: string };
      const p = classify(tax, { titles: [r.input_title], categories: [], texts: [r.input_description ?? ''] });
      if (p?.node.path[0] === expected[r.category]) correct++;
    }
    // Measured: 604 of 1,066 (0.567): 0.489 with the first scorer, 0.385 with the title-first scorer
    // (2026-11-27), back up once a description's first sentence is read as a weak title, identifier labels
    // ("Part #") are dropped and capacities ("450-GB") read as a computer's
    // (docs/evaluation-taxonomy.md). Many titles are shop chrome ("Null Price", SKUs) and the shop categories
    // disagree with Google's (toner is Electronics in Google, Office in WDC).
    expect(correct / lines.length).toBeGreaterThan(0.53);
  });

  it('top-level accuracy on IKEA records (all furniture)', () => {
    const lines = fs.readFileSync(path.join(SHARED_DATA, 'ikea/ikea-sa-2020.csv'), 'utf8').trim().split('\n').slice(1);
    let furniture = 0;
    for (const line of lines) {
      const cols = (line.match(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g) ?? []).map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
      const p = classify(tax, { titles: [`${cols[2]} ${cols[9]}`], categories: [], texts: [] });
      if (p?.node.path[0] === 'Furniture') furniture++;
    }
    // Measured: 2,471 of 3,694 (0.669; 0.609 before the title-first classifier); most misses are storage and fittings that Google files
    // under Home & Garden or Hardware.
    expect(furniture / lines.length).toBeGreaterThan(0.55);
  });
});

describe('predict_taxonomy in the engine', () => {
  const engine = createEngine({
    search: { search: async () => [] },
    fetcher: {
      fetch: async () => {
        throw new Error('no fetch');
      },
    },
  });
  const input = (item: Record<string, unknown>, options: Partial<EnrichInput['options']> = {}): EnrichInput => ({
    item,
    output_schema: [{ name: 'colour_name', type: 'string', description: 'Colour' }],
    options: { speed: 'fast', web_search: false, taxonomy: FURNITURE, predict_taxonomy: true, ...options },
  });

  it('sets category_id and extracts the category attributes from the item text', async () => {
    const { result } = await engine.enrich(input({ name: 'LACK side table', short_description: 'Side table, white, 55x55x45 cm', colour: 'White' }));
    expect(result.category_id).toBe('tables');
    expect(result.review_info.reasoning).toMatch(/Taxonomy: Furniture > Tables/);
    expect(result.taxonomy_attributes).toMatchObject({ width: 55, height: 45, colour: 'White' });
    expect(result.taxonomy_attribute_sources).toMatchObject({ width: ['INPUT:short_description'], colour: ['INPUT:colour'] });
    expect(result.taxonomy_attribute_explanations?.width).toMatch(/short_description/);
  });

  it('predict_taxonomy_attributes false classifies only', async () => {
    const { result } = await engine.enrich(input({ name: 'LACK side table' }, { predict_taxonomy_attributes: false }));
    expect(result.category_id).toBe('tables');
    expect(result.taxonomy_attributes).toBeUndefined();
  });

  it('a weak category becomes a low-confidence candidate when that scope is requested', async () => {
    const { result } = await engine.enrich(input({ name: 'Lighting table' }, { low_confidence: { enabled: true, scopes: ['category'] } }));
    expect(result.category_id).toBeUndefined();
    expect(result.low_confidence_candidates?.[0]).toMatchObject({ name: 'category_id', scope: 'category', confidence: 'LOW' });
  });
});

describe('breadcrumbs as category evidence (real pages, Google Product Taxonomy)', () => {
  const archive = openArchives([path.join(SHARED_DATA, 'zyte-product-extraction'), path.join(SHARED_DATA, 'pages/metascraper-shopping')]);
  const engine = createEngine({ search: archive.search, fetcher: archive.fetcher });
  const input = (name: string): EnrichInput => ({
    item: { name },
    output_schema: [],
    options: { speed: 'fast', web_search: true, taxonomy: GOOGLE, predict_taxonomy: true, predict_taxonomy_attributes: false },
  });
  const pathOf = (id: string | undefined) => (id ? compileTaxonomy(GOOGLE).nodes.get(id)?.path.join(' > ') : undefined);

  it.each([
    // JSON-LD BreadcrumbList "Homepage > Home & Garden > Bedding > Throws, Blankets & Bedspreads"
    ['John Lewis & Partners Faux Fur Throw, Platinum', '1985', 'Home & Garden > Linens & Bedding > Bedding > Blankets'],
    // JSON-LD BreadcrumbList "Homepage > Electricals > Software"
    ['Norton Security 3.0: 1 User, 5 Devices', '5299', 'Software > Computer Software > Antivirus & Security Software'],
    // microdata BreadcrumbList "Home > Lighting & Light Fixtures > Sconces"
    ['Tully Sconce', '3006', 'Home & Garden > Lighting > Lighting Fixtures'],
  ])('%s → %s, which the name alone misses', async (name, id, expected) => {
    const { result, evidence } = await engine.enrich(input(name));
    expect(result.category_id).toBe(id);
    expect(pathOf(result.category_id)).toBe(expected);
    // The same evidence without its breadcrumbs: the classifier lands elsewhere.
    const stripped = JSON.parse(JSON.stringify(evidence)) as typeof evidence;
    for (const d of stripped.documents as Array<{ doc: { breadcrumbs?: unknown } }>) delete d.doc.breadcrumbs;
    const { result: without } = await engine.extract(input(name), stripped);
    expect(without.category_id).not.toBe(id);
  });
});
