// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * Deterministic inference: types, enums, identifiers
 * (GTIN check digits, SKU codes, scientific-notation barcodes), units with UN/CEFACT codes,
 * null sentinels, required-ness, product/variant structure and taxonomies, on small synthetic
 * tables and on the real shop exports of `../shared/data/spreadsheets`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inferFromItems, inferSchemaFromFile, type Inference } from '../../../src/services/sheets/infer';
import { googleTaxonomyCache } from '../../../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../../helpers/data';

const google = googleTaxonomyCache(path.join(SHARED_DATA, 'taxonomy', 'google', 'taxonomy-with-ids.en-US.txt'));
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infer-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function inferCsv(name: string, text: string): Promise<Inference> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return inferSchemaFromFile({ path: file, name }, { maxSampleRows: 20, google, generateTaxonomy: true });
}

const field = (r: Inference, name: string) => {
  const f = r.fields.find((x) => x.name === name);
  if (!f) throw new Error(`no field ${name}`);
  return f;
};

describe('column inference on synthetic tables', () => {
  it('types, GTINs, units from headers and values, sentinels, enums and required-ness', async () => {
    const lines = ['Item Code,EAN,Title,Weight (lbs),Size,Price,Old price,In stock,Released,Image,Colour,Materials'];
    const gtins = ['4006381333931', '0012345678905', '5901234123457', '96385074', '4006381333931'];
    for (let i = 0; i < 40; i++)
      lines.push(
        [
          `AB-${1000 + i}`,
          gtins[i % 4],
          `"Chair model ${i}"`,
          `${(i % 7) + 0.5}`,
          `${40 + i} cm`,
          `$${i}.99`,
          i % 5 === 0 ? `$${i + 10}.00` : 'No old price',
          i % 2 ? 'yes' : 'no',
          `2024-01-${String((i % 28) + 1).padStart(2, '0')}`,
          `https://cdn.example.com/p/${i}.jpg?w=800`,
          ['Red', 'Blue', 'Green'][i % 3],
          i % 3 ? '"Oak, Steel"' : 'Oak',
        ].join(','),
      );
    const r = await inferCsv('synthetic.csv', lines.join('\n'));
    expect(r.total_rows).toBe(40);
    expect(field(r, 'Item Code')).toMatchObject({ type: 'string', role: 'sku', required: true });
    expect(field(r, 'EAN')).toMatchObject({ type: 'string', role: 'gtin' });
    expect(field(r, 'Weight (lbs)')).toMatchObject({ type: 'number', unit: { symbol: 'lb', code: 'LBR' } });
    expect(field(r, 'Size')).toMatchObject({ type: 'number', unit: { symbol: 'cm', code: 'CMT' } });
    expect(field(r, 'Price')).toMatchObject({ type: 'number', role: 'price', unit: { code: 'USD' } });
    expect(field(r, 'Old price')).toMatchObject({ type: 'number', null_values: ['No old price'], required: false });
    expect(field(r, 'In stock').type).toBe('boolean');
    expect(field(r, 'Released')).toMatchObject({ type: 'string', format: 'date' });
    expect(field(r, 'Image')).toMatchObject({ format: 'uri', role: 'image_url' });
    expect(field(r, 'Colour').enum).toEqual(['Red', 'Blue', 'Green']);
    expect(field(r, 'Materials')).toMatchObject({ type: 'array', separator: ',', items_enum: ['Oak', 'Steel'] });
    expect(r.structure.unique_id_field).toBe('Item Code');
    expect(r.schema.properties['Weight (lbs)']).toMatchObject({ 'x-unit': 'lb', 'x-unit-code': 'LBR', 'x-field-category': 'input' });
    // Every field says why.
    for (const f of r.fields) expect(f.reasons.length).toBeGreaterThan(0);
    // Suggested fields are usable output-schema fields with descriptions and reasons.
    const brand = r.enrichment_fields.find((f) => f.name === 'brand');
    expect(brand?.description.length).toBeGreaterThan(20);
    expect(r.schema.properties.brand).toMatchObject({ 'x-field-category': 'enriched' });
  });

  it('quantities by header: weight of only 1s and blanks, qty, whole-number prices; yes/no settings stay flags', async () => {
    const lines = ['sku,weight,qty,price,special_price,is_in_stock,use_config_min_qty,product_online,package_width'];
    for (let i = 0; i < 30; i++)
      lines.push(
        [`S-${i}`, i % 3 ? '1' : '', i % 2 ? '1' : '0', `${20 + i}`, i % 4 ? '' : '1', i % 2 ? '1' : '0', i % 5 ? '1' : '', i % 2 ? '1' : '0', ''].join(','),
      );
    const r = await inferCsv('magento-like.csv', lines.join('\n'));
    expect(field(r, 'weight')).toMatchObject({ type: 'number' });
    expect(field(r, 'qty')).toMatchObject({ type: 'integer' });
    expect(field(r, 'price')).toMatchObject({ type: 'number', role: 'price' });
    expect(field(r, 'special_price')).toMatchObject({ type: 'number' });
    expect(field(r, 'package_width')).toMatchObject({ type: 'number' });
    expect(field(r, 'is_in_stock').type).toBe('boolean');
    expect(field(r, 'use_config_min_qty').type).toBe('boolean');
    expect(field(r, 'product_online').type).toBe('boolean');
    expect(r.schema.properties.weight).toMatchObject({ type: 'number' });
  });

  it('a category column with several paths per cell gives several paths, not one chain of their parts', async () => {
    const cells = [
      'Default Category/Gear,Default Category/Gear/Bags',
      'Default Category/Gear,Default Category/Gear/Bags,Default Category/Collections/Erin Recommends',
      'Default Category/Gear,Default Category/Gear/Watches',
      'Default Category/Gear/Fitness Equipment',
    ];
    const lines = ['sku,name,categories', ...cells.map((c, i) => `X-${i},Bag ${i},"${c}"`)];
    const r = await inferCsv('magento-categories.csv', lines.join('\n'));
    expect(field(r, 'categories')).toMatchObject({ role: 'category', type: 'array', separator: ',', path_separator: '/' });
    const nodes = r.taxonomy?.taxonomy.nodes ?? {};
    const pathOf = (id: string): string => (nodes[id].parent ? `${pathOf(nodes[id].parent as string)} > ${nodes[id].name}` : nodes[id].name);
    expect(Object.keys(nodes).map(pathOf).sort()).toEqual([
      'Default Category',
      'Default Category > Collections',
      'Default Category > Collections > Erin Recommends',
      'Default Category > Gear',
      'Default Category > Gear > Bags',
      'Default Category > Gear > Fitness Equipment',
      'Default Category > Gear > Watches',
    ]);
    expect(r.taxonomy?.taxonomy.hierarchy_levels).toHaveLength(3);
    expect(r.schema.properties.categories).toMatchObject({ type: 'array', 'x-separator': ',', 'x-path-separator': '/' });
    // One path per cell stays a path (not a list).
    const single = await inferCsv('single-paths.csv', ['sku,category', 'A,Home > Kitchen', 'B,Home > Bed, Bath', 'C,Home > Kitchen'].join('\n'));
    expect(field(single, 'category')).toMatchObject({ role: 'category', type: 'string', path_separator: ' > ' });
  });

  it('JSON items: arrays and objects keep their types; titles map to the Google product taxonomy', async () => {
    const items = [
      { sku: 'X1', title: 'Stainless steel chef knife 20 cm', tags: ['kitchen', 'knife'], dims: { w: 2 } },
      { sku: 'X2', title: 'Non-stick frying pan 28 cm', tags: ['kitchen'], dims: { w: 28 } },
      { sku: 'X3', title: 'Cast iron frying pan', tags: ['kitchen', 'pan'], dims: { w: 30 } },
    ];
    const r = await inferFromItems(items, { maxSampleRows: 20, google });
    expect(field(r, 'tags').type).toBe('array');
    expect(field(r, 'dims').type).toBe('object');
    expect(r.structure.unique_id_field).toBe('sku');
    expect(r.taxonomy?.source).toBe('titles');
    const names = Object.values(r.taxonomy?.taxonomy.nodes ?? {}).map((n) => n.name);
    expect(names).toContain('Home & Garden');
  });
});

