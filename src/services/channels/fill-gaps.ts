import type { ChannelDefinition, ChannelMapping, FeedRow, IssueCode } from '../../channels';
import { ConflictError, ValidationError } from '../../lib/errors';
import type { EnrichmentJob } from '../../models/enrichment-job';
import type { Scope } from '../access/scope';
import type { CatalogCaches } from '../catalog/catalog-caches';
import type { GridCatalog } from '../catalog/grid/item-grid';
import { FILL_GAPS_MAX_ITEMS, fieldFill, startFillGapsJob, type FillGapsTarget } from '../enrichment/jobs/fill-gaps';
import type { JobServiceDeps } from '../enrichment/jobs/jobs';
import { MISSING_CODES, readinessBasis, scanChannelRows, type ScannedRow } from './readiness';

/**
 * Fill the gaps for a channel (docs/channels.md, "Fill the gaps for a channel"): the channel
 * attributes a catalog's items miss (as readiness finds them), translated through the mapping
 * readiness uses (the catalog's feed for the channel, else the proposal) into the catalog's own
 * fields, and one fill-the-gaps enrichment job (src/services/enrichment/jobs/fill-gaps.ts) of exactly
 * the items that miss one of them, for exactly those fields, staged for review. Attributes whose
 * mapping is no plain field (a template, a constant, a derived `$` value, no mapping at all) are
 * named with the reason instead: enrichment writes catalog fields, not feed rows.
 */

/** Attributes that meet the identifier rule together (Google: a GTIN, or brand + MPN; Meta: brand, GTIN or MPN). */
const IDENTIFIER_ATTRIBUTES = ['gtin', 'brand', 'mpn'];

/** Error codes besides the missing ones that a found value lifts: a GTIN that is wrong or restricted. */
const WRONG_VALUE_CODES: ReadonlySet<IssueCode> = new Set(['invalid_gtin', 'restricted_gtin']);

/** A mapping source's field reference: `name`, `name[0]`, `name[1:]` (src/channels/apply-mapping.ts). */
const FIELD_REF = /^([^[\]]+?)(?:\[\d+:?\])?$/;

/** A missing attribute the job fills: its catalog field and the items missing it (or blocked by it). */
export interface FillableAttribute {
  attribute: string;
  field: string;
  items: number;
}

/** A missing attribute the job cannot fill, and why. */
export interface NotFillableAttribute {
  attribute: string;
  reason: string;
  /** Items missing it (0 for an asked attribute no item misses). */
  items: number;
}

/** What filling a channel's gaps would do. */
export interface ChannelGapsPlan {
  channel: ChannelDefinition;
  mapping_source: 'feed' | 'proposed';
  feed_id: string | null;
  fillable: FillableAttribute[];
  not_fillable: NotFillableAttribute[];
  /** Items missing (or blocked by) at least one fillable attribute, before `limit`. */
  matching: number;
  /** The job's target: the fields of the fillable attributes and the first `limit` matching items; null when nothing is fillable. */
  target: FillGapsTarget | null;
}

/** Options of a channel's fill the gaps: the attributes to fill (default every missing one) and the most items. */
export interface ChannelGapsOptions {
  attributes?: string[];
  limit?: number;
}

/** Whether a row has a value for an attribute. */
function has(row: FeedRow, attribute: string): boolean {
  const v = row[attribute];
  return Array.isArray(v) ? v.length > 0 : v !== undefined && v !== '';
}

/**
 * The attributes a row misses or is blocked by: those of its missing-value issues, for
 * `identifier_missing` each identifier attribute it lacks (any of them would do), and `gtin`
 * when its GTIN is invalid or restricted.
 */
export function gapsOf(scanned: ScannedRow): Set<string> {
  const out = new Set<string>();
  for (const issue of scanned.issues) {
    if (issue.code === 'identifier_missing') for (const a of IDENTIFIER_ATTRIBUTES) if (!has(scanned.row, a)) out.add(a);
    if (MISSING_CODES.has(issue.code) || (issue.severity === 'error' && WRONG_VALUE_CODES.has(issue.code))) out.add(issue.attribute);
  }
  return out;
}

