/**
 * Bulk actions of the catalog console: set, clear or append a value of a field,
 * move to a taxonomy node, or delete, for every item matching an item-grid query. Each bulk
 * action is a review activity (type `custom_transform`, `metadata.source` `bulk_action`) whose
 * staged changes preview every change; it is applied by the durable apply
 * (workflows/review-apply.ts), so its `pre_apply` snapshot undoes it.
 *
 * Staging "all matching" can be large, so it never runs in the page request: the request
 * creates the activity (`created`, the action in `input_data.bulk_action`) and starts the
 * `bulk-stage-<activity_id>` workflow (workflows/bulk-stage.ts), which stages the items page by
 * page (keyset on id) through {@link stageBulkPage}: the append path (./activities.ts
 * `appendInTransaction`, the validation of ./stage-changes.ts) with one batch key per page, so a
 * retried page stages nothing twice. The workflow then moves the activity to `pending_review`.
 *
 * A bulk action only ever adds a new activity with new `pending` changes: it never changes
 * another activity's changes, so a reviewer's explicit decision (a rejection, a partial accept)
 * stands (docs/review.md "Decisions stand").
 */
import type { Knex } from 'knex';
import { ConflictError, ValidationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ReviewActivity } from '../../models/review-activity';
import type { StagedChangeInputT } from '../../schemas/review-activities';
import type { Scope } from '../access/scope';
import type { CatalogCaches } from '../catalog/catalog-caches';
import { loadGridCatalog, type GridCatalog } from '../catalog/grid/item-grid';
import { countSelected, selectionOf } from '../catalog/grid/grid-selection';
import { appendInTransaction, reviewUrl } from './review-activities';
import { CATEGORY_FIELD } from './apply-category';

/** The bulk actions that stage changes (export, enrich and classify have their own paths). */
export const BULK_ACTIONS = ['set', 'clear', 'append', 'move', 'delete'] as const;
/** One of {@link BULK_ACTIONS}. */
export type BulkEditAction = (typeof BULK_ACTIONS)[number];

/** Items staged per page of the staging workflow (one transaction each). */
export const BULK_STAGE_PAGE = 500;

/** A bulk action as asked: the grid query (URL query string) and what to do to its items. */
export interface BulkEditInput {
  action: BulkEditAction;
  /** The grid's URL query (`missing=color&f.brand=eq:Acme`); its paging and columns are ignored. */
  query: string;
  /** The field to set, clear or append to (not for `move` / `delete`). */
  field?: string | null;
  /** The value to set or append (typed by the field's type when staged); for `move` the taxonomy node id. */
  value?: string | null;
}

/** What the activity stores of a bulk action (`input_data.bulk_action`). */
export interface StoredBulkAction {
  action: BulkEditAction;
  query: string;
  field: string | null;
  value: string | null;
  /** Items matching when the action was asked. */
  matching: number;
}

/** Deps of the bulk action services: the database, the catalog caches and the public URL. */
export interface BulkEditDeps {
  knex: Knex;
  caches: { catalog: CatalogCaches };
  config: { publicUrl: string };
}

/** The created bulk action: its activity, how many items it will stage, its review page. */
export interface CreatedBulkAction {
  activity: ReviewActivity;
  matching: number;
  reviewUrl: string;
}

/**
 * Checks a bulk action against the catalog: the action, its field (a field of the grid) and
 * value (a `move` names a taxonomy node of the catalog).
 * @throws ValidationError (422) at `body.<name>` for what is wrong
 */
function checkInput(grid: GridCatalog, input: BulkEditInput): void {
  if (!(BULK_ACTIONS as readonly string[]).includes(input.action)) throw ValidationError.at(['body', 'action'], `Unknown bulk action "${input.action}"`);
  if (input.action === 'move') {
    if (!input.value || !grid.taxonomy?.nodes[input.value])
      throw ValidationError.at(['body', 'value'], `No taxonomy node "${input.value ?? ''}" in this catalog`);
    return;
  }
  if (input.action === 'delete') return;
  if (!input.field || !Object.hasOwn(grid.types, input.field)) throw ValidationError.at(['body', 'field'], `No field "${input.field ?? ''}" in the catalog`);
  if ((input.action === 'set' || input.action === 'append') && (input.value ?? '') === '')
    throw ValidationError.at(['body', 'value'], `A value is needed to ${input.action}`);
}

/** A one-line description of a bulk action, for the activity's title. */
export function describeBulkAction(a: Pick<StoredBulkAction, 'action' | 'field' | 'value' | 'matching'>): string {
  const items = `${a.matching} item${a.matching === 1 ? '' : 's'}`;
  switch (a.action) {
    case 'set':
      return `Bulk action: set ${a.field} to "${a.value}" on ${items}`;
    case 'clear':
      return `Bulk action: clear ${a.field} on ${items}`;
    case 'append':
      return `Bulk action: append "${a.value}" to ${a.field} on ${items}`;
    case 'move':
      return `Bulk action: move ${items} to taxonomy node ${a.value}`;
    default:
      return `Bulk action: delete ${items}`;
  }
}

/**
 * Creates the review activity of a bulk action (status `created`, nothing staged yet); the caller
 * starts its staging workflow.
 * @throws NotFoundError / ForbiddenError for the catalog; ValidationError (422) for the query or
 *   the action; ConflictError (409) when no item matches
 */
