/**
 * Fill the gaps: from the item grid filtered to "missing X" (`missing=X`,
 * `f.X=empty`) or "not ready for profile P" (`readiness=P&ready=no`), one action enriches
 * exactly those items for exactly the missing fields: the fields become the job's
 * `output_schema`, the catalog both its `source_catalog_id` narrowed to the grid's selection
 * (the rows are copied in one INSERT … SELECT, so a selection of any size up to
 * {@link FILL_GAPS_MAX_ITEMS} costs no request body) and its `catalog_id`, so the results are
 * staged on the job's review activity (./jobs.ts `createEnrichmentJob`). The completeness of those fields before the job is stored on
 * the activity (`metadata.fill_gaps`), so the completeness page can show before and after.
 */
import type { Knex } from 'knex';
import { ValidationError } from '../../../lib/errors';
import type { EnrichmentJob } from '../../../models/enrichment-job';
import { ReviewActivity } from '../../../models/review-activity';
import type { EnrichRequest, OutputFieldRequest } from '../../../schemas/enrich';
import type { Scope } from '../../access/scope';
import type { CatalogCaches } from '../../catalog/catalog-caches';
import { selectionOf, type Selection } from '../../catalog/grid/grid-selection';
import { loadGridCatalog, type GridCatalog } from '../../catalog/grid/item-grid';
import { emptySql, readWithoutJit, type SqlPart } from '../../catalog/grid/item-grid-query';
import { createEnrichmentJob, type JobServiceDeps } from './jobs';

/**
 * The largest selection one job from the console takes (fill the gaps, bulk enrich, classify):
 * a bound on one job's credits and review size, not on the request (the rows are copied in the
 * database).
 */
export const FILL_GAPS_MAX_ITEMS = 100_000;

/** Of one field, over the catalog's (top-level) items: how many have it filled, of how many. */
export interface FieldFill {
  filled: number;
  total: number;
}

/** What the fill-the-gaps action will do: the fields it fills and the items it enriches. */
export interface FillGapsPlan {
  grid: GridCatalog;
  selection: Selection;
  /** The missing fields: the output schema of the job. */
  fields: string[];
  /** Items the selection holds (the job's item count). */
  items: number;
  /** The catalog's completeness of each field now. */
  before: Record<string, FieldFill>;
}

/**
 * What a fill-the-gaps job enriches: the catalog, its items (SQL over `catalog_items` with its
 * bindings), the fields (the job's output schema), the item count and the fields' completeness
 * before the job. Made from a grid query ({@link planFillGaps}) or from a channel's missing
 * attributes (src/services/channels/fill-gaps.ts).
 */
export interface FillGapsTarget {
  grid: GridCatalog;
  where: SqlPart;
  fields: string[];
  items: number;
  before: Record<string, FieldFill>;
}

/** Where a fill-the-gaps job came from: the grid query, or the channel and the attributes it fills. */
export interface FillGapsOrigin {
  /** The grid query string ('' for a channel's gaps). */
  query: string;
  channel?: { id: string; attributes: string[] };
  /** The review activity's description (default: the enrichment job's own). */
  description?: string;
}

/** What `metadata.fill_gaps` of the job's activity keeps. */
export interface StoredFillGaps {
  query: string;
  fields: string[];
  items: number;
  before: Record<string, FieldFill>;
  channel?: { id: string; attributes: string[] };
}

/**
 * The fields a selection is missing: `missing=`, every `f.<field>=empty`, and for "not ready
 * for profile P" the profile's required fields.
 */
function missingFields(s: Selection): string[] {
  const out = new Set<string>();
  if (s.query.missing) out.add(s.query.missing);
  for (const f of s.query.filters) if (f.op === 'empty' && !f.negate) out.add(f.field);
  if (s.profile && s.query.readiness?.state === 'not_ready') for (const f of s.profile.required_fields) out.add(f);
  return [...out];
}

/** The catalog's completeness of `fields` now (top-level items, as the grid and completeness count). */
export async function fieldFill(knex: Knex, grid: GridCatalog, fields: string[]): Promise<Record<string, FieldFill>> {
  if (!fields.length) return {};
  const parts = fields.map((f) => emptySql(f));
  const top = grid.grouped ? ` AND parent_id IS NULL` : '';
  const { rows } = await readWithoutJit<Record<string, number>>(
    knex,
    `SELECT count(*)::int AS total, ${parts.map((p, i) => `count(*) FILTER (WHERE NOT ${p.sql})::int AS f${i}`).join(', ')}
     FROM catalog_items WHERE catalog_id = ?${top}`,
    [...parts.flatMap((p) => p.bindings), grid.catalog.id],
  );
  return Object.fromEntries(fields.map((f, i) => [f, { filled: rows[0][`f${i}`], total: rows[0].total }]));
}

