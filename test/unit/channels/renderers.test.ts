import { parse as parseCsv } from 'csv-parse/sync';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { channelById, createRenderer, type ChannelDefinition, type FeedRenderer, type FeedRow } from '../../../src/channels';

/**
 * The feed writers, each read back by a real parser: TSV by splitting on tabs and lines, Google's
 * RSS by a namespace-aware XML parser (saxes; any well-formedness error fails), Meta's CSV by
 * csv-parse, schema.org JSON Lines by JSON.parse.
 */
const google = channelById('google_merchant_center') as ChannelDefinition;
const meta = channelById('meta_catalog') as ChannelDefinition;
const schemaOrg = channelById('schema_org') as ChannelDefinition;

/** Rows with the characters each format has to escape. */
const NASTY: FeedRow = {
  id: 'A-1',
  title: 'Knife\t"Chef" <20 cm> & co, \'pro\'',
  description: 'Line one\nline two\r\nline three; émoji 🔪 \u0001',
  link: 'https://shop.example/p?a=1&b=2',
  image_link: 'https://shop.example/a.jpg',
  additional_image_link: ['https://shop.example/b.jpg', 'https://shop.example/c.jpg'],
  availability: 'in_stock',
  price: '49.90 EUR',
};
const PRODUCT: FeedRow = { id: 'P-1', title: 'Linen shirt', brand: 'Acme', price: '59.00 EUR', availability: 'in_stock', link: 'https://shop.example/shirt' };
const VARIANTS: FeedRow[] = [
  { ...PRODUCT, id: 'P-1-S', item_group_id: 'P-1', size: 'S', color: 'blue' },
  { ...PRODUCT, id: 'P-1-M', item_group_id: 'P-1', size: 'M', color: 'blue', sale_price: '49.00 EUR' },
];

/** The whole file a renderer writes for one plain row and one product with variants. */
const file = (r: FeedRenderer) => r.header() + r.row(NASTY) + r.group(PRODUCT, VARIANTS) + r.footer();

