/**
 * Enrichment fields suggested for what a file lacks: the identity and content
 * fields every product feed needs (brand, GTIN, MPN, description, images — the attributes
 * Google Merchant Center and GS1 ask of a product) plus the attributes of the file's kind of
 * product (dimensions and materials for furniture, size and colour for apparel, …), each with
 * a description precise enough to be an `output_schema` description and a reason.
 */
import type { InferredField } from './columns';

/** One suggested field: an output-schema field (docs/api-enrichment.md "Enrichment jobs") and why it is suggested. */
export interface SuggestedField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description: string;
  unit?: string;
  enum?: string[];
  array_element_type?: 'string' | 'number' | 'image_url';
  pattern?: string;
  reason: string;
}

/** Product kinds recognised from categories and titles, with the words that signal them. */
const KINDS: ReadonlyArray<{ kind: string; words: RegExp }> = [
  {
    kind: 'apparel',
    words:
      /\b(apparel|cloth|clothing|shirts?|t-shirts?|tshirts?|pants|jeans|dress(es)?|skirts?|hats?|beanies?|jackets?|hoodies?|sweaters?|shoes?|sneakers?|socks)\b/i,
  },
  {
    kind: 'furniture',
    words:
      /\b(furniture|tables?|chairs?|sofas?|beds?|shelv(es|ing)|bookcases?|cabinets?|desks?|wardrobes?|drawers?|stools?|armchairs?|benches?|mattress(es)?)\b/i,
  },
  { kind: 'bags', words: /\b(bags?|backpacks?|luggage|duffel|duffle|totes?|messenger|suitcases?)\b/i },
  { kind: 'watches', words: /\b(watch(es)?|timepieces?)\b/i },
  {
    kind: 'electronics',
    words:
      /\b(computers?|laptops?|electronics?|phones?|cables?|usb|monitors?|memory|drives?|ssd|hdd|keyboards?|mouse|printers?|headphones?|chargers?|batter(y|ies))\b/i,
  },
  { kind: 'jewelry', words: /\b(jewel(le)?ry|rings?|necklaces?|earrings?|bracelets?|pendants?)\b/i },
  { kind: 'grocery', words: /\b(grocery|food|coffee|tea|snacks?|chocolate|spices?|sauces?|wine|beverages?)\b/i },
];

type Candidate = Omit<SuggestedField, 'reason'> & { covers: RegExp };

/** Fields every product needs, whatever its kind. */
const COMMON: Candidate[] = [
  {
    name: 'brand',
    type: 'string',
    description: 'Brand name of the product as the manufacturer writes it (not the retailer or shop name).',
    covers: /brand|vendor|manufacturer|designer/i,
  },
  {
    name: 'gtin',
    type: 'string',
    description: 'GTIN of the product (EAN-13, UPC-A, GTIN-14 or EAN-8) as digits only, with a valid GS1 check digit; empty when the product has none.',
    pattern: '^(\\d{8}|\\d{12,14})$',
    covers: /gtin|ean|upc|barcode|isbn/i,
  },
  {
    name: 'mpn',
    type: 'string',
    description: "Manufacturer part number (the maker's own model or part code), exactly as the manufacturer writes it.",
    covers: /mpn|part[\s_-]?n|model/i,
  },
  {
    name: 'description',
    type: 'string',
    description: 'Plain-text product description of 2-4 sentences: what the product is, its main features and materials; no marketing superlatives, no HTML.',
    covers: /descr|body|details/i,
  },
  {
    name: 'image_urls',
    type: 'array',
    array_element_type: 'image_url',
    description: 'URLs of product images, the main image first.',
    covers: /image|photo|picture|img/i,
  },
];

