import { BaseModel } from './base';

/**
 * One channel mapping entry (docs/feeds.md, "Mapping"): a catalog field name, a `{template}`
 * with `{field}` placeholders, or a fixed `{value}`.
 */
export type FeedMappingSource = string | { template: string } | { value: string };

/** A feed's mapping: channel attribute name → where its value comes from. */
export type FeedMapping = Record<string, FeedMappingSource>;

/** The item filter of a feed: the items search filters (`search` term, `entity_type`). */
export interface FeedFilter {
  search?: string;
  entity_type?: 'product' | 'variant';
}

/** The file formats a feed writes (docs/feeds.md, "Files"). */
export type FeedFormat = 'tsv' | 'xml' | 'csv' | 'jsonl';

/**
 * A feed of a catalog to a channel (table `feeds`; docs/feeds.md). `public_token` is the 32-byte
 * random token (base64url) of its public URL; `deleted` feeds are invisible and their URL is dead.
 */
export class Feed extends BaseModel {
  static tableName = 'feeds';
  static jsonAttributes = ['mapping', 'filter'];
  id!: string;
  organization_id!: string;
  catalog_id!: string;
  channel!: string;
  format!: FeedFormat;
  target_country!: string;
  language!: string;
  currency!: string | null;
  mapping!: FeedMapping;
  mapping_suggested!: boolean;
  filter!: FeedFilter;
  schedule!: string | null;
  public_token!: string;
  deleted!: boolean;
  created_at!: Date;
  updated_at!: Date;
}
