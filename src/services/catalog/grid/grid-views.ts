/**
 * Saved item grid views: named columns and query per catalog and owner (the
 * signed-in principal, `actorId`), private or shared with the organization's other users of the
 * catalog. The owner alone replaces (same name) or deletes a view.
 */
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../lib/errors';
import { isUuid, newId } from '../../../lib/ids';
import { ItemGridView, type ItemGridViewQuery } from '../../../models/item-grid-view';
import { actorId } from '../../access/auth';
import type { Scope } from '../../access/scope';
import { loadCatalogOwned } from '../catalogs';

/** Longest view name, in characters. */
const NAME_MAX = 120;

/** What saving a view takes. */
export interface SaveGridViewInput {
  name: string;
  shared: boolean;
  columns: string[];
  query: ItemGridViewQuery;
}

/** The views of a catalog `scope`'s principal may use: its own and the shared ones, by name. */
export async function listGridViews(knex: Knex, scope: Scope, catalogId: string): Promise<ItemGridView[]> {
  await loadCatalogOwned(knex, scope, catalogId);
  return ItemGridView.query(knex)
    .where('catalog_id', catalogId)
    .where((w) => w.where('owner', actorId(scope)).orWhere('shared', true))
    .orderBy([{ column: 'name' }, { column: 'id' }]);
}

/**
 * One usable view of the catalog.
 * @throws NotFoundError (404) for an unknown view, another catalog's, or another owner's private one
 */
export async function getGridView(knex: Knex, scope: Scope, catalogId: string, viewId: string): Promise<ItemGridView> {
  await loadCatalogOwned(knex, scope, catalogId);
  const view = isUuid(viewId) ? await ItemGridView.query(knex).findById(viewId) : undefined;
  if (!view || view.catalog_id !== catalogId || (!view.shared && view.owner !== actorId(scope))) throw new NotFoundError('Grid view not found');
  return view;
}

/**
 * Saves a view under `name` for `scope`'s principal, replacing its own view of that name.
 * @throws ValidationError (422) for a blank or too long name, or no columns
 */
export async function saveGridView(knex: Knex, scope: Scope, catalogId: string, input: SaveGridViewInput): Promise<ItemGridView> {
  await loadCatalogOwned(knex, scope, catalogId);
  const name = input.name.trim();
  if (!name || name.length > NAME_MAX) throw ValidationError.at(['body', 'name'], `A name of 1 to ${NAME_MAX} characters`);
  if (!input.columns.length) throw ValidationError.at(['body', 'columns'], 'Choose at least one column');
  const row = { name, shared: input.shared, columns: input.columns, query: input.query, updated_at: new Date() };
  return knex.transaction(async (trx) => {
    const existing = await ItemGridView.query(trx)
      .where({ catalog_id: catalogId, owner: actorId(scope), name })
      .forUpdate()
      .first();
    if (existing) return ItemGridView.query(trx).patchAndFetchById(existing.id, row);
    return ItemGridView.query(trx).insertAndFetch({ id: newId(), catalog_id: catalogId, owner: actorId(scope), ...row });
  });
}

/**
 * Deletes a view.
 * @throws NotFoundError (404) as {@link getGridView}; ForbiddenError (403) for a shared view of another owner
 */
export async function deleteGridView(knex: Knex, scope: Scope, catalogId: string, viewId: string): Promise<void> {
  const view = await getGridView(knex, scope, catalogId, viewId);
  if (view.owner !== actorId(scope)) throw new ForbiddenError('Only the one who saved a view deletes it');
  await ItemGridView.query(knex).deleteById(view.id);
}
