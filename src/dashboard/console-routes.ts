import { actorNames } from '../services/access/people';
import type { DashboardRoute } from './route-table';
import type { Context } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { ValidationError, type ValidationDetail } from '../lib/errors';
import { Validator } from '../lib/validation';
import { taxonomyBody } from '../schemas/catalog-schema';
import type { ActiveSession } from '../services/access/sessions';
import { getCatalog } from '../services/catalog/catalogs';
import { loadItem } from '../services/catalog/items/items-read';
import { applyCatalogFieldBatch, getCatalogTaxonomy, putCatalogTaxonomy } from '../services/catalog/schema/schema-use-cases';
import { FIELD_TYPES } from '../models/catalog-schema';
import type { AddField, FieldBatch, UpdateField } from '../services/catalog/schema/schema-fields';
import { diffSchemaVersions, listSchemaVersions } from '../services/catalog/schema/schema-versions';
import { compareSnapshotWithNow } from '../services/catalog/snapshots/snapshot-compare';
import { getSnapshotRestore, requestSnapshotRestore } from '../services/catalog/snapshots/snapshot-restores';
import { createSnapshot, listSnapshots, loadSnapshot, type RestoreResult } from '../services/catalog/snapshots/snapshots';
import { stageItemEdit } from '../services/review/item-edit';
import { appliedItemChanges, itemSnapshotVersions } from '../services/review/item-history';
import { loadItemPage } from './item-data';
import { itemPage, itemPath, type ItemPageNotice } from './item-views';
import { NEW_FIELD_ROWS, schemaFields, schemaPage, schemaPath, type SchemaPageNotice } from './schema-views';
import { restoreProgressPage, restoreProgressPath } from './snapshot-restore-views';
import { restoreConfirmPage, snapshotsPage, snapshotsPath, type SnapshotsPageExtras } from './snapshots-views';
import type { DashboardRouteHelpers } from './route-helpers';
import { requestGridIndexDrops } from '../services/catalog/grid/grid-indexes';

/**
 * The console's item, snapshots and schema pages (docs/console.md "Item, snapshots, schema and taxonomy") on the dashboard router:
 * GET pages and form POSTs (CSRF-checked, answered with a 303 back to the page, or the page
 * again with a 422 and the problems). Every read and write goes through the catalog and review
 * services the API uses.
 */

/** The dashboard router's helpers these routes use (src/dashboard/routes.ts). */
export type ConsoleHelpers = DashboardRouteHelpers;

/** Largest taxonomy form the schema page takes, in bytes. */
const TAXONOMY_FORM_BYTES = 2 * 1024 * 1024;
/** Snapshots the page lists (newest first). */
const SNAPSHOTS_LISTED = 100;
/** Longest snapshot reason or schema change reason, in characters. */
const MAX_REASON_CHARS = 500;

function one(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v === '' ? undefined : v;
}

/** The value of an edit box for a field of `type`: JSON for arrays and objects, '' → null (clear), else the text (typed by the service). */
function editValue(text: string, type: string | null, field: string): unknown {
  if (text.trim() === '') return null;
  if (type !== 'array' && type !== 'object') return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError([{ loc: ['body', 'values', field], msg: `must be JSON (an ${type})`, type: 'value_error' }]);
  }
}

/** The old values a history entry restores: the fields that differ from the item now, null where the old item had none. */
async function restoreValues(deps: ResolvedAppDeps, catalogId: string, itemId: string, now: Record<string, unknown>, kind: string, id: string) {
  let old: Record<string, unknown> | null = null;
  let fields: string[] = [];
  if (kind === 'change') {
    const change = (await appliedItemChanges(deps.knex, catalogId, itemId)).find((c) => c.id === id);
    if (change) {
      old = change.before_data ?? {};
      const after = change.after_data ?? {};
      fields = [...new Set([...Object.keys(old), ...Object.keys(after)])].filter(
        (k) => (!change.accepted_fields || change.accepted_fields.includes(k)) && JSON.stringify(old?.[k]) !== JSON.stringify(after[k]),
      );
    }
  } else if (kind === 'snapshot') {
    const version = (await itemSnapshotVersions(deps.knex, catalogId, itemId)).find((v) => v.snapshot_id === id);
    if (version) {
      old = version.data;
      fields = [...new Set([...Object.keys(old), ...Object.keys(now)])];
    }
  }
  if (!old) throw new ValidationError([{ loc: ['body', 'id'], msg: 'No such entry in this item’s history', type: 'value_error' }]);
  const values: Record<string, unknown> = {};
  for (const k of fields) if (!k.startsWith('__') && JSON.stringify(old[k]) !== JSON.stringify(now[k])) values[k] = old[k] ?? null;
  if (!Object.keys(values).length) throw new ValidationError([{ loc: ['body', 'values'], msg: 'The item already has these values', type: 'value_error' }]);
  return values;
}