/**
 * The plan of fill-the-gaps for a grid query string.
 * @throws NotFoundError / ForbiddenError for the catalog or the profile; ValidationError (422)
 *   when the filter names no missing field
 */
export async function planFillGaps(
  deps: { knex: Knex; caches: { catalog: CatalogCaches } },
  scope: Scope,
  catalogId: string,
  query: string,
): Promise<FillGapsPlan> {
  const grid = await loadGridCatalog(deps, scope, catalogId);
  const selection = await selectionOf(deps.knex, scope, grid, query);
  const fields = missingFields(selection);
  if (!fields.length)
    throw ValidationError.at(
      ['query', 'missing'],
      'Filter the grid to "missing <field>" or "not ready for <profile>" first: the filter names no missing field',
    );
  const { rows } = await readWithoutJit<{ n: number }>(
    deps.knex,
    `SELECT count(*)::int AS n FROM catalog_items WHERE ${selection.where.sql}`,
    selection.where.bindings,
  );
  return { grid, selection, fields, items: rows[0].n, before: await fieldFill(deps.knex, grid, fields) };
}

/** The enrich request's output field of a catalog field (its schema type, its description). */
function outputField(grid: GridCatalog, field: string): OutputFieldRequest {
  const prop = grid.schema.schema_definition.properties?.[field] as { description?: string } | undefined;
  const t = grid.types[field];
  const type = (['string', 'number', 'integer', 'boolean', 'array'] as const).find((x) => x === t) ?? 'string';
  return { name: field, type, description: prop?.description ?? `The item's ${field}` };
}

/**
 * Starts the fill-the-gaps enrichment job of a grid query string (see the file comment) and
 * records the completeness before on its activity. `only`: the missing fields to fill (the
 * page's pre-selected checkboxes; default all of them).
 * @returns the job id (= its review activity's id) and the plan
 * @throws as {@link planFillGaps}; ValidationError (422) when nothing matches or more than
 *   {@link FILL_GAPS_MAX_ITEMS} items do; the errors of `createEnrichmentJob` (quota 429, 503)
 */
export async function startFillGaps(
  deps: JobServiceDeps & { caches: { catalog: CatalogCaches } },
  scope: Scope,
  catalogId: string,
  query: string,
  only?: string[],
): Promise<{ jobId: string; plan: FillGapsPlan }> {
  const planned = await planFillGaps(deps, scope, catalogId, query);
  for (const f of only ?? [])
    if (!planned.fields.includes(f)) throw ValidationError.at(['body', 'field'], `"${f}" is not a missing field of this filter (${planned.fields.join(', ')})`);
  const plan = only?.length ? { ...planned, fields: planned.fields.filter((f) => only.includes(f)) } : planned;
  const jobId = (await startFillGapsJob(deps, scope, { ...plan, where: plan.selection.where }, { query })).id;
  return { jobId, plan };
}

/**
 * Starts the enrichment job of a fill-the-gaps target (see the file comment: its items copied
 * from the catalog, its fields the output schema, staged on the catalog for review) and records
 * the completeness before and the origin on its activity (`metadata.fill_gaps`, and the
 * description when the origin gives one). With `idempotentId` (an `Idempotency-Key`'s job id)
 * a retry after a crash finds the job its first attempt created (./jobs.ts createEnrichmentJob).
 * @returns the job (its id = its review activity's id)
 * @throws ValidationError (422) when the target selects nothing or more than
 *   {@link FILL_GAPS_MAX_ITEMS} items; the errors of createEnrichmentJob (quota 429, 503)
 */
export async function startFillGapsJob(
  deps: JobServiceDeps,
  scope: Scope,
  target: FillGapsTarget,
  origin: FillGapsOrigin,
  idempotentId?: string,
): Promise<EnrichmentJob> {
  const job = await enrichSelection(deps, scope, target.grid, target.where, target.fields, false, idempotentId);
  const jobId = job.id;
  const stored: StoredFillGaps = {
    query: origin.query,
    fields: target.fields,
    items: target.items,
    before: target.before,
    ...(origin.channel ? { channel: origin.channel } : {}),
  };
  await ReviewActivity.query(deps.knex)
    .findById(jobId)
    .patch({
      metadata: deps.knex.raw(`COALESCE(metadata, '{}'::jsonb) || ?::jsonb`, [JSON.stringify({ fill_gaps: stored })]) as never,
      ...(origin.description ? { description: origin.description } : {}),
    });
  return job;
}

