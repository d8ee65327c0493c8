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
import type { CatalogDeps } from '../catalog/caches';
import { loadGridCatalog, type GridCatalog } from '../catalog/item-grid';
import { applyContextOf, googleCategoryOfNode, hasGoogleCategories, schemaFieldsOf } from './catalog-context';

/**
 * A catalog's readiness for a channel (docs/channels.md, "Readiness"): every item that would be
 * a row of the channel's feed (variants, and products without variants) is mapped and checked
 * by the channel's rules; the report counts the ready items, the items each error code blocks,
 * and the items each attribute is missing from. It scans the catalog in keyset pages of
 * {@link PAGE_SIZE} items (never the whole catalog in memory).
 */

/** Items read per page of the scan. */
export const PAGE_SIZE = 500;

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

interface ScanRow {
  id: string;
  entity_type: 'product' | 'variant';
  parent_id: string | null;
  data: Record<string, unknown>;
}

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
 * The catalog's readiness for the channel (one scan of its items in id order, keyset pages)
 * under the mapping of {@link readinessBasis}.
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
  const report: ChannelReadiness = {
    channel: channel.id,
    total: 0,
    ready: 0,
    blocked: {},
    by_attribute: {},
    mapping,
    mapping_suggested: suggested,
    mapping_source: suggested ? 'proposed' : 'feed',
    feed_id: feed?.id ?? null,
  };
  await scanChannelRows(deps.knex, grid, channel, mapping, ctx, (row) => tally(report, row.issues));
  return report;
}

/** One item as a row of the channel's feed, with the issues the channel's rules find in it. */
export interface ScannedRow {
  item_id: string;
  row: FeedRow;
  issues: ChannelIssue[];
}

/**
 * Visits every item that would be a row of the channel's feed (variants, and products without
 * variants) in id order, in keyset pages of {@link PAGE_SIZE}: its row under `mapping` (variants
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
  const check = (id: string, data: Record<string, unknown>, parent: Record<string, unknown> | undefined, isVariant: boolean) => {
    const row = toChannelRow(channel, mapping, data, parent, ctx);
    const cat = String(data.category_id ?? parent?.category_id ?? '');
    const google = grid.taxonomy && cat ? googleCategoryOfNode(grid.taxonomy, cat) : null;
    return visit({ item_id: id, row, issues: validateRow(channel, row, { isVariant, googleCategoryPath: google?.path ?? null }) }) !== false;
  };
  let after: string | null = null;
  for (;;) {
    const page = await scanPage(knex, grid.catalog.id, after);
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
    if (page.length < PAGE_SIZE) return;
  }
}

/** Adds one item's issues to the report. */
function tally(report: ChannelReadiness, issues: ChannelIssue[]): void {
  report.total++;
  const errors = issues.filter((i) => i.severity === 'error');
  if (errors.length === 0) report.ready++;
  for (const code of new Set(errors.map((i) => i.code))) report.blocked[code] = (report.blocked[code] ?? 0) + 1;
  for (const attribute of new Set(issues.filter((i) => MISSING_CODES.has(i.code)).map((i) => i.attribute)))
    report.by_attribute[attribute] = (report.by_attribute[attribute] ?? 0) + 1;
}

/** The next page of items after `after` in id order. */
async function scanPage(knex: Knex, catalogId: string, after: string | null): Promise<ScanRow[]> {
  const q = knex('catalog_items').where('catalog_id', catalogId).orderBy('id').limit(PAGE_SIZE).select('id', 'entity_type', 'parent_id', 'data');
  if (after) q.where('id', '>', after);
  return (await q) as ScanRow[];
}

/** The data of the page's variants' products. */
async function parentData(knex: Knex, page: ScanRow[]): Promise<Map<string, Record<string, unknown>>> {
  const ids = [...new Set(page.filter((r) => r.parent_id).map((r) => r.parent_id!))];
  if (ids.length === 0) return new Map();
  const rows = (await knex('catalog_items').whereIn('id', ids).select('id', 'data')) as Array<{ id: string; data: Record<string, unknown> }>;
  return new Map(rows.map((r) => [r.id, r.data]));
}

/** Which of the page's products have variants (they are represented by their variants). */
async function productsWithVariants(knex: Knex, page: ScanRow[]): Promise<Set<string>> {
  const ids = page.filter((r) => r.entity_type === 'product').map((r) => r.id);
  if (ids.length === 0) return new Set();
  // One parent_id index probe per product (a semi join over the page's ids): a plain `parent_id IN (…)`
  // was planned as a scan of the whole table, once per page.
  const { rows } = (await knex.raw('SELECT p.id FROM unnest(?::uuid[]) AS p(id) WHERE EXISTS (SELECT 1 FROM catalog_items c WHERE c.parent_id = p.id)', [
    ids,
  ])) as { rows: Array<{ id: string }> };
  return new Set(rows.map((r) => r.id));
}