/** The batch field change (docs/api-reference.md "Batch field changes") of the schema page's fields form: removals, changed units/descriptions, filled new rows. */
function fieldBatch(form: URLSearchParams, current: Array<Record<string, unknown>>): FieldBatch {
  const remove = form.getAll('remove').filter((n) => current.some((f) => f.field_name === n));
  const update: UpdateField[] = [];
  for (const f of current) {
    const name = String(f.field_name);
    if (remove.includes(name)) continue;
    const patch: UpdateField = { field_name: name };
    const unit = form.get(`unit.${name}`);
    const description = form.get(`description.${name}`);
    if (unit !== null && unit.trim() !== String(f.unit ?? '')) patch.unit = unit.trim();
    if (description !== null && description.trim() !== String(f.description ?? '')) patch.description = description.trim();
    if (Object.keys(patch).length > 1) update.push(patch);
  }
  const add: AddField[] = [];
  const details: ValidationDetail[] = [];
  for (let i = 0; i < NEW_FIELD_ROWS; i++) {
    const name = (form.get(`new.${i}.name`) ?? '').trim();
    if (!name) continue;
    const type = form.get(`new.${i}.type`) ?? 'string';
    const scope = form.get(`new.${i}.scope`) ?? 'variant';
    if (!(FIELD_TYPES as readonly string[]).includes(type))
      details.push({ loc: ['body', 'fields_to_add', i, 'field_type'], msg: 'unknown type', type: 'value_error' });
    if (!['variant', 'product', 'both'].includes(scope))
      details.push({ loc: ['body', 'fields_to_add', i, 'scope'], msg: 'unknown scope', type: 'value_error' });
    const unit = (form.get(`new.${i}.unit`) ?? '').trim();
    const description = (form.get(`new.${i}.description`) ?? '').trim();
    add.push({
      field_name: name,
      field_type: type as AddField['field_type'],
      scope: scope as AddField['scope'],
      required: form.get(`new.${i}.required`) === '1',
      ...(unit ? { unit } : {}),
      ...(description ? { description } : {}),
    });
  }
  if (details.length) throw new ValidationError(details);
  if (!add.length && !update.length && !remove.length) throw new ValidationError([{ loc: ['body'], msg: 'Nothing to change', type: 'value_error' }]);
  const reason = (form.get('reason') ?? '').trim().slice(0, MAX_REASON_CHARS);
  return { fields_to_add: add, fields_to_update: update, fields_to_remove: remove, ...(reason ? { reason } : {}) };
}

/**
 * The item, snapshots and schema pages of the dashboard, as a route table (./route-table.ts) for its router.
 * Long on purpose: a route table, one entry per route.
 */
