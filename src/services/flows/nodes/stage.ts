/**
 * The `stage` node (docs/api-review.md "Flows"): the rows reaching it become staged
 * changes of ONE review activity of the flow's catalog (type `custom_transform`, metadata
 * `{source: 'flow', flow_id, run_id}`), then the activity goes to `pending_review` with its
 * `review_url`, so a flow's output is reviewed and applied like any other activity.
 *
 * Per row (one look-up of the page's items, set-based):
 * - the item is the one named by `__catalog_item_id`, else the one whose business key (the
 *   catalog's `unique_id_field`) the row holds;
 * - for an item: only the fields whose values differ become the change (`before_data` = the
 *   item's values, `after_data` = the row's), a row equal to its item stages nothing;
 * - otherwise the row is a new item;
 * - keys starting with `__` are flow metadata, never item data; `__enrichment` (an enrich
 *   node's result without its data) becomes the change's `source_data` and `review_info`, the
 *   same provenance an enrichment job stages (src/services/enrichment/rows/staging.ts `stagedProvenance`).
 * The node's output is its input (what reached the catalog's review).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import { isUuid, newId } from '../../../lib/ids';
import { Catalog } from '../../../models/catalog';
import { FlowRun } from '../../../models/flow-run';
import { FlowRunNode } from '../../../models/flow-run-node';
import { ReviewActivity } from '../../../models/review-activity';
import type { StagedChangeInputT } from '../../../schemas/review-activities';
import type { EnrichmentResult } from '../../../enrichment/types';
import { businessKeyOf, itemsByIdOrKey } from '../../catalog/items/items-keys';
import { stagedProvenance } from '../../enrichment/rows/staging';
import { appendInTransaction, reviewUrl } from '../../review/review-activities';
import type { StageDeps } from '../../review/stage-changes';
import { countStaged } from '../../review/staged-changes';
import { appendUpdates, completeNode, forEachInputPage, NodeContext, NodeFailure } from '../execution';
import type { FlowRow } from '../rows';

/** What the stage node needs: the database, the item validators' cache and the public URL (for `review_url`). */
export interface StageNodeDeps extends StageDeps {
  knex: Knex;
  publicUrl: string;
}

/** A catalog item as the stage look-up reads it. */
interface StageItem {
  id: string;
  business_key: string | null;
  current_version: number;
  data: Record<string, unknown>;
}

/** The node's review activity: the one it made in an earlier attempt, else a new one (locked with the node row, so only one is made). */
async function ensureActivity(knex: Knex, ctx: NodeContext): Promise<ReviewActivity> {
  return knex.transaction(async (trx) => {
    const node = await FlowRunNode.query(trx).findById([ctx.run.id, ctx.node.node_id]).forUpdate().throwIfNotFound();
    if (node.activity_id) return ReviewActivity.query(trx).findById(node.activity_id).throwIfNotFound();
    const config = ctx.run.nodes.find((n) => n.id === ctx.node.node_id)?.config ?? {};
    const catalogId = String(config.catalog_id ?? ctx.run.catalog_id ?? '');
    const catalog = isUuid(catalogId) ? await Catalog.query(trx).findById(catalogId) : undefined;
    if (!catalog || catalog.organization_id !== ctx.run.organization_id)
      throw new NodeFailure(`The flow's catalog ${catalogId || '(none)'} does not exist: nothing to stage into`);
    const message = `Flow run ${ctx.run.id}: ${ctx.input.output_count} rows`;
    const activity = await ReviewActivity.query(trx).insertAndFetch({
      id: newId(),
      organization_id: ctx.run.organization_id,
      catalog_id: catalog.id,
      type: 'custom_transform',
      status: 'created',
      description: message,
      last_message: message,
      metadata: { source: 'flow', flow_id: ctx.run.flow_id, run_id: ctx.run.id, node_id: ctx.node.node_id },
      input_data: { activity_message: message },
    });
    await FlowRunNode.query(trx).findById([ctx.run.id, ctx.node.node_id]).patch({ activity_id: activity.id });
    await FlowRun.query(trx).findById(ctx.run.id).patch({ activity_id: activity.id });
    return activity;
  });
}