/** Fields of a product kind. */
const BY_KIND: Record<string, Candidate[]> = {
  furniture: [
    {
      name: 'width',
      type: 'number',
      unit: 'cm',
      description: 'Overall width of the product in centimetres (side to side, as assembled).',
      covers: /width|breite/i,
    },
    {
      name: 'height',
      type: 'number',
      unit: 'cm',
      description: 'Overall height of the product in centimetres (floor to top, as assembled).',
      covers: /height|höhe/i,
    },
    {
      name: 'depth',
      type: 'number',
      unit: 'cm',
      description: 'Overall depth of the product in centimetres (front to back, as assembled).',
      covers: /depth|tiefe/i,
    },
    { name: 'weight', type: 'number', unit: 'kg', description: 'Net weight of the product in kilograms, without packaging.', covers: /weight|gewicht|grams/i },
    {
      name: 'material',
      type: 'array',
      array_element_type: 'string',
      description: 'Main materials of the product (e.g. solid pine, steel, polyester), most important first.',
      covers: /material/i,
    },
    { name: 'color', type: 'string', description: 'Main colour of the product as the manufacturer names it.', covers: /colou?r/i },
    { name: 'assembly_required', type: 'boolean', description: 'Whether the buyer has to assemble the product.', covers: /assembl/i },
  ],
  apparel: [
    {
      name: 'material',
      type: 'array',
      array_element_type: 'string',
      description: 'Fabric composition, each entry a material with its share when given (e.g. "100% cotton").',
      covers: /material|fabric/i,
    },
    { name: 'color', type: 'string', description: 'Colour of the garment as the manufacturer names it.', covers: /colou?r|option\d? value/i },
    { name: 'size', type: 'string', description: 'Size of the garment as labelled (e.g. S, M, L, 32/34).', covers: /size|option\d? value/i },
    {
      name: 'gender',
      type: 'string',
      enum: ['male', 'female', 'unisex'],
      description: 'Intended gender (Google Merchant Center `gender`).',
      covers: /gender/i,
    },
    {
      name: 'age_group',
      type: 'string',
      enum: ['newborn', 'infant', 'toddler', 'kids', 'adult'],
      description: 'Intended age group (Google Merchant Center `age_group`).',
      covers: /age/i,
    },
    { name: 'care_instructions', type: 'string', description: 'Washing and care instructions as printed on the care label.', covers: /care/i },
  ],
  bags: [
    { name: 'capacity', type: 'number', unit: 'l', description: 'Volume of the main compartment in litres.', covers: /capacity|volume/i },
    { name: 'width', type: 'number', unit: 'cm', description: 'Outer width of the bag in centimetres.', covers: /width|dimension/i },
    { name: 'height', type: 'number', unit: 'cm', description: 'Outer height of the bag in centimetres.', covers: /height|dimension/i },
    { name: 'depth', type: 'number', unit: 'cm', description: 'Outer depth of the bag in centimetres.', covers: /depth|dimension/i },
    { name: 'weight', type: 'number', unit: 'kg', description: 'Weight of the empty bag in kilograms.', covers: /weight/i },
    { name: 'color', type: 'string', description: 'Main colour of the bag as the manufacturer names it.', covers: /colou?r/i },
    {
      name: 'material',
      type: 'array',
      array_element_type: 'string',
      description: 'Materials of the bag (shell, lining), most important first.',
      covers: /material/i,
    },
  ],
  watches: [
    { name: 'case_diameter', type: 'number', unit: 'mm', description: 'Diameter of the watch case in millimetres.', covers: /diameter|case/i },
    { name: 'water_resistance', type: 'number', unit: 'm', description: 'Water resistance in metres as stated by the maker (3 ATM = 30 m).', covers: /water/i },
    {
      name: 'movement',
      type: 'string',
      enum: ['quartz', 'automatic', 'mechanical', 'solar', 'smart'],
      description: 'Type of watch movement.',
      covers: /movement/i,
    },
    { name: 'strap_material', type: 'string', description: 'Material of the strap or bracelet.', covers: /strap|band|material/i },
    { name: 'color', type: 'string', description: 'Colour of the dial or case as the manufacturer names it.', covers: /colou?r/i },
  ],
  electronics: [
    { name: 'model', type: 'string', description: "The manufacturer's model name or number.", covers: /model/i },
    { name: 'color', type: 'string', description: 'Colour as the manufacturer names it.', covers: /colou?r/i },
    { name: 'weight', type: 'number', unit: 'kg', description: 'Weight of the device in kilograms.', covers: /weight/i },
    { name: 'warranty_months', type: 'integer', description: "Length of the manufacturer's warranty in months.", covers: /warrant/i },
  ],
  jewelry: [
    { name: 'metal_type', type: 'string', description: 'Metal and its fineness (e.g. 925 sterling silver, 14k yellow gold).', covers: /metal/i },
    { name: 'stone_type', type: 'string', description: 'Main gemstone, if any (e.g. diamond, cubic zirconia).', covers: /stone|gem/i },
    { name: 'color', type: 'string', description: 'Colour of the piece as the maker names it.', covers: /colou?r/i },
  ],
  grocery: [
    {
      name: 'net_content',
      type: 'number',
      unit: 'g',
      description: 'Net weight of the contents in grams (or millilitres for liquids, converted 1:1 for water-like products).',
      covers: /weight|content|size/i,
    },
    { name: 'ingredients', type: 'string', description: 'Ingredient list as printed on the pack, in order.', covers: /ingredient/i },
    {
      name: 'allergens',
      type: 'array',
      array_element_type: 'string',
      description: 'Allergens declared on the pack (EU Regulation 1169/2011 Annex II names).',
      covers: /allergen/i,
    },
  ],
};

/**
 * The product kinds a file is about, from its category values and titles, most frequent first
 * (kinds matched by fewer than 10% of the rows that match any kind are dropped).
 */
export function productKinds(texts: string[]): string[] {
  const counts = new Map<string, number>();
  for (const t of texts) for (const { kind, words } of KINDS) if (words.test(t)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return [...counts.entries()]
    .filter(([, n]) => n >= total * 0.1)
    .sort((a, b) => b[1] - a[1])
    .map(([k]) => k);
}

/**
 * Enrichment fields for what the file lacks: the common fields and those of its product kinds,
 * skipping any a column already covers (by its role or header).
 * @param texts category values and titles of the profiled rows (for the product kinds)
 */
export function suggestEnrichmentFields(fields: InferredField[], texts: string[]): SuggestedField[] {
  const kinds = productKinds(texts);
  const has = (c: Candidate) =>
    fields.some(
      (f) =>
        c.covers.test(f.name) ||
        (c.name === 'gtin' && f.role === 'gtin') ||
        (c.name === 'mpn' && f.role === 'mpn') ||
        (c.name === 'brand' && f.role === 'brand') ||
        (c.name === 'description' && f.role === 'description') ||
        (c.name === 'image_urls' && f.role === 'image_url'),
    );
  const out: SuggestedField[] = [];
  const names = new Set(fields.map((f) => f.name.toLowerCase()));
  const add = (c: Candidate, reason: string) => {
    if (names.has(c.name) || has(c)) return;
    names.add(c.name);
    const { covers, ...field } = c;
    void covers;
    out.push({ ...field, reason });
  };
  for (const c of COMMON) add(c, `no ${c.name} column: a product feed needs it (Google Merchant Center / GS1 product identity and content)`);
  for (const kind of kinds)
    for (const c of BY_KIND[kind] ?? []) add(c, `${kind} products: ${c.name} is a key attribute of the category and the file has no such column`);
  return out;
}
