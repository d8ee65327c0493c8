/**
 * Readiness profiles of a catalog: a named set of required fields and rules (e.g.
 * "Marketplace A"), stored per catalog. Rules are grid filters (`field op value`,
 * src/services/catalog/grid/item-grid-query.ts) the item must pass; fields must be the schema's.
 */
import type { Knex } from 'knex';
import { NotFoundError, ValidationError, type ValidationDetail } from '../../../lib/errors';
import { isUuid, newId } from '../../../lib/ids';
import { ReadinessProfile, type ReadinessRule } from '../../../models/readiness-profile';
import { actorId } from '../../access/auth';
import type { Scope } from '../../access/scope';
import { loadCatalogOwned } from '../catalogs';
import { filterConditionSql } from './item-grid-query';
import { getCurrentSchema, fieldTypeOf } from '../schema/schema';

/** Operators a rule may use (`empty` would make a profile nothing could be ready for). */
export const RULE_OPS: ReadonlyArray<ReadinessRule['op']> = ['notempty', 'eq', 'contains', 'range', 'in'];

/** What creating a profile takes. */
export interface ReadinessProfileInput {
  name: string;
  description?: string | null;
  required_fields: string[];
  rules: ReadinessRule[];
}

/** The catalog's profiles, by name. */
export async function listReadinessProfiles(knex: Knex, scope: Scope, catalogId: string): Promise<ReadinessProfile[]> {
  await loadCatalogOwned(knex, scope, catalogId);
  return ReadinessProfile.query(knex)
    .where('catalog_id', catalogId)
    .orderBy([{ column: 'name' }, { column: 'id' }]);
}

/**
 * One profile of the catalog.
 * @throws NotFoundError (404) for an unknown profile or another catalog's
 */
export async function getReadinessProfile(knex: Knex, scope: Scope, catalogId: string, profileId: string): Promise<ReadinessProfile> {
  await loadCatalogOwned(knex, scope, catalogId);
  const p = isUuid(profileId) ? await ReadinessProfile.query(knex).findById(profileId) : undefined;
  if (!p || p.catalog_id !== catalogId) throw new NotFoundError('Readiness profile not found');
  return p;
}

/**
 * Creates a profile.
 * @throws ValidationError (422) for a blank name, fields not in the schema, unknown rule operators
 *   or values they cannot read, nothing required, or a name the catalog already has a profile of
 * @throws NotFoundError (404) / ForbiddenError (403) for the catalog
 */
export async function createReadinessProfile(knex: Knex, scope: Scope, catalogId: string, input: ReadinessProfileInput): Promise<ReadinessProfile> {
  await loadCatalogOwned(knex, scope, catalogId);
  const schema = await getCurrentSchema(knex, catalogId);
  const properties = schema.schema_definition.properties ?? {};
  const details: ValidationDetail[] = [];
  const name = input.name.trim();
  if (!name || name.length > 120) details.push({ loc: ['body', 'name'], msg: 'A name of 1 to 120 characters', type: 'value_error' });
  const fields = [...new Set(input.required_fields)];
  fields.forEach((f, i) => {
    if (!Object.hasOwn(properties, f)) details.push({ loc: ['body', 'required_fields', i], msg: `No field "${f}" in the catalog schema`, type: 'value_error' });
  });
  input.rules.forEach((r, i) => {
    if (!Object.hasOwn(properties, r.field))
      details.push({ loc: ['body', 'rules', i, 'field'], msg: `No field "${r.field}" in the catalog schema`, type: 'value_error' });
    else if (!RULE_OPS.includes(r.op)) details.push({ loc: ['body', 'rules', i, 'op'], msg: `One of ${RULE_OPS.join(', ')}`, type: 'value_error' });
    else {
      try {
        filterConditionSql(r, fieldTypeOf(properties[r.field]));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        details.push({ loc: ['body', 'rules', i, 'value'], msg: err.details[0]?.msg ?? 'Not a value of this rule', type: 'value_error' });
      }
    }
  });
  if (!fields.length && !input.rules.length) details.push({ loc: ['body', 'required_fields'], msg: 'Require at least one field or rule', type: 'value_error' });
  if (!details.length && (await ReadinessProfile.query(knex).where({ catalog_id: catalogId, name }).first()))
    details.push({ loc: ['body', 'name'], msg: `The catalog already has a profile "${name}"`, type: 'value_error' });
  if (details.length) throw new ValidationError(details);
  return ReadinessProfile.query(knex).insertAndFetch({
    id: newId(),
    catalog_id: catalogId,
    name,
    description: input.description?.trim() || null,
    required_fields: fields,
    rules: input.rules,
    created_by: actorId(scope),
  });
}

/** Deletes a profile. @throws NotFoundError (404) as {@link getReadinessProfile} */
export async function deleteReadinessProfile(knex: Knex, scope: Scope, catalogId: string, profileId: string): Promise<void> {
  const p = await getReadinessProfile(knex, scope, catalogId, profileId);
  await ReadinessProfile.query(knex).deleteById(p.id);
}

/**
 * Reads rules written one a line as `field op value` (`price range 1..100`, `brand notempty`).
 * @throws ValidationError (422) naming the line of a rule it cannot read
 */
export function parseRuleLines(text: string): ReadinessRule[] {
  const rules: ReadinessRule[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (!t) return;
    const m = /^(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(t);
    if (!m || !(RULE_OPS as readonly string[]).includes(m[2]))
      throw ValidationError.at(['body', 'rules', i], `Line ${i + 1}: write "field operator value" with an operator of ${RULE_OPS.join(', ')}`);
    rules.push({ field: m[1], op: m[2] as ReadinessRule['op'], value: (m[3] ?? '').trim() });
  });
  return rules;
}