export async function createBulkAction(deps: BulkEditDeps, scope: Scope, catalogId: string, input: BulkEditInput): Promise<CreatedBulkAction> {
  const grid = await loadGridCatalog(deps, scope, catalogId);
  checkInput(grid, input);
  const matching = await countSelected(deps.knex, scope, grid, input.query);
  if (matching === 0) throw new ConflictError('No item matches the filter: nothing to do');
  const stored: StoredBulkAction = {
    action: input.action,
    query: input.query,
    field: input.action === 'move' ? CATEGORY_FIELD : input.action === 'delete' ? null : (input.field ?? null),
    value: input.action === 'clear' || input.action === 'delete' ? null : (input.value ?? null),
    matching,
  };
  const description = describeBulkAction(stored);
  const activity = await ReviewActivity.query(deps.knex).insertAndFetch({
    id: newId(),
    organization_id: scope.organizationId,
    catalog_id: catalogId,
    type: 'custom_transform',
    status: 'created',
    description,
    last_message: description,
    input_data: { activity_message: description, bulk_action: stored },
    metadata: { source: 'bulk_action', bulk_action: stored },
  });
  return { activity, matching, reviewUrl: reviewUrl(deps.config.publicUrl, catalogId, activity.id) };
}

/** The value of `field` after appending `value` to `current` (a list gains the element; text gains it after a space). */
function appended(current: unknown, value: string): unknown {
  if (Array.isArray(current)) return [...current, value];
  if (current === null || current === undefined || current === '') return value;
  return `${String(current)} ${value}`;
}

/** The staged change of one item under a bulk action. */
function changeOf(a: StoredBulkAction, item: { id: string; current_version: number; data: Record<string, unknown> }, type: string): StagedChangeInputT {
  const base = { catalog_item_id: item.id, before_data: item.data, base_version: item.current_version };
  if (a.action === 'delete') return { ...base, is_delete: true, after_data: {} };
  const field = a.field as string;
  if (a.action === 'clear') {
    // Cleared = the key removed (apply's removals); an item left with no field at all would read
    // as a delete (docs/api-review.md "Staged changes"), so that one keeps the field as null instead.
    const { [field]: _cleared, ...rest } = item.data;
    return { ...base, after_data: Object.keys(rest).length ? rest : { [field]: null } };
  }
  let value: unknown;
  if (a.action === 'append') value = appended(item.data[field], a.value as string);
  else value = type === 'array' ? [a.value] : a.value;
  return { ...base, after_data: { ...item.data, [field]: value } };
}

/** Scope of the organization that owns an activity (the worker acts for it). */
function scopeOf(activity: ReviewActivity): Scope {
  return { organizationId: activity.organization_id, principal: { kind: 'api_key', id: 'bulk-action', organizationIds: [activity.organization_id] } };
}

/**
 * Stages one page of a bulk action: the next {@link BULK_STAGE_PAGE} matching items after item
 * id `after` (keyset on id), in one transaction with the activity locked, under the batch key
 * `bulk:<after>` (a retried page stages nothing twice).
 * An activity cancelled meanwhile stops the staging (nothing staged, no next page).
 * @returns how many were staged and the id to continue after (null when this was the last page)
 * @throws ConflictError (409) when the activity is not open or is not a bulk action
 */
export async function stageBulkPage(
  deps: Omit<BulkEditDeps, 'config'>,
  activityId: string,
  after: string | null,
): Promise<{ staged: number; next: string | null }> {
  return deps.knex.transaction(async (trx) => {
    const activity = await ReviewActivity.query(trx).findById(activityId).forUpdate().throwIfNotFound();
    const stored = (activity.input_data as { bulk_action?: StoredBulkAction } | null)?.bulk_action;
    if (!stored || !activity.catalog_id) throw new ConflictError('Not a bulk action');
    // Cancelled (or otherwise closed) while staging: the workflow stops, staging nothing more.
    if (['cancelled', 'failed', 'completed'].includes(activity.status)) return { staged: 0, next: null };
    const scope = scopeOf(activity);
    const grid = await loadGridCatalog({ knex: trx, caches: deps.caches }, scope, activity.catalog_id);
    const { where } = await selectionOf(trx, scope, grid, stored.query);
    const rows = (
      await trx.raw(`SELECT id, current_version, data FROM catalog_items WHERE ${where.sql} ${after ? 'AND id > ?' : ''} ORDER BY id LIMIT ?`, [
        ...where.bindings,
        ...(after ? [after] : []),
        BULK_STAGE_PAGE,
      ])
    ).rows as Array<{ id: string; current_version: number; data: Record<string, unknown> }>;
    const type = stored.field ? (grid.types[stored.field] ?? 'string') : 'string';
    const changes = rows.map((r) => changeOf(stored, r, type));
    const res = await appendInTransaction(trx, { caches: deps.caches }, activity, changes, `bulk:${after ?? 'start'}`);
    return { staged: res.appended_count, next: rows.length === BULK_STAGE_PAGE ? rows[rows.length - 1].id : null };
  });
}

/**
 * Ends the staging of a bulk action: a `created` activity becomes `pending_review` (idempotent).
 * @returns how many changes the activity stages
 */
export async function finishBulkStaging(knex: Knex, activityId: string): Promise<number> {
  await ReviewActivity.query(knex).findById(activityId).where({ status: 'created' }).patch({ status: 'pending_review', updated_at: knex.fn.now() });
  const [{ n }] = (await knex('staged_changes').where({ activity_id: activityId }).count({ n: '*' })) as Array<{ n: string }>;
  return Number(n);
}

/** Records that staging a bulk action failed for good: a `created` activity becomes `failed` with the reason as its last message (idempotent). */
export async function failBulkStaging(knex: Knex, activityId: string, error: string): Promise<void> {
  await ReviewActivity.query(knex)
    .findById(activityId)
    .where({ status: 'created' })
    .patch({ status: 'failed', last_message: `Staging failed: ${error}`.slice(0, 4000), updated_at: knex.fn.now() });
}