describe('real shop exports (../shared/data/spreadsheets)', () => {
  const file = (name: string) => ({ path: path.join(SHARED_DATA, 'spreadsheets', name), name });

  it('Shopify: Handle groups variants, Variant SKU is the unique id, mangled barcodes are flagged, Google paths keep their ids', async () => {
    const r = await inferSchemaFromFile(file('shopify-product-template.csv'), { maxSampleRows: 20, google, generateTaxonomy: true });
    expect(r.structure).toMatchObject({ unique_id_field: 'Variant SKU', product_id_field: 'Handle' });
    expect(r.structure.variant_attributes).toEqual(expect.arrayContaining(['Option1 Value', 'Option2 Value']));
    expect(field(r, 'Variant Barcode')).toMatchObject({ type: 'string', role: 'gtin' });
    expect(field(r, 'Variant Barcode').warnings[0]).toMatch(/scientific notation/);
    expect(field(r, 'Variant Grams').unit).toMatchObject({ symbol: 'g', code: 'GRM' });
    expect(field(r, 'Title')).toMatchObject({ scope: 'product', required: true });
    // Shopify's paths follow its newer taxonomy; the prefixes Google's 2021 taxonomy has keep Google's ids.
    expect(r.taxonomy?.taxonomy.nodes['166']).toMatchObject({ name: 'Apparel & Accessories', parent: null });
    expect(r.taxonomy?.taxonomy.nodes['1604']).toMatchObject({ name: 'Clothing', parent: '166' });
  });

  it('Magento: newline lists are arrays with their values, the category path is a taxonomy with levels', async () => {
    const r = await inferSchemaFromFile(file('magento-gear-bags.csv'), { maxSampleRows: 20, google, generateTaxonomy: true });
    expect(r.structure.unique_id_field).toBe('sku');
    expect(field(r, 'material')).toMatchObject({ type: 'array', separator: '\n' });
    expect(field(r, 'material').items_enum).toEqual(expect.arrayContaining(['Nylon', 'Polyester']));
    expect(field(r, 'description').format).toBe('html');
    expect(r.taxonomy?.taxonomy.hierarchy_levels.length).toBeGreaterThanOrEqual(2);
    expect(Object.values(r.taxonomy?.taxonomy.nodes ?? {}).map((n) => n.name)).toEqual(expect.arrayContaining(['Gear', 'Bags']));
  });
});