describe('feed renderers', () => {
  test('TSV: one header line, one line per row and variant, tabs and line breaks made spaces, lists comma-joined', () => {
    const cols = ['id', 'title', 'description', 'additional_image_link', 'item_group_id', 'size'];
    const text = file(createRenderer(google, 'tsv', { columns: cols }));
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    const rows = lines.map((l) => l.split('\t'));
    expect(rows.map((r) => r.length)).toEqual([6, 6, 6, 6]);
    expect(rows[0]).toEqual(cols);
    expect(rows[1]).toEqual([
      'A-1',
      'Knife "Chef" <20 cm> & co, \'pro\'',
      'Line one line two line three; émoji 🔪 \u0001',
      'https://shop.example/b.jpg,https://shop.example/c.jpg',
      '',
      '',
    ]);
    expect(rows.slice(2).map((r) => [r[0], r[4], r[5]])).toEqual([
      ['P-1-S', 'P-1', 'S'],
      ['P-1-M', 'P-1', 'M'],
    ]);
  });

  test('Google XML: well-formed RSS 2.0 in the g: namespace, every value read back as written', () => {
    const text = file(createRenderer(google, 'xml', { title: 'Shop & more', link: 'https://shop.example/' }));
    const parser = new SaxesParser({ xmlns: true });
    const items: Array<Record<string, string[]>> = [];
    let current: Record<string, string[]> | null = null;
    let open: SaxesTagNS | null = null;
    let buf = '';
    let rootNs: Record<string, string> = {};
    parser.on('opentag', (t) => {
      if (t.local === 'rss') rootNs = t.ns;
      if (t.local === 'item') current = {};
      open = t;
      buf = '';
    });
    parser.on('text', (s) => (buf += s));
    parser.on('closetag', (t) => {
      if (t.local === 'item') items.push(current!);
      else if (current && t.uri === 'http://base.google.com/ns/1.0') (current[t.local] ??= []).push(buf);
      open = null;
    });
    parser.write(text).close();
    expect(open).toBeNull();
    expect(rootNs.g).toBe('http://base.google.com/ns/1.0');
    expect(items).toHaveLength(3);
    expect(items[0]).toEqual({
      id: ['A-1'],
      title: [NASTY.title],
      // U+0001 is not allowed in XML 1.0: it is dropped.
      description: ['Line one\nline two\r\nline three; émoji 🔪 '.replace('\r\n', '\n')],
      link: [NASTY.link],
      image_link: [NASTY.image_link],
      additional_image_link: NASTY.additional_image_link,
      availability: ['in_stock'],
      price: ['49.90 EUR'],
    });
    expect(items.slice(1).map((i) => [i.id[0], i.item_group_id[0], i.size[0]])).toEqual([
      ['P-1-S', 'P-1', 'S'],
      ['P-1-M', 'P-1', 'M'],
    ]);
    expect(text).toContain('<title>Shop &amp; more</title>');
  });

  test('Meta CSV: RFC 4180 quoting read back by csv-parse', () => {
    const text = file(createRenderer(meta, 'csv'));
    const records = parseCsv(text, { columns: true, relax_column_count: false }) as Array<Record<string, string>>;
    expect(records).toHaveLength(3);
    expect(Object.keys(records[0])).toEqual(meta.attributes.map((a) => a.name));
    expect(records[0]).toMatchObject({
      id: 'A-1',
      title: NASTY.title,
      description: NASTY.description,
      additional_image_link: 'https://shop.example/b.jpg,https://shop.example/c.jpg',
    });
    expect(records.slice(1).map((r) => [r.id, r.item_group_id, r.size, r.sale_price])).toEqual([
      ['P-1-S', 'P-1', 'S', ''],
      ['P-1-M', 'P-1', 'M', '49.00 EUR'],
    ]);
  });

  test('schema.org JSON Lines: a Product with an Offer, a ProductGroup with hasVariant / isVariantOf', () => {
    const lines = file(createRenderer(schemaOrg, 'jsonl'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'Product',
      sku: 'A-1',
      name: NASTY.title,
      url: NASTY.link,
      image: ['https://shop.example/a.jpg', 'https://shop.example/b.jpg', 'https://shop.example/c.jpg'],
      offers: { '@type': 'Offer', price: '49.90', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' },
    });
    const group = lines[1];
    expect(group).toMatchObject({
      '@type': 'ProductGroup',
      productGroupID: 'P-1',
      name: 'Linen shirt',
      brand: { '@type': 'Brand', name: 'Acme' },
      variesBy: ['https://schema.org/size'],
    });
    expect(group.offers).toBeUndefined();
    expect(group.hasVariant).toEqual([
      expect.objectContaining({
        '@type': 'Product',
        sku: 'P-1-S',
        size: 'S',
        isVariantOf: { '@id': group['@id'], '@type': 'ProductGroup', productGroupID: 'P-1' },
        offers: expect.objectContaining({ price: '59.00' }),
      }),
      expect.objectContaining({ sku: 'P-1-M', size: 'M', offers: expect.objectContaining({ price: '49.00', priceCurrency: 'EUR' }) }),
    ]);
  });

  test("schema.org ProductGroup: the variants' item_group_id is its productGroupID; no identifiers, offers or varying values of the product on the group", () => {
    const writer = createRenderer(schemaOrg, 'jsonl');
    expect(writer.groupsVariants).toBe(true);
    expect([google, meta].map((c) => createRenderer(c, c.formats[0]).groupsVariants)).toEqual([false, false]);
    const product: FeedRow = { ...PRODUCT, id: 'SKU-SHIRT', gtin: '4006381333931', mpn: 'M-1', color: 'blue', size: 'S' };
    const variants = VARIANTS.map((v) => ({ ...v, item_group_id: 'GROUP-7' }));
    const group = JSON.parse(writer.group(product, variants)) as Record<string, unknown>;
    expect(group).toMatchObject({ '@context': 'https://schema.org', '@type': 'ProductGroup', productGroupID: 'GROUP-7', color: 'blue', name: 'Linen shirt' });
    for (const property of ['sku', 'gtin', 'mpn', 'offers', 'size']) expect(group[property]).toBeUndefined();
    const hasVariant = group.hasVariant as Array<Record<string, unknown>>;
    // The group is a node the variants name by its @id: the product's page with a fragment.
    expect(group['@id']).toBe(`${String(product.link).replace(/#.*$/, '')}#product-group`);
    expect(hasVariant.map((v) => v.isVariantOf)).toEqual([
      { '@id': group['@id'], '@type': 'ProductGroup', productGroupID: 'GROUP-7' },
      { '@id': group['@id'], '@type': 'ProductGroup', productGroupID: 'GROUP-7' },
    ]);
    // Without a link, a document-relative identifier made of the group id.
    expect(JSON.parse(writer.group({ ...product, link: '' }, variants))['@id']).toBe('#product-group-GROUP-7');
    // Without an item_group_id on the variants, the product's own id names the group.
    expect(
      JSON.parse(
        writer.group(
          product,
          VARIANTS.map(({ item_group_id: _drop, ...v }) => v),
        ),
      ).productGroupID,
    ).toBe('SKU-SHIRT');
  });

  test('a channel refuses a format it does not accept', () => {
    expect(() => createRenderer(meta, 'xml')).toThrow('does not accept xml');
    expect(createRenderer(google, 'tsv').contentType).toMatch(/^text\/tab-separated-values/);
  });
});