/**
 * Starts an enrichment job of a selection's items (`where`, SQL over `catalog_items`; at most
 * {@link FILL_GAPS_MAX_ITEMS}, copied from the catalog as the job's rows) for `fields` (the
 * output schema) and, with `classify`, taxonomy classification (`predict_taxonomy`), staged on
 * the catalog. Classification alone (no fields) is a `web_search: false` job: the classifier
 * reads the items' own data. `idempotentId`: as createEnrichmentJob's.
 * @returns the job
 * @throws ValidationError (422) when nothing matches or too many items do; the errors of createEnrichmentJob
 */
async function enrichSelection(
  deps: JobServiceDeps,
  scope: Scope,
  grid: GridCatalog,
  where: SqlPart,
  fields: string[],
  classify: boolean,
  idempotentId?: string,
): Promise<EnrichmentJob> {
  const { rows } = await readWithoutJit<{ n: number }>(deps.knex, `SELECT count(*)::int AS n FROM (SELECT 1 FROM catalog_items WHERE ${where.sql} LIMIT ?) s`, [
    ...where.bindings,
    FILL_GAPS_MAX_ITEMS + 1,
  ]);
  const n = rows[0].n;
  if (n === 0) throw ValidationError.at(['query'], 'No item matches the filter: nothing to enrich');
  if (n > FILL_GAPS_MAX_ITEMS)
    throw ValidationError.at(
      ['query'],
      `More than ${FILL_GAPS_MAX_ITEMS.toLocaleString('en-US')} items match; one job from the console takes at most ${FILL_GAPS_MAX_ITEMS.toLocaleString('en-US')}: narrow the filter`,
    );
  const req = {
    source_catalog_id: grid.catalog.id,
    catalog_id: grid.catalog.id,
    async_mode: true,
    output_schema: fields.map((f) => outputField(grid, f)),
    ...(classify ? { predict_taxonomy: true } : {}),
    // Classification alone reads the items' own data: nothing to research on the web.
    ...(classify && !fields.length ? { web_search: false } : {}),
  } as EnrichRequest;
  return (await createEnrichmentJob(deps, scope, req, undefined, where, idempotentId)).job;
}

/**
 * The bulk actions "enrich" and "classify" on every item of a grid query string:
 * an enrichment job for `fields` and, with `classify`, taxonomy classification.
 * @returns the job id (= its review activity's id)
 * @throws ValidationError (422) for an unknown field, nothing asked, classification without a
 *   taxonomy, or a selection that is empty or too large; NotFoundError / ForbiddenError
 */
export async function startSelectionEnrichment(
  deps: JobServiceDeps & { caches: { catalog: CatalogCaches } },
  scope: Scope,
  catalogId: string,
  query: string,
  opts: { fields: string[]; classify: boolean },
): Promise<string> {
  const grid = await loadGridCatalog(deps, scope, catalogId);
  for (const f of opts.fields) if (!Object.hasOwn(grid.types, f)) throw ValidationError.at(['body', 'field'], `No field "${f}" in the catalog`);
  if (!opts.fields.length && !opts.classify) throw ValidationError.at(['body', 'field'], 'Choose fields to enrich, or classification');
  if (opts.classify && !grid.taxonomy) throw ValidationError.at(['body', 'classify'], 'The catalog has no taxonomy to classify into');
  const selection = await selectionOf(deps.knex, scope, grid, query);
  return (await enrichSelection(deps, scope, grid, selection.where, opts.fields, opts.classify)).id;
}

/** A completed fill-the-gaps job of a catalog, with its fields' completeness before and now. */
export interface FillGapsOutcome {
  activity_id: string;
  description: string | null;
  status: string;
  fields: string[];
  items: number;
  before: Record<string, FieldFill>;
  after: Record<string, FieldFill>;
}

/**
 * The catalog's fill-the-gaps jobs whose changes were applied (newest first, at most `limit`):
 * each field's completeness before the job and now.
 */
export async function fillGapsOutcomes(knex: Knex, grid: GridCatalog, limit = 5): Promise<FillGapsOutcome[]> {
  const acts = await ReviewActivity.query(knex)
    .where({ catalog_id: grid.catalog.id, status: 'completed' })
    .whereRaw("jsonb_exists(metadata, 'fill_gaps')")
    .orderBy('updated_at', 'desc')
    .limit(limit);
  const out: FillGapsOutcome[] = [];
  for (const a of acts) {
    const fg = (a.metadata as { fill_gaps: StoredFillGaps }).fill_gaps;
    const fields = fg.fields.filter((f) => Object.hasOwn(grid.types, f));
    out.push({
      activity_id: a.id,
      description: a.description,
      status: a.status,
      fields,
      items: fg.items,
      before: fg.before,
      after: await fieldFill(knex, grid, fields),
    });
  }
  return out;
}