/** The page's items, by id and by business key, in one statement. */
async function lookUpItems(knex: Knex, catalog: Catalog, rows: FlowRow[]): Promise<{ byId: Map<string, StageItem>; byKey: Map<string, StageItem> }> {
  const ids = rows.map((r) => r.__catalog_item_id).filter((v): v is string => typeof v === 'string' && isUuid(v));
  const keys = rows.map((r) => businessKeyOf(r, catalog.unique_id_field)).filter((k): k is string => k !== null);
  const where = itemsByIdOrKey(catalog.id, ids, keys);
  const found: StageItem[] =
    ids.length || keys.length
      ? (await knex.raw(`SELECT id, business_key, current_version, data FROM catalog_items WHERE ${where.sql}`, where.bindings)).rows
      : [];
  return {
    byId: new Map(found.map((i) => [i.id, i])),
    byKey: new Map(found.filter((i) => i.business_key !== null).map((i) => [i.business_key as string, i])),
  };
}

/** The staged change of one row, or null when the row equals its item (see the file comment). */
function changeOf(row: FlowRow, item: StageItem | undefined): StagedChangeInputT | null {
  const data = Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith('__')));
  const enrichment = row.__enrichment && typeof row.__enrichment === 'object' ? stagedProvenance(row.__enrichment as EnrichmentResult) : null;
  const provenance = enrichment ? { source_data: enrichment.source_data, review_info: enrichment.review_info } : {};
  if (!item) return { after_data: data, ...provenance, is_new_item: true };
  const changed = Object.keys(data).filter((k) => !isDeepStrictEqual(data[k], item.data[k]));
  if (!changed.length) return null;
  return {
    catalog_item_id: item.id,
    before_data: Object.fromEntries(changed.map((k) => [k, item.data[k] ?? null])),
    after_data: Object.fromEntries(changed.map((k) => [k, data[k]])),
    ...provenance,
    base_version: item.current_version,
  };
}

/**
 * Runs a `stage` node of a begun node context (see the file comment): every remaining input page
 * staged as one idempotent batch (`flow:<run>:<node>:<page>`), then the activity to pending_review.
 * @returns the node's output row count (the node is marked completed)
 * @throws NodeFailure when the catalog is gone or the activity was closed meanwhile
 */
export async function runStageNode(deps: StageNodeDeps, ctx: NodeContext, beat: (page: number) => void): Promise<number> {
  const { knex } = deps;
  const activity = await ensureActivity(knex, ctx);
  const catalog = await Catalog.query(knex)
    .findById(activity.catalog_id as string)
    .throwIfNotFound();
  const count = await forEachInputPage(
    knex,
    ctx,
    async (rows) => {
      const { byId, byKey } = await lookUpItems(knex, catalog, rows);
      const changes = rows
        .map((r) => {
          const id = typeof r.__catalog_item_id === 'string' ? r.__catalog_item_id : null;
          const key = businessKeyOf(r, catalog.unique_id_field);
          return changeOf(r, (id ? byId.get(id) : undefined) ?? (key !== null ? byKey.get(key) : undefined));
        })
        .filter((c): c is StagedChangeInputT => c !== null);
      return { rows, changes };
    },
    async (trx, out, page) => {
      const locked = await ReviewActivity.query(trx).findById(activity.id).forUpdate().throwIfNotFound();
      if (locked.status !== 'created') throw new NodeFailure(`The flow's review activity ${activity.id} is ${locked.status}`);
      await appendInTransaction(trx, deps, locked, out.changes, `flow:${ctx.run.id}:${ctx.node.node_id}:${page}`);
    },
    beat,
  );
  const staged = await countStaged(knex, activity.id);
  const message = `Flow run ${ctx.run.id}: ${count} rows, ${staged} changes staged for review`;
  await knex.transaction(async (trx) => {
    await ReviewActivity.query(trx)
      .findById(activity.id)
      .where({ status: 'created' })
      .patch({
        status: 'pending_review',
        last_message: message,
        output: { flow_id: ctx.run.flow_id, run_id: ctx.run.id, rows: count, staged_changes: staged },
        updated_at: trx.fn.now(),
      });
    await appendUpdates(trx, ctx.run.id, [`[${ctx.node.node_id}] ${staged} changes staged for review: ${reviewUrl(deps.publicUrl, catalog.id, activity.id)}`]);
  });
  await completeNode(knex, ctx, count);
  return count;
}
