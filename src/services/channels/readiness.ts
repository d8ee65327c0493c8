import crypto from 'node:crypto';
import type { Knex } from 'knex';
import {
  channelById,
  mappingOf,
  proposeMapping,
  toChannelRow,
  validateRow,
  type ChannelDefinition,
  type ChannelIssue,
  type ChannelMapping,
  type IssueCode,
} from '../../channels';
import { ValidationError } from '../../lib/errors';
import type { Scope } from '../access/scope';
import type { CatalogDeps } from '../catalog/caches';
import { loadGridCatalog, type GridCatalog } from '../catalog/item-grid';
import { keptReadinessCounts, type ReadinessVerdict, type VerdictOf } from './readiness-state';
import { applyContextOf, googleCategoryOfNode, hasGoogleCategories, schemaFieldsOf } from './catalog-context';

/**
 * A catalog's readiness for a channel (docs/channels.md, "Readiness"): every item that would be
 * a row of the channel's feed (variants, and products without variants) is mapped and checked
 * by the channel's rules; the report counts the ready items, the items each error code blocks,
 * and the items each attribute is missing from. The counts are kept per catalog and channel and
 * refreshed by the items touched since the last answer (./readiness-state.ts).
 */

/** The readiness report. */
export interface ChannelReadiness {
  channel: string;
  /** Items that would be rows of the feed: variants, and products without variants. */
  total: number;
  /** Of those, items without an error (they would be exported). */
  ready: number;
  /** Items with at least one error of each code (an item counts once per code). */
  blocked: Partial<Record<IssueCode, number>>;
  /** Items each attribute is missing from, where the channel needs it (missing_required, identifier_missing, missing_apparel_attribute, missing_item_group_id). */
  by_attribute: Record<string, number>;
  /** The mapping the items were checked with, and whether it was proposed (no feed's own). */
  mapping: ChannelMapping;
  mapping_suggested: boolean;
  /** Where the mapping came from: the catalog's feed for the channel, or the proposal. */
  mapping_source: 'feed' | 'proposed';
  /** The feed whose mapping and currency were used (null with the proposal). */
  feed_id: string | null;
}

/** The feed readiness reads: its id, mapping and currency. */
export interface ReadinessFeed {
  id: string;
  mapping: ChannelMapping;
  currency: string | null;
}

/**
 * The catalog's feed for the channel that readiness reads (docs/channels.md, "Readiness"): the
 * live (not deleted) feed of that channel updated most recently; null when there is none.
 */
export async function readinessFeed(knex: Knex, catalogId: string, channelId: string): Promise<ReadinessFeed | null> {
  const row = (await knex('feeds')
    .where({ catalog_id: catalogId, channel: channelId, deleted: false })
    .orderBy([
      { column: 'updated_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('id', 'mapping', 'currency')) as { id: string; mapping: ChannelMapping | string; currency: string | null } | undefined;
  if (!row) return null;
  const mapping = typeof row.mapping === 'string' ? (JSON.parse(row.mapping) as ChannelMapping) : row.mapping;
  return { id: row.id, mapping, currency: row.currency };
}

/** Issue codes that mean "this attribute has no value". */
const MISSING_CODES: ReadonlySet<IssueCode> = new Set(['missing_required', 'identifier_missing', 'missing_apparel_attribute', 'missing_item_group_id']);

/**
 * The channel by id.
 * @throws ValidationError (422, at `query.channel`) for an unknown id
 */
export function requireChannel(id: string): ChannelDefinition {
  const c = channelById(id);
  if (!c) throw ValidationError.at(['query', 'channel'], `Unknown channel "${id}"`, 'enum');
  return c;
}

/**
 * The mapping to check a catalog with for a channel: the given one (the catalog's feed's for the
 * channel), else the proposal from the catalog's schema and taxonomy.
 */
export function readinessMapping(grid: GridCatalog, channel: ChannelDefinition, given?: ChannelMapping): { mapping: ChannelMapping; suggested: boolean } {
  if (given) return { mapping: given, suggested: false };
  const proposal = proposeMapping(schemaFieldsOf(grid.schema), channel, {
    hasTaxonomy: !!grid.taxonomy,
    hasGoogleCategories: hasGoogleCategories(grid.taxonomy),
  });
  return { mapping: mappingOf(proposal), suggested: true };
}

/**
 * Bump when the channels module's rules change the verdict of an unchanged item: kept states
 * computed under another version are rebuilt (the context key includes it).
 */
const RULES_VERSION = 1;

/**
 * The catalog's readiness for the channel, from its kept state refreshed by the items touched
 * since (./readiness-state.ts; docs/channels.md "Readiness"). Without `opts.mapping` it reads
 * the catalog's feed for the channel ({@link readinessFeed}): that feed's mapping and currency,
 * else the proposed mapping.
 * @param opts.mapping a mapping to check with instead (neither feed nor proposal)
 * @param opts.currency the currency appended to bare prices (with `opts.mapping`)
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog; ValidationError (422) for an unknown channel
 */
export async function channelReadiness(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  channelId: string,
  opts: { mapping?: ChannelMapping; currency?: string } = {},
): Promise<ChannelReadiness> {
  const channel = requireChannel(channelId);
  const grid = await loadGridCatalog(deps, scope, catalogId);
  const feed = opts.mapping ? null : await readinessFeed(deps.knex, catalogId, channel.id);
  const { mapping, suggested } = readinessMapping(grid, channel, opts.mapping ?? feed?.mapping);
  const currency = feed ? (feed.currency ?? undefined) : opts.currency;
  const ctx = applyContextOf(grid.taxonomy, currency, grid.catalog.product_id_field);
  const verdictOf: VerdictOf = (item, parent) => {
    const cat = String(item.data.category_id ?? parent?.category_id ?? '');
    const google = grid.taxonomy && cat ? googleCategoryOfNode(grid.taxonomy, cat) : null;
    const row = toChannelRow(channel, mapping, item.data, parent, ctx);
    return verdictOfIssues(validateRow(channel, row, { isVariant: item.entity_type === 'variant', googleCategoryPath: google?.path ?? null }));
  };
  const contextKey = crypto
    .createHash('sha256')
    .update(JSON.stringify([RULES_VERSION, channel, mapping, currency ?? null, grid.schema.id, grid.catalog.product_id_field ?? null]))
    .digest('hex');
  const counts = await keptReadinessCounts(deps.knex, catalogId, channel.id, contextKey, verdictOf);
  return {
    channel: channel.id,
    total: counts.total,
    ready: counts.ready,
    blocked: counts.blocked as Partial<Record<IssueCode, number>>,
    by_attribute: counts.by_attribute,
    mapping,
    mapping_suggested: suggested,
    mapping_source: suggested ? 'proposed' : 'feed',
    feed_id: feed?.id ?? null,
  };
}

/** An item's verdict from its issues: its error codes and the attributes the missing-value codes name, each once. */
function verdictOfIssues(issues: ChannelIssue[]): ReadinessVerdict {
  return {
    errors: [...new Set(issues.filter((i) => i.severity === 'error').map((i) => i.code))],
    missing: [...new Set(issues.filter((i) => MISSING_CODES.has(i.code)).map((i) => i.attribute))],
  };
}