/**
 * The attributes a readiness report shows missing or blocking, as fill the gaps counts them
 * ({@link gapsOf}): its `by_attribute`, the identifier attributes when some item has
 * `identifier_missing`, and `gtin` when a GTIN is invalid or restricted; sorted.
 */
export function gapAttributesOf(report: { by_attribute: Record<string, number>; blocked: Partial<Record<IssueCode, number>> }): string[] {
  const out = new Set(Object.keys(report.by_attribute));
  if (report.blocked.identifier_missing) for (const a of IDENTIFIER_ATTRIBUTES) out.add(a);
  for (const code of WRONG_VALUE_CODES) if (report.blocked[code]) out.add('gtin');
  return [...out].sort();
}

/**
 * The catalog field an attribute's mapping reads, or why there is none that enrichment could
 * fill: only a plain field of the catalog's schema (`name`, or an element `name[0]` of a list
 * field, which fills `name`) can be enriched.
 */
export function fieldOfAttribute(grid: GridCatalog, mapping: ChannelMapping, attribute: string): { field: string } | { reason: string } {
  const source = mapping[attribute];
  if (source === undefined) {
    if (attribute === 'item_group_id') return { reason: "derived: a variant's item_group_id is its product's id (the catalog's product id field)" };
    return { reason: `not mapped: no catalog field feeds ${attribute} (add a field and map it in the channel's feed)` };
  }
  if (typeof source !== 'string') {
    if ('value' in source) return { reason: `a constant in the mapping ("${source.value}"): change the mapping, not the items` };
    return { reason: `a template in the mapping ("${source.template}"): fill the fields it names instead` };
  }
  if (source.startsWith('$')) return { reason: `derived from the item's category (${source}): classify the items instead` };
  const name = FIELD_REF.exec(source)?.[1];
  if (!name || !Object.hasOwn(grid.types, name)) return { reason: `the mapping names "${source}", which is not a field of the catalog's schema` };
  return { field: name };
}

/**
 * Checks the asked attributes against the channel's.
 * @throws ValidationError (422) at `body.attributes.<i>` for each attribute the channel does not read
 */
function checkAttributes(channel: ChannelDefinition, asked: string[] | undefined): void {
  if (!asked) return;
  const known = new Set(channel.attributes.map((a) => a.name));
  const bad = asked.map((a, i) => ({ a, i })).filter(({ a }) => !known.has(a));
  if (bad.length)
    throw new ValidationError(
      bad.map(({ a, i }) => ({
        loc: ['body', 'attributes', i],
        msg: `${channel.name} has no attribute "${a}" (GET /api/public/channels lists its attributes)`,
        type: 'enum',
      })),
    );
}

/**
 * Plans fill the gaps for a channel: one readiness scan of the catalog (src/services/channels/readiness.ts)
 * counting, per attribute, the items that miss it ({@link gapsOf}), and keeping the ids of the
 * first `limit` items (id order) that miss a fillable one.
 * @param opts.attributes only these attributes (each must be one of the channel's); default every missing one
 * @param opts.limit the most items of the job (default and at most {@link FILL_GAPS_MAX_ITEMS})
 * @throws ValidationError (422) for an unknown channel or attribute, and when more than
 *   {@link FILL_GAPS_MAX_ITEMS} items match without a `limit`; NotFoundError / ForbiddenError for the catalog
 */
