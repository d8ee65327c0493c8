/**
 * Shapes of the channels domain (docs/channels.md): where a catalog's products are published,
 * the attributes each channel reads, the issues its rules report, how catalog fields map onto
 * its attributes, and the flat rows its feed formats are written from. Pure types: no I/O.
 */

/** The channels the service knows (docs/channels.md, "Channels"). */
export const CHANNEL_IDS = ['google_merchant_center', 'meta_catalog', 'schema_org'] as const;

/** A channel's id. */
export type ChannelId = (typeof CHANNEL_IDS)[number];

/** File formats a feed can be written in (each channel lists the ones it accepts). */
export const FEED_FORMATS = ['tsv', 'xml', 'csv', 'jsonl'] as const;

/** A feed file format. */
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** How a channel needs an attribute: on every item, only under a condition, or never. */
export type AttributeRequirement = 'always' | 'conditional' | 'optional';

/** One attribute a channel reads, as `GET /api/public/channels` lists it. */
export interface ChannelAttribute {
  name: string;
  required: AttributeRequirement;
  /** When a `conditional` attribute is needed, in words (absent otherwise). */
  condition?: string;
  description: string;
}

/** A channel: its id, display name, accepted formats and attributes. */
export interface ChannelDefinition {
  id: ChannelId;
  name: string;
  formats: FeedFormat[];
  attributes: ChannelAttribute[];
}

/** The issue codes the rules report (docs/channels.md, "Issue codes"). */
export const ISSUE_CODES = [
  'missing_required',
  'invalid_gtin',
  'restricted_gtin',
  'identifier_missing',
  'too_long',
  'invalid_value',
  'missing_apparel_attribute',
  'missing_item_group_id',
] as const;

/** One issue code. */
export type IssueCode = (typeof ISSUE_CODES)[number];

/** An issue's severity: an `error` keeps the item out of a feed, a `warning` does not. */
export type IssueSeverity = 'error' | 'warning';

/** One problem a rule found in a row: the attribute, what is wrong and the offending value. */
export interface ChannelIssue {
  attribute: string;
  severity: IssueSeverity;
  code: IssueCode;
  message: string;
  /** The offending value as text (absent when the attribute is empty). */
  value?: string;
}

/**
 * Where an attribute's value comes from: a catalog field name (`"brand"`; `"images[0]"` the first
 * element of an array field, `"images[1:]"` the rest), a template over fields
 * (`{template: "{brand} {name}"}`), or a constant (`{value: "new"}`). Field names starting with
 * `$` are derived values the caller supplies ({@link ApplyContext}): `$category_path`,
 * `$google_product_category`.
 */
export type MappingSource = string | { template: string } | { value: string };

/** A feed's mapping: channel attribute → where its value comes from. */
export type ChannelMapping = Record<string, MappingSource>;

/** One proposed attribute of a mapping, with why it was proposed. */
export interface ProposedSource {
  source: MappingSource;
  reason: string;
}

/** A proposed mapping: channel attribute → proposed source and reason. */
export type MappingProposal = Record<string, ProposedSource>;

/**
 * A catalog schema field as the mapping proposal reads it (from the schema's JSON Schema
 * property and its FieldWorkflowInfo): name, JSON type, and what else describes it.
 */
export interface SchemaFieldInfo {
  name: string;
  /** JSON Schema type: `string`, `number`, `integer`, `boolean`, `array`, `object`. */
  type: string;
  description?: string | null;
  unit?: string | null;
  /** JSON Schema `format` (e.g. `uri`), when set. */
  format?: string | null;
  /** `variant`, `product` or `both` in a product-grouped catalog. */
  scope?: string | null;
}

/** What the mapping proposal knows beyond the fields. */
export interface ProposeOptions {
  /** The catalog has a taxonomy, so `$category_path` can be derived from `category_id`. */
  hasTaxonomy?: boolean;
  /** The taxonomy's nodes carry a Google product category (`$google_product_category` derivable). */
  hasGoogleCategories?: boolean;
  /** The feed's currency (ISO 4217), used when the catalog has no currency field. */
  currency?: string;
}

/**
 * Derived values {@link applyMapping} needs from outside the item: the item's category as a
 * taxonomy path and its Google product category, and the feed's currency for bare prices.
 */
export interface ApplyContext {
  /** Taxonomy path (root first) of a category id, or null when unknown. */
  categoryPath?: (categoryId: string) => string[] | null;
  /** Google product category (numeric id or path) of a category id, or null when none. */
  googleCategory?: (categoryId: string) => string | null;
  /** ISO 4217 code appended to prices that carry none. */
  currency?: string;
  /** The field holding a product's own id (the catalog's product id field): a variant's `item_group_id`. */
  groupIdField?: string;
}

/**
 * One flat row of a feed: attribute → text. `additional_image_link` (and any attribute with
 * several values) is a list; renderers write lists as their format wants (comma-joined in
 * TSV/CSV, repeated elements in XML, an array in JSON).
 */
export type FeedRow = Record<string, string | string[]>;

/** What a row is validated with beyond the row itself. */
export interface ValidateContext {
  /** The row is a variant of a product (so `item_group_id` is needed). */
  isVariant?: boolean;
  /** Path (root first) of the item's Google product category when known, for apparel rules. */
  googleCategoryPath?: string[] | null;
}

/**
 * A streaming writer of one feed format: `header()` once, then `row(r)` per product without
 * variants and `group(product, variants)` per product with variants, then `footer()` once; the
 * concatenation of the returned strings is the file. Row-per-item formats (TSV, CSV, XML) write
 * one row per variant (the product row itself is not written); JSON-LD writes one ProductGroup.
 */
export interface FeedRenderer {
  format: FeedFormat;
  /** MIME type of the file, e.g. `text/tab-separated-values; charset=utf-8`. */
  contentType: string;
  /** File name extension without the dot (`tsv`, `xml`, `csv`, `jsonl`). */
  extension: string;
  /**
   * Whether `group` folds a product and all its variants into one record (schema.org
   * `ProductGroup`), so whoever streams the file must hand it each product with every one of its
   * variants at once; false when a variant's row stands alone (TSV, CSV, XML).
   */
  groupsVariants: boolean;
  header(): string;
  row(r: FeedRow): string;
  group(product: FeedRow, variants: FeedRow[]): string;
  footer(): string;
}

/** Options of a renderer: the columns of TSV/CSV (default: the channel's attributes, in order) and the XML channel's title, link and description. */
export interface RenderOptions {
  columns?: string[];
  title?: string;
  link?: string;
  description?: string;
}
