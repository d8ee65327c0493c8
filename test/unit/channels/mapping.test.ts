import {
  applyMapping,
  channelById,
  formatPrice,
  mappingOf,
  proposeMapping,
  toChannelRow,
  type ChannelDefinition,
  type SchemaFieldInfo,
} from '../../../src/channels';

/** The mapping proposal from schema fields, and applying a mapping to products and variants. */
const google = channelById('google_merchant_center') as ChannelDefinition;
const meta = channelById('meta_catalog') as ChannelDefinition;

const FIELDS: SchemaFieldInfo[] = [
  { name: 'sku', type: 'string' },
  { name: 'name', type: 'string' },
  { name: 'brand', type: 'string' },
  { name: 'long_description', type: 'string' },
  { name: 'price', type: 'number' },
  { name: 'currency', type: 'string' },
  { name: 'images', type: 'array' },
  { name: 'product_url', type: 'string', format: 'uri' },
  { name: 'EAN', type: 'string' },
  { name: 'stock_status', type: 'string' },
  { name: 'colour', type: 'string', scope: 'variant' },
  { name: 'size', type: 'string', scope: 'variant' },
  { name: 'category_id', type: 'string' },
];

describe('proposeMapping', () => {
  test('maps by name, synonyms and meaning, each with a reason', () => {
    const p = proposeMapping(FIELDS, google, { hasTaxonomy: true });
    expect(mappingOf(p)).toEqual({
      id: 'sku',
      title: 'name',
      description: 'long_description',
      link: 'product_url',
      image_link: 'images[0]',
      additional_image_link: 'images[1:]',
      availability: 'stock_status',
      price: { template: '{price} {currency}' },
      brand: 'brand',
      gtin: 'EAN',
      color: 'colour',
      size: 'size',
      product_type: '$category_path',
      condition: { value: 'new' },
    });
    for (const { reason } of Object.values(p)) expect(reason.length).toBeGreaterThan(10);
    expect(p.gtin.reason).toContain('"EAN"');
  });

  test('proposes only the channel’s attributes, a Google category only when the taxonomy has them', () => {
    const withGoogle = proposeMapping(FIELDS, google, { hasTaxonomy: true, hasGoogleCategories: true });
    expect(withGoogle.google_product_category?.source).toBe('$google_product_category');
    expect(proposeMapping(FIELDS, google, { hasTaxonomy: true }).google_product_category).toBeUndefined();
    const schemaOrg = proposeMapping([...FIELDS, { name: 'shipping_weight', type: 'number' }], channelById('schema_org')!);
    expect(schemaOrg.shipping_weight).toBeUndefined();
  });

  test('a price without a currency field says so; a single image field and a URL found by format', () => {
    const p = proposeMapping(
      [
        { name: 'title', type: 'string' },
        { name: 'list_price', type: 'number' },
        { name: 'main_image_url', type: 'string' },
        { name: 'permalink_web', type: 'string', format: 'uri' },
      ],
      meta,
    );
    expect(p.price.source).toBe('list_price');
    expect(p.price.reason).toContain('no currency field');
    expect(p.image_link.source).toBe('main_image_url');
    expect(p.link.source).toBe('permalink_web');
    expect(p.additional_image_link).toBeUndefined();
  });
});

describe('applyMapping', () => {
  const mapping = mappingOf(proposeMapping(FIELDS, google, { hasTaxonomy: true }));
  const product = {
    sku: 'P-1',
    name: 'Linen shirt',
    brand: 'Acme',
    price: 59,
    currency: 'EUR',
    images: ['https://s.example/1.jpg', 'https://s.example/2.jpg', 'https://s.example/3.jpg'],
    category_id: 'shirts',
  };
  const ctx = { categoryPath: (id: string) => (id === 'shirts' ? ['Clothing', 'Shirts'] : null) };

  test('a product: fields, templates, constants, image lists, the category path; empty values left out', () => {
    expect(applyMapping(mapping, { ...product, EAN: '' }, undefined, ctx)).toEqual({
      id: 'P-1',
      title: 'Linen shirt',
      image_link: 'https://s.example/1.jpg',
      additional_image_link: ['https://s.example/2.jpg', 'https://s.example/3.jpg'],
      price: '59.00 EUR',
      brand: 'Acme',
      product_type: 'Clothing > Shirts',
      condition: 'new',
    });
  });

  test('a variant inherits what it leaves empty from its product, and item_group_id is the product’s id', () => {
    const row = applyMapping(mapping, { sku: 'P-1-M', colour: 'blue', size: 'M', price: 64 }, product, ctx);
    expect(row).toMatchObject({
      id: 'P-1-M',
      item_group_id: 'P-1',
      title: 'Linen shirt',
      color: 'blue',
      size: 'M',
      price: '64.00 EUR',
      brand: 'Acme',
      product_type: 'Clothing > Shirts',
    });
  });

  test('a variant of a product-grouped catalog takes item_group_id from the product id field', () => {
    const row = applyMapping(
      { id: 'sku', title: 'product_name' },
      { sku: 'V-1' },
      { product_id: 'P-9', product_name: 'Shirt' },
      { groupIdField: 'product_id' },
    );
    expect(row).toEqual({ id: 'V-1', title: 'Shirt', item_group_id: 'P-9' });
    // Without the field on the product: the product's id under the mapping, or nothing.
    expect(applyMapping({ id: 'sku' }, { sku: 'V-1' }, { product_name: 'Shirt' }, { groupIdField: 'product_id' })).toEqual({ id: 'V-1' });
  });

  test('templates join fields; a mapped item_group_id is kept', () => {
    const row = applyMapping({ id: 'sku', title: { template: '{brand} {name} {missing}' }, item_group_id: 'group' }, { sku: 'V', group: 'G-9' }, product);
    expect(row).toEqual({ id: 'V', title: 'Acme Linen shirt', item_group_id: 'G-9' });
  });

  test('prices: bare amounts get the feed currency and two decimals, "EUR 5" is reordered, garbage is left for the rules', () => {
    expect(formatPrice('12', 'eur')).toBe('12.00 EUR');
    expect(formatPrice('12.5')).toBe('12.5');
    expect(formatPrice('EUR 5')).toBe('5.00 EUR');
    expect(formatPrice('5 usd')).toBe('5.00 USD');
    expect(formatPrice('about 5 dollars', 'USD')).toBe('about 5 dollars');
    expect(applyMapping({ price: 'p' }, { p: 7 }, undefined, { currency: 'GBP' })).toEqual({ price: '7.00 GBP' });
  });

  test('toChannelRow writes enumerated values in the channel’s spelling', () => {
    const m = { id: 'sku', availability: 'stock', gender: 'g' };
    expect(toChannelRow(google, m, { sku: 'A', stock: 'In Stock', g: 'Women' })).toEqual({ id: 'A', availability: 'in_stock', gender: 'female' });
    expect(toChannelRow(meta, m, { sku: 'A', stock: 'in_stock', g: 'men' })).toEqual({ id: 'A', availability: 'in stock', gender: 'male' });
    expect(toChannelRow(google, m, { sku: 'A', stock: 'perhaps' })).toEqual({ id: 'A', availability: 'perhaps' });
  });
});
