import { channelById, isExportable, validateRow, type ChannelDefinition, type FeedRow, type IssueCode } from '../../../src/channels';

/** Every rule of src/channels/rules.ts, each issue code at least once, on Google's, Meta's and schema.org's definitions. */
const google = channelById('google_merchant_center') as ChannelDefinition;
const meta = channelById('meta_catalog') as ChannelDefinition;
const schemaOrg = channelById('schema_org') as ChannelDefinition;

/** A row Google accepts as it is. */
const GOOD: FeedRow = {
  id: 'SKU-1',
  title: 'Stainless steel chef knife 20 cm',
  description: 'Forged chef knife.',
  link: 'https://shop.example/knife',
  image_link: 'https://shop.example/knife.jpg',
  additional_image_link: ['https://shop.example/knife-2.jpg'],
  availability: 'in_stock',
  price: '49.90 EUR',
  brand: 'Acme',
  gtin: '4006381333931',
  condition: 'new',
};

const codes = (row: FeedRow, channel = google, ctx = {}) => validateRow(channel, row, ctx).map((i) => `${i.code}:${i.attribute}`);
const without = (row: FeedRow, ...keys: string[]) => Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));

describe('channel rules', () => {
  test('a complete row has no issue and is exportable', () => {
    expect(validateRow(google, GOOD)).toEqual([]);
    expect(isExportable(validateRow(google, GOOD))).toBe(true);
  });

  test('missing_required names each missing attribute the channel always needs', () => {
    expect(codes(without(GOOD, 'title', 'price'))).toEqual(['missing_required:title', 'missing_required:price']);
    expect(codes({ ...GOOD, availability: 'preorder' })).toEqual(['missing_required:availability_date']);
    expect(isExportable(validateRow(google, without(GOOD, 'link')))).toBe(false);
  });

  test('invalid_gtin for a wrong check digit or length, restricted_gtin for restricted and coupon ranges', () => {
    const issues = validateRow(google, { ...GOOD, gtin: '4006381333932' });
    expect(issues).toEqual([
      { attribute: 'gtin', severity: 'error', code: 'invalid_gtin', message: 'The GTIN has a wrong check digit', value: '4006381333932' },
    ]);
    expect(codes({ ...GOOD, gtin: '123456' })).toEqual(['invalid_gtin:gtin']);
    expect(codes({ ...GOOD, gtin: '2001234567893' })).toEqual(['restricted_gtin:gtin']);
    expect(codes({ ...GOOD, gtin: '9912345678909' })).toEqual(['restricted_gtin:gtin']);
  });

  test('identifier_missing without GTIN and brand + MPN, unless identifier_exists is no', () => {
    expect(codes(without(GOOD, 'gtin'))).toEqual(['identifier_missing:mpn']);
    expect(codes(without(GOOD, 'gtin', 'brand'))).toEqual(['identifier_missing:brand']);
    expect(codes({ ...without(GOOD, 'gtin'), mpn: 'CK-20' })).toEqual([]);
    expect(codes({ ...without(GOOD, 'gtin', 'brand'), identifier_exists: 'no' })).toEqual([]);
    expect(codes(without(GOOD, 'gtin', 'brand'), meta)).toContain('identifier_missing:brand');
    expect(codes({ ...without(GOOD, 'gtin', 'brand'), mpn: 'CK-20' }, meta)).not.toContain('identifier_missing:brand');
  });

  test('too_long at title 151, description 5,001 and id 51 characters for Google; Meta allows more', () => {
    expect(codes({ ...GOOD, title: 'x'.repeat(150), description: 'y'.repeat(5000), id: 'z'.repeat(50) })).toEqual([]);
    expect(codes({ ...GOOD, title: 'x'.repeat(151), description: 'y'.repeat(5001), id: 'z'.repeat(51) })).toEqual([
      'too_long:id',
      'too_long:title',
      'too_long:description',
    ]);
    // Characters, not UTF-16 units: 150 emoji are 150 characters.
    expect(codes({ ...GOOD, title: '🔪'.repeat(150) })).toEqual([]);
    const metaRow = { ...GOOD, availability: 'in stock', title: 'x'.repeat(151) };
    expect(codes(metaRow, meta)).toEqual([]);
  });

  test('invalid_value for availability, condition, gender and age_group outside the channel’s values', () => {
    expect(codes({ ...GOOD, availability: 'available', condition: 'mint', gender: 'men', age_group: 'teen' })).toEqual([
      'invalid_value:availability',
      'invalid_value:condition',
      'invalid_value:gender',
      'invalid_value:age_group',
    ]);
    // Meta spells availability with a space and knows "teen".
    expect(codes({ ...GOOD, availability: 'in stock', age_group: 'teen' }, meta)).toEqual([]);
    expect(codes({ ...GOOD, availability: 'in_stock' }, meta)).toEqual(['invalid_value:availability']);
  });

  test('invalid_value for prices that are not "<amount> <ISO 4217>", sale prices not below the price, bad sale periods', () => {
    expect(codes({ ...GOOD, price: '49.90' })).toEqual(['invalid_value:price']);
    expect(codes({ ...GOOD, price: '49.90 EURO' })).toEqual(['invalid_value:price']);
    expect(codes({ ...GOOD, price: '49.90 XYZ' })).toEqual(['invalid_value:price']);
    expect(codes({ ...GOOD, price: '49.999 EUR' })).toEqual(['invalid_value:price']);
    expect(codes({ ...GOOD, sale_price: '39.90 EUR', sale_price_effective_date: '2026-12-01T00:00Z/2026-12-24T23:59Z' })).toEqual([]);
    expect(codes({ ...GOOD, sale_price: '59.90 EUR' })).toEqual(['invalid_value:sale_price']);
    expect(codes({ ...GOOD, sale_price: '39.90 USD' })).toEqual(['invalid_value:sale_price']);
    expect(codes({ ...GOOD, sale_price: '39.90 EUR', sale_price_effective_date: '2026-12-24/2026-12-01' })).toEqual([
      'invalid_value:sale_price_effective_date',
    ]);
    expect(codes({ ...GOOD, sale_price: '39.90 EUR', sale_price_effective_date: 'next week' })).toEqual(['invalid_value:sale_price_effective_date']);
  });

  test('invalid_value for links that are not absolute http(s) URLs', () => {
    expect(
      codes({
        ...GOOD,
        link: 'ftp://shop.example/knife',
        image_link: '/knife.jpg',
        additional_image_link: ['https://ok.example/a.jpg', 'javascript:alert(1)'],
      }),
    ).toEqual(['invalid_value:link', 'invalid_value:image_link', 'invalid_value:additional_image_link']);
  });

  test('missing_apparel_attribute for apparel by Google id or path; clothing needs a size too', () => {
    expect(codes({ ...GOOD, google_product_category: '166' })).toEqual([
      'missing_apparel_attribute:color',
      'missing_apparel_attribute:gender',
      'missing_apparel_attribute:age_group',
    ]);
    expect(
      codes({ ...GOOD, google_product_category: 'Apparel & Accessories > Clothing > Shirts & Tops', color: 'blue', gender: 'male', age_group: 'adult' }),
    ).toEqual(['missing_apparel_attribute:size']);
    expect(codes({ ...GOOD, color: 'blue' }, google, { googleCategoryPath: ['Apparel & Accessories', 'Shoes'] })).toEqual([
      'missing_apparel_attribute:size',
      'missing_apparel_attribute:gender',
      'missing_apparel_attribute:age_group',
    ]);
    expect(codes({ ...GOOD, google_product_category: 'Home & Garden > Kitchen & Dining' })).toEqual([]);
    // Meta does not require them.
    expect(codes({ ...GOOD, availability: 'in stock', google_product_category: '166' }, meta)).toEqual([]);
  });

  test('missing_item_group_id for a variant without its product’s id', () => {
    expect(codes(GOOD, google, { isVariant: true })).toEqual(['missing_item_group_id:item_group_id']);
    expect(codes({ ...GOOD, item_group_id: 'P-1' }, google, { isVariant: true })).toEqual([]);
    expect(codes(GOOD, schemaOrg, { isVariant: true })).toEqual(['missing_item_group_id:item_group_id']);
  });

  test('every issue code is produced by some rule above', () => {
    const bad: FeedRow = { id: 'z'.repeat(51), gtin: '4006381333932', availability: 'maybe', google_product_category: '166' };
    const seen = new Set<IssueCode>(validateRow(google, bad, { isVariant: true }).map((i) => i.code));
    seen.add(validateRow(google, { ...GOOD, gtin: '2001234567893' })[0].code);
    seen.add(validateRow(google, without(GOOD, 'gtin'))[0].code);
    expect([...seen].sort()).toEqual(
      [
        'invalid_gtin',
        'invalid_value',
        'identifier_missing',
        'missing_apparel_attribute',
        'missing_item_group_id',
        'missing_required',
        'restricted_gtin',
        'too_long',
      ].sort(),
    );
  });
});