export function consoleRoutes(deps: ResolvedAppDeps, h: ConsoleHelpers): DashboardRoute[] {
  // The taxonomy form is validated with the API's own body schema (one validator per router).
  const validator = new Validator();
  const sessionOf = (ctx: Context) => ctx.state.dashboardSession as ActiveSession;

  // ---- Item page ----
  const showItem = async (ctx: Context, status: number, notice: ItemPageNotice) => {
    const s = sessionOf(ctx);
    h.send(ctx, status, itemPage(await loadItemPage(deps.knex, s.scope, ctx.params.catalog_id, ctx.params.item_id), notice, h.pageSession(s)));
  };
  const stageAndRedirect = async (ctx: Context, values: () => Promise<Record<string, unknown>>, restoredFrom?: { kind: 'change' | 'snapshot'; id: string }) => {
    const { catalog_id: catalogId, item_id: itemId } = ctx.params;
    try {
      const created = await stageItemEdit(deps, sessionOf(ctx).scope, catalogId, itemId, { values: await values(), restored_from: restoredFrom ?? null });
      ctx.status = 303;
      ctx.redirect(`${itemPath(catalogId, itemId)}?staged=${created.activity.id}`);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      await showItem(ctx, 422, { errors: err.details });
    }
  };

  // ---- Snapshots page ----
  const showSnapshots = async (ctx: Context, extras: SnapshotsPageExtras) => {
    const s = sessionOf(ctx);
    const { catalog } = await getCatalog(deps.knex, s.scope, ctx.params.catalog_id);
    const { snapshots, total } = await listSnapshots(deps.knex, s.scope, catalog.id, { limit: SNAPSHOTS_LISTED, offset: 0 });
    // Authors as people (docs/console.md "People and roles"): the person's name or email, or the key's prefix.
    const actors = Object.fromEntries(
      await actorNames(
        deps.knex,
        s.scope.organizationId,
        snapshots.map((x) => x.created_by),
      ),
    );
    h.send(ctx, 200, snapshotsPage(catalog, snapshots, total, { ...extras, actors }, h.pageSession(s)));
  };

  // ---- Schema and taxonomy page ----
  const showSchema = async (ctx: Context, status: number, notice: SchemaPageNotice) => {
    const s = sessionOf(ctx);
    const catalogId = ctx.params.catalog_id;
    const [{ catalog, schema }, versions, { taxonomy }] = await Promise.all([
      getCatalog(deps.knex, s.scope, catalogId),
      listSchemaVersions(deps.knex, s.scope, catalogId),
      getCatalogTaxonomy(deps, s.scope, catalogId),
    ]);
    const from = one(ctx.query.from);
    const to = one(ctx.query.to);
    const diff = from && to ? await diffSchemaVersions(deps.knex, s.scope, catalogId, from.slice(0, 50), to.slice(0, 50)) : null;
    const actors = Object.fromEntries(
      await actorNames(
        deps.knex,
        s.scope.organizationId,
        versions.map((v) => v.created_by),
      ),
    );
    h.send(ctx, status, schemaPage({ catalog, schema, versions, diff, taxonomy, actors }, notice, h.pageSession(s)));
  };
  return [
    {
      method: 'get',
      path: '/catalogs/:catalog_id/items/:item_id',
      handler: async (ctx) => {
        const staged = one(ctx.query.staged);
        await showItem(ctx, 200, { stagedActivityId: staged && /^[0-9a-f-]{36}$/i.test(staged) ? staged : undefined });
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/items/:item_id/edits',
      handler: async (ctx) => {
        const form = await h.readCheckedForm(ctx);
        await stageAndRedirect(ctx, async () => {
          const field = (form.get('field') ?? '').trim();
          if (!field) throw new ValidationError([{ loc: ['body', 'field'], msg: 'Name the field to edit', type: 'value_error' }]);
          const { schema } = await getCatalog(deps.knex, sessionOf(ctx).scope, ctx.params.catalog_id);
          const info = (schema.fields_workflow_info ?? []).find((f) => f.field_name === field);
          return { [field]: editValue(form.get('value') ?? '', info ? String(info.field_type) : null, field) };
        });
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/items/:item_id/restores',
      handler: async (ctx) => {
        const form = await h.readCheckedForm(ctx);
        const kind = form.get('kind') === 'snapshot' ? 'snapshot' : 'change';
        const id = form.get('id') ?? '';
        await stageAndRedirect(
          ctx,
          async () => {
            const item = await loadItem(deps.knex, sessionOf(ctx).scope, ctx.params.catalog_id, ctx.params.item_id);
            return restoreValues(deps, ctx.params.catalog_id, item.id, item.data ?? {}, kind, id);
          },
          { kind, id },
        );
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/snapshots',
      handler: async (ctx) => {
        const s = sessionOf(ctx);
        const compare = one(ctx.query.compare);
        const created = one(ctx.query.created);
        const restoredId = one(ctx.query.restored);
        let restored: RestoreResult | null = null;
        if (restoredId) {
          // The safety snapshot names the snapshot its restore restored (snapshot_links).
          const safety = await loadSnapshot(deps.knex, s.scope, ctx.params.catalog_id, restoredId);
          if (safety.snapshot_type === 'safety' && safety.restored_snapshot_id) {
            const target = await loadSnapshot(deps.knex, s.scope, ctx.params.catalog_id, safety.restored_snapshot_id);
            restored = { snapshot_id: target.id, safety_snapshot_id: safety.id, items_restored: target.item_count, schema_version: target.schema_version };
          }
        }
        await showSnapshots(ctx, {
          comparison: compare ? await compareSnapshotWithNow(deps.knex, s.scope, ctx.params.catalog_id, compare) : null,
          created: created && /^[0-9a-f-]{36}$/i.test(created) ? created : null,
          restored,
        });
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/snapshots',
      handler: async (ctx) => {
        const form = await h.readCheckedForm(ctx);
        const reason = (form.get('reason') ?? '').trim().slice(0, MAX_REASON_CHARS) || null;
        const snapshot = await createSnapshot(deps.knex, sessionOf(ctx).scope, ctx.params.catalog_id, reason);
        ctx.status = 303;
        ctx.redirect(`${snapshotsPath(ctx.params.catalog_id)}?created=${snapshot.id}`);
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/snapshots/:snapshot_id/restore',
      handler: async (ctx) => {
        const s = sessionOf(ctx);
        const { catalog } = await getCatalog(deps.knex, s.scope, ctx.params.catalog_id);
        const snapshot = await loadSnapshot(deps.knex, s.scope, catalog.id, ctx.params.snapshot_id);
        h.send(ctx, 200, restoreConfirmPage(catalog, snapshot, h.pageSession(s)));
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/snapshots/:snapshot_id/restore',
      handler: async (ctx) => {
        await h.readCheckedForm(ctx);
        // Starts (or joins) the restore's workflow and follows its progress: never waits here.
        const restore = await requestSnapshotRestore(deps, sessionOf(ctx).scope, ctx.params.catalog_id, ctx.params.snapshot_id);
        ctx.status = 303;
        ctx.redirect(restoreProgressPath(ctx.params.catalog_id, restore.id));
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/snapshots/restores/:restore_id',
      handler: async (ctx) => {
        const s = sessionOf(ctx);
        const restore = await getSnapshotRestore(deps.knex, s.scope, ctx.params.catalog_id, ctx.params.restore_id);
        if (restore.status === 'completed' && restore.result) {
          // Done: the snapshots page names the safety snapshot the restore took first.
          ctx.redirect(`${snapshotsPath(ctx.params.catalog_id)}?restored=${restore.result.safety_snapshot_id}`);
          return;
        }
        const { catalog } = await getCatalog(deps.knex, s.scope, ctx.params.catalog_id);
        h.send(ctx, 200, restoreProgressPage(catalog, restore, h.pageSession(s)));
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/schema',
      handler: async (ctx) => {
        const done = one(ctx.query.saved);
        await showSchema(ctx, 200, { message: done ? `Saved: schema version ${done.slice(0, 50)}.` : null });
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/schema/fields',
      handler: async (ctx) => {
        const form = await h.readCheckedForm(ctx);
        const s = sessionOf(ctx);
        try {
          const { schema } = await getCatalog(deps.knex, s.scope, ctx.params.catalog_id);
          const result = await applyCatalogFieldBatch(deps.knex, s.scope, ctx.params.catalog_id, fieldBatch(form, schemaFields(schema)));
          await requestGridIndexDrops(deps, { id: ctx.params.catalog_id, organization_id: s.scope.organizationId });
          ctx.status = 303;
          ctx.redirect(
            `${schemaPath(ctx.params.catalog_id)}?saved=${encodeURIComponent(result.new_schema_version)}&from=${encodeURIComponent(result.previous_schema_version)}&to=${encodeURIComponent(result.new_schema_version)}#versions`,
          );
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          await showSchema(ctx, 422, { errors: err.details });
        }
      },
    },
    {
      method: 'post',
      path: '/catalogs/:catalog_id/schema/taxonomy',
      handler: async (ctx) => {
        const form = await h.readCheckedForm(ctx, TAXONOMY_FORM_BYTES);
        const s = sessionOf(ctx);
        try {
          let input: unknown;
          try {
            input = JSON.parse(form.get('taxonomy') ?? '');
          } catch {
            throw new ValidationError([{ loc: ['body', 'taxonomy'], msg: 'must be JSON', type: 'value_error' }]);
          }
          const result = await putCatalogTaxonomy(deps, s.scope, ctx.params.catalog_id, validator.validate(taxonomyBody, input, 'body'));
          await requestGridIndexDrops(deps, { id: ctx.params.catalog_id, organization_id: s.scope.organizationId });
          ctx.status = 303;
          ctx.redirect(`${schemaPath(ctx.params.catalog_id)}?saved=${encodeURIComponent(result.version)}#taxonomy`);
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          await showSchema(ctx, 422, { errors: err.details });
        }
      },
    },
  ];
}
