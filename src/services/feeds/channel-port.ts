/**
 * What the feeds take from the channels module (src/channels/): channel definitions, the mapping
 * proposal, mapping a catalog item to a channel row, the channel's rules and the format writers.
 * One file, so the feed services name the channels module in one place; plus the checks of a
 * client's mapping against the catalog schema that the feeds need.
 */
import type { ValidationDetail } from '../../lib/errors';
import type { CatalogSchema } from '../../models/catalog-schema';
import type { Feed } from '../../models/feed';
import { enrichTaxonomy, type EnrichedTaxonomy } from '../catalog/taxonomy';
import { applyContextOf, googleCategoryOfNode, hasGoogleCategories, schemaFieldsOf } from '../channels/catalog-context';
import {
  channelById as findChannel,
  createRenderer,
  mappingOf,
  proposeMapping,
  toChannelRow,
  validateRow,
  type ChannelDefinition,
  type ChannelIssue,
  type ChannelMapping,
  type FeedRenderer,
  type FeedRow,
  type ApplyContext,
  type SchemaFieldInfo,
} from '../../channels';

export type { FeedRow, FeedRenderer, ChannelDefinition, SchemaFieldInfo };
export { schemaFieldsOf };

/** What mapping and checking a feed's items need, built once per page: the channel, the catalog's taxonomy and the apply context. */
export interface FeedContext {
  channel: ChannelDefinition;
  taxonomy: EnrichedTaxonomy | null;
  apply: ApplyContext;
}

/**
 * The context of a feed over its catalog's current schema (taxonomy: category paths and Google
 * categories) and product id field (a variant's item_group_id).
 * @throws Error when the feed's channel is unknown (the API refuses such feeds)
 */
export function feedContextOf(feed: Feed, schema: CatalogSchema, productIdField: string | null): FeedContext {
  const channel = findChannel(feed.channel);
  if (!channel) throw new Error(`Unknown channel ${feed.channel}`);
  const taxonomy = schema.taxonomy ? enrichTaxonomy(schema.taxonomy) : null;
  return { channel, taxonomy, apply: applyContextOf(taxonomy, feed.currency ?? undefined, productIdField) };
}

/** One issue of a row (the channel's rule output). */
export type RowIssue = ChannelIssue;

/** Why each attribute of a proposed mapping was proposed: attribute → reason. */
export type MappingReasons = Record<string, string>;

/** The channel of an id, or null for an unknown id. */
export function channelById(id: string): ChannelDefinition | null {
  return findChannel(id);
}

/**
 * The mapping the channels module proposes for a catalog: attribute → source, and the reason of
 * each attribute. The catalog's taxonomy makes `$category_path` available.
 */
export function proposeFeedMapping(
  channelId: string,
  fields: SchemaFieldInfo[],
  schema: CatalogSchema,
  currency?: string,
): { mapping: ChannelMapping; reasons: MappingReasons } {
  const channel = findChannel(channelId);
  if (!channel) return { mapping: {}, reasons: {} };
  const proposal = proposeMapping(fields, channel, {
    hasTaxonomy: schema.taxonomy != null,
    hasGoogleCategories: hasGoogleCategories(schema.taxonomy ? enrichTaxonomy(schema.taxonomy) : null),
    currency,
  });
  return { mapping: mappingOf(proposal), reasons: Object.fromEntries(Object.entries(proposal).map(([attribute, p]) => [attribute, p.reason])) };
}

/** The field a source path names: `images[0]` and `images[1:]` name `images`. */
function fieldOf(path: string): string {
  return path.replace(/\[[^\]]*\]$/, '');
}

/**
 * Checks a client's mapping: every attribute is one the channel reads, every field a source
 * names (directly or as a template `{placeholder}`) is in the catalog schema; `$`-names are the
 * derived values the channels module supplies.
 * @returns 422 details, empty when valid
 */
export function mappingErrors(mapping: ChannelMapping, fields: string[], channel: ChannelDefinition | null): ValidationDetail[] {
  const known = new Set(fields);
  const attributes = new Set(channel?.attributes.map((a) => a.name) ?? []);
  const details: ValidationDetail[] = [];
  for (const [attribute, source] of Object.entries(mapping)) {
    const loc = ['body', 'mapping', attribute];
    if (channel && !attributes.has(attribute) && attribute !== 'item_group_id')
      details.push({ loc, msg: `Channel ${channel.id} has no attribute ${attribute}`, type: 'value_error.attribute' });
    const names = typeof source === 'string' ? [source] : 'template' in source ? [...source.template.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]) : [];
    for (const name of names) {
      if (name.startsWith('$')) continue;
      if (!known.has(fieldOf(name))) details.push({ loc, msg: `The catalog schema has no field ${JSON.stringify(fieldOf(name))}`, type: 'value_error.field' });
    }
  }
  return details;
}

/**
 * The channel row of an item under the feed's mapping: a variant's `parent` fills what it leaves
 * empty and gives `item_group_id`; prices get the feed's currency; category values come from the
 * catalog's taxonomy.
 */
export function feedRowOf(fc: FeedContext, feed: Feed, item: Record<string, unknown>, parent: Record<string, unknown> | null): FeedRow {
  return toChannelRow(fc.channel, feed.mapping, item, parent ?? undefined, fc.apply);
}

/** The channel's issues of a row; the item's Google category (through its `category_id`) drives the apparel rules. */
export function rowIssues(fc: FeedContext, row: FeedRow, item: Record<string, unknown>, parent: Record<string, unknown> | null): RowIssue[] {
  const category = String(item.category_id ?? parent?.category_id ?? '');
  const google = fc.taxonomy && category ? googleCategoryOfNode(fc.taxonomy, category) : null;
  return validateRow(fc.channel, row, { isVariant: parent !== null, googleCategoryPath: google?.path ?? null });
}

/** The writer of the feed's format for its channel, over the mapping's attributes. */
export function rendererOf(feed: Feed): FeedRenderer {
  const channel = findChannel(feed.channel);
  if (!channel) throw new Error(`Unknown channel ${feed.channel}`);
  // Columns: the channel's attributes the mapping fills, in the channel's order, and item_group_id for variants.
  const mapped = new Set([...Object.keys(feed.mapping), 'item_group_id']);
  const columns = channel.attributes.map((a) => a.name).filter((a) => mapped.has(a));
  if (!columns.includes('item_group_id')) columns.push('item_group_id');
  return createRenderer(channel, feed.format, { columns, title: `${channel.name} feed ${feed.id}` });
}

/** MIME type of a feed file of a format (a delta file is always JSONL). */
export function contentTypeOf(format: string): string {
  if (format === 'tsv') return 'text/tab-separated-values; charset=utf-8';
  if (format === 'csv') return 'text/csv; charset=utf-8';
  if (format === 'xml') return 'application/xml; charset=utf-8';
  return 'application/x-ndjson; charset=utf-8';
}
