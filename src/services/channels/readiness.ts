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
  type ApplyContext,
  type ChannelMapping,
  type FeedRow,
  type IssueCode,
} from '../../channels';
import { ValidationError } from '../../lib/errors';
import type { Scope } from '../access/scope';
import type { CatalogDeps } from '../catalog/catalog-caches';
import { loadGridCatalog, type GridCatalog } from '../catalog/grid/item-grid';
import { applyContextOf, googleCategoryOfNode, hasGoogleCategories, schemaFieldsOf } from './catalog-context';
import { itemsPageAfter, keptReadinessCounts, parentData, productsWithVariants, type ReadinessVerdict, type VerdictOf } from './readiness-state';

/**
 * A catalog's readiness for a channel (docs/channels.md, "Readiness"): every item that would be
 * a row of the channel's feed (variants, and products without variants) is mapped and checked
 * by the channel's rules; the report counts the ready items, the items each error code blocks,
 * and the items each attribute is missing from. The counts are kept per catalog and channel and
 * refreshed by the items touched since the last answer (./readiness-state.ts); {@link scanChannelRows}
 * reads every row (fill the gaps for a channel) in keyset pages of {@link SCAN_PAGE_ITEMS} items.
 */

/** Items read per page of the scan. */
const SCAN_PAGE_ITEMS = 500;

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

/** Issue codes that mean "this attribute has no value" (docs/channels.md, "Issue codes"). */
export const MISSING_CODES: ReadonlySet<IssueCode> = new Set(['missing_required', 'identifier_missing', 'missing_apparel_attribute', 'missing_item_group_id']);

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

/** What a readiness scan reads a catalog with: the channel, the catalog, the mapping and where it came from, the apply context. */
export interface ReadinessBasis {
  channel: ChannelDefinition;
  grid: GridCatalog;
  mapping: ChannelMapping;
  /** True with the proposed mapping (no feed's own). */
  suggested: boolean;
  /** The feed whose mapping and currency are used (null with the proposal or a given mapping). */
  feed: ReadinessFeed | null;
  ctx: ApplyContext;
}

/**
 * The basis of a readiness scan (docs/channels.md, "Readiness"): without `opts.mapping`, the
 * mapping and currency of the catalog's feed for the channel ({@link readinessFeed}), else the
 * proposed mapping.
 * @param opts.mapping a mapping to check with instead (neither feed nor proposal)
 * @param opts.currency the currency appended to bare prices (with `opts.mapping`)
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog; ValidationError (422) for an unknown channel
 */
export async function readinessBasis(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  channelId: string,
  opts: { mapping?: ChannelMapping; currency?: string } = {},
): Promise<ReadinessBasis> {
  const channel = requireChannel(channelId);
  const grid = await loadGridCatalog(deps, scope, catalogId);
  const feed = opts.mapping ? null : await readinessFeed(deps.knex, catalogId, channel.id);
  const { mapping, suggested } = readinessMapping(grid, channel, opts.mapping ?? feed?.mapping);
  const currency = feed ? (feed.currency ?? undefined) : opts.currency;
  return { channel, grid, mapping, suggested, feed, ctx: applyContextOf(grid.taxonomy, currency, grid.catalog.product_id_field) };
}

/**
 * The catalog's readiness for the channel under the mapping of {@link readinessBasis}, from its
 * kept state refreshed by the items touched since (./readiness-state.ts; docs/channels.md
 * "Readiness").
 * @param opts as {@link readinessBasis}
 * @throws as {@link readinessBasis}
 */
export async function channelReadiness(
  deps: CatalogDeps,
  scope: Scope,
  catalogId: string,
  channelId: string,
  opts: { mapping?: ChannelMapping; currency?: string } = {},
): Promise<ChannelReadiness> {
  const { channel, grid, mapping, suggested, feed, ctx } = await readinessBasis(deps, scope, catalogId, channelId, opts);
  const currency = feed ? (feed.currency ?? undefined) : opts.currency;
  const verdictOf: VerdictOf = (item, parent) =>
    verdictOfIssues(checkItem({ channel, grid, mapping, ctx }, item.data, parent, item.entity_type === 'variant').issues);
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

/**
 * One item as the channel's row under `mapping` (a variant inherits the values it leaves empty
 * from its product's `parent` data) and the issues the channel's rules find in it; the Google
 * category that drives the apparel rules comes from the item's (or its product's) `category_id`.
 */
function checkItem(
  basis: Pick<ReadinessBasis, 'channel' | 'grid' | 'mapping' | 'ctx'>,
  data: Record<string, unknown>,
  parent: Record<string, unknown> | undefined,
  isVariant: boolean,
): { row: FeedRow; issues: ChannelIssue[] } {
  const { channel, grid, mapping, ctx } = basis;
  const row = toChannelRow(channel, mapping, data, parent, ctx);
  const cat = String(data.category_id ?? parent?.category_id ?? '');
  const google = grid.taxonomy && cat ? googleCategoryOfNode(grid.taxonomy, cat) : null;
  return { row, issues: validateRow(channel, row, { isVariant, googleCategoryPath: google?.path ?? null }) };
}

/** One item as a row of the channel's feed, with the issues the channel's rules find in it. */
export interface ScannedRow {
  item_id: string;
  row: FeedRow;
  issues: ChannelIssue[];
}

/**
 * Visits every item that would be a row of the channel's feed (variants, and products without
 * variants) in id order, in keyset pages of {@link SCAN_PAGE_ITEMS}: its row under `mapping` (variants
 * inherit from their product) and the issues the channel's rules find in it. `visit` returning
 * `false` stops the scan.
 */
export async function scanChannelRows(
  knex: Knex,
  grid: GridCatalog,
  channel: ChannelDefinition,
  mapping: ChannelMapping,
  ctx: ApplyContext,
  visit: (row: ScannedRow) => boolean | void,
): Promise<void> {
  const check = (id: string, data: Record<string, unknown>, parent: Record<string, unknown> | undefined, isVariant: boolean) =>
    visit({ item_id: id, ...checkItem({ channel, grid, mapping, ctx }, data, parent, isVariant) }) !== false;
  let after: string | null = null;
  for (;;) {
    const page = await itemsPageAfter(knex, grid.catalog.id, after, SCAN_PAGE_ITEMS);
    if (page.length === 0) return;
    after = page[page.length - 1].id;
    const parents = await parentData(knex, page);
    const withVariants = await productsWithVariants(knex, page);
    for (const item of page) {
      if (item.entity_type === 'variant') {
        if (!check(item.id, item.data, item.parent_id ? parents.get(item.parent_id) : undefined, true)) return;
      } else if (!withVariants.has(item.id)) {
        if (!check(item.id, item.data, undefined, false)) return;
      }
    }
    if (page.length < SCAN_PAGE_ITEMS) return;
  }
}
