import type { Knex } from 'knex';
import type { Model, ModelClass } from 'objection';
import { ForbiddenError, NotFoundError } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import type { Scope } from './scope';

/**
 * Loads one row by id for the scope's organization (docs/api-reference.md "Authentication"): unknown id → 404 with
 * `notFound`; a row of another organization → 403. Malformed ids are unknown ids.
 * @param model the Objection model of the table (docs/architecture.md: row-level reads go through models)
 * @returns the model instance
 */
export async function loadOwned<T extends { organization_id: string }>(
  knex: Knex | Knex.Transaction,
  model: ModelClass<Model & T>,
  id: string,
  scope: Scope,
  notFound: string,
): Promise<T> {
  if (!isUuid(id)) throw new NotFoundError(notFound);
  const row = (await model.query(knex).findById(id)) as T | undefined;
  if (!row) throw new NotFoundError(notFound);
  if (row.organization_id !== scope.organizationId) throw new ForbiddenError();
  return row;
}