export async function planChannelGaps(
  deps: { knex: JobServiceDeps['knex']; caches: { catalog: CatalogCaches } },
  scope: Scope,
  catalogId: string,
  channelId: string,
  opts: ChannelGapsOptions = {},
): Promise<ChannelGapsPlan> {
  const basis = await readinessBasis(deps, scope, catalogId, channelId);
  const { channel, grid, mapping } = basis;
  checkAttributes(channel, opts.attributes);
  if (opts.limit !== undefined && opts.limit > FILL_GAPS_MAX_ITEMS)
    throw ValidationError.at(['body', 'limit'], `One job takes at most ${FILL_GAPS_MAX_ITEMS} items`, 'less_than_equal');
  const asked = opts.attributes ? new Set(opts.attributes) : null;
  const sources = new Map<string, { field: string } | { reason: string }>();
  const sourceOf = (a: string) => sources.get(a) ?? sources.set(a, fieldOfAttribute(grid, mapping, a)).get(a)!;
  const counts = new Map<string, number>();
  const cap = opts.limit ?? FILL_GAPS_MAX_ITEMS;
  const ids: string[] = [];
  let matching = 0;
  await scanChannelRows(deps.knex, grid, channel, mapping, basis.ctx, (scanned) => {
    let fillable = false;
    for (const a of gapsOf(scanned)) {
      if (asked && !asked.has(a)) continue;
      counts.set(a, (counts.get(a) ?? 0) + 1);
      if ('field' in sourceOf(a)) fillable = true;
    }
    if (!fillable) return;
    matching++;
    if (ids.length < cap) ids.push(scanned.item_id);
  });
  if (opts.limit === undefined && matching > FILL_GAPS_MAX_ITEMS)
    throw ValidationError.at(
      ['body', 'limit'],
      `${matching} items miss these attributes; one job takes at most ${FILL_GAPS_MAX_ITEMS}: give a limit or fewer attributes`,
    );
  const fillable: FillableAttribute[] = [];
  const notFillable: NotFillableAttribute[] = [];
  const attributes = [...new Set([...(opts.attributes ?? []), ...counts.keys()])].sort();
  for (const attribute of attributes) {
    const items = counts.get(attribute) ?? 0;
    const source = sourceOf(attribute);
    if (items === 0) notFillable.push({ attribute, reason: 'no item misses it or is blocked by it', items });
    else if ('field' in source) fillable.push({ attribute, field: source.field, items });
    else notFillable.push({ attribute, reason: source.reason, items });
  }
  const fields = [...new Set(fillable.map((f) => f.field))];
  const target: FillGapsTarget | null = ids.length
    ? {
        grid,
        where: { sql: 'catalog_id = ? AND id = ANY(?::uuid[])', bindings: [grid.catalog.id, ids] },
        fields,
        items: ids.length,
        before: await fieldFill(deps.knex, grid, fields),
      }
    : null;
  return {
    channel,
    mapping_source: basis.suggested ? 'proposed' : 'feed',
    feed_id: basis.feed?.id ?? null,
    fillable,
    not_fillable: notFillable,
    matching,
    target,
  };
}

/**
 * Starts the fill-the-gaps job of a channel ({@link planChannelGaps}): an enrichment job of the
 * planned items for the planned fields, staged on the catalog for review, its activity described
 * "Fill the gaps for <channel>" and keeping the channel and attributes in `metadata.fill_gaps`.
 * `idempotentId`: the job id an `Idempotency-Key` gives (a retry finds the job its first attempt created).
 * @returns the job and the plan
 * @throws as {@link planChannelGaps}; ConflictError (409) when nothing is fillable (every missing
 *   attribute maps from no plain field, or no item misses an asked one), its message naming each
 *   attribute and why; the errors of createEnrichmentJob (quota 429, 503)
 */
export async function startChannelGaps(
  deps: JobServiceDeps & { caches: { catalog: CatalogCaches } },
  scope: Scope,
  catalogId: string,
  channelId: string,
  opts: ChannelGapsOptions = {},
  idempotentId?: string,
): Promise<{ job: EnrichmentJob; plan: ChannelGapsPlan }> {
  const plan = await planChannelGaps(deps, scope, catalogId, channelId, opts);
  if (!plan.target) {
    const why = plan.not_fillable.map((n) => `${n.attribute}: ${n.reason}`).join('; ');
    throw new ConflictError(`Nothing to fill for ${plan.channel.name}${why ? `: ${why}` : ': no item misses a channel attribute'}`);
  }
  const attributes = plan.fillable.map((f) => f.attribute);
  const job = await startFillGapsJob(
    deps,
    scope,
    plan.target,
    { query: '', channel: { id: plan.channel.id, attributes }, description: `Fill the gaps for ${plan.channel.name}: ${attributes.join(', ')}` },
    idempotentId,
  );
  return { job, plan };
}
