import type { Knex } from 'knex';
import { NotFoundError } from '../../../lib/errors';
import { newId } from '../../../lib/ids';
import { Catalog } from '../../../models/catalog';
import { CatalogSchema, type FieldWorkflowInfo, type JsonSchemaProperty, type StoredTaxonomy } from '../../../models/catalog-schema';
import { actorId } from '../../access/auth';
import type { Scope } from '../../access/scope';
import { lockCatalogExclusive } from '../catalog-locks';
import { markGridIndexesDropping } from '../grid/grid-indexes';

/**
 * Versioned catalog schemas (docs/api-reference.md "Schema versions", Versioning; docs/api-reference.md "Schema versions"):
 * reading the current or an older version, validating item data against a version, writing
 * new versions and the auto-evolve rule. Field edits live in catalog-schema-fields.ts.
 */

/** A JSON Schema object as stored in `catalog_schemas.schema_definition`. */
export type SchemaDefinition = CatalogSchema['schema_definition'];

/** Which part of `MAJOR.MINOR.PATCH` a change advances (docs/api-reference.md "Schema versions"). */
export type VersionBump = 'major' | 'minor' | 'patch';

/** The first schema version of every catalog (docs/api-reference.md "Schema versions"). */
export const INITIAL_SCHEMA_VERSION = '1.0.0';

const BUMP_RANK: Record<VersionBump, number> = { patch: 0, minor: 1, major: 2 };

/** The larger of two bumps (a batch that removes one field and adds another is major). */
export function maxBump(a: VersionBump, b: VersionBump): VersionBump {
  return BUMP_RANK[a] >= BUMP_RANK[b] ? a : b;
}

/**
 * Advances a `MAJOR.MINOR.PATCH` string: major resets minor and patch, minor resets patch.
 * @throws Error when `version` is not three dot-separated integers (a corrupt row)
 */
export function bumpVersion(version: string, bump: VersionBump): string {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!m) throw new Error(`Malformed schema version: ${version}`);
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** The `type` keyword of a property as one FieldWorkflowInfo `field_type` string. */
export function fieldTypeOf(property: JsonSchemaProperty | undefined): string {
  const t = property?.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return String(t.find((x) => x !== 'null') ?? t[0] ?? 'string');
  if (property?.enum) return 'string';
  return 'object';
}

/**
 * Restores the order of `schema_definition.properties`, which `jsonb` does not keep (it sorts
 * object keys), from `fields_workflow_info` (a JSON array, so ordered, and kept in step with
 * the properties: docs/api-reference.md "Schema versions"). The order matters: `position: top|bottom` of added fields.
 * @returns the same row, with its properties re-inserted in field order
 */
export function withPropertyOrder(schema: CatalogSchema): CatalogSchema {
  const props = schema.schema_definition.properties;
  const ordered: Record<string, JsonSchemaProperty> = {};
  for (const f of schema.fields_workflow_info ?? []) if (f.field_name in props) ordered[f.field_name] = props[f.field_name];
  for (const [name, prop] of Object.entries(props)) if (!(name in ordered)) ordered[name] = prop;
  schema.schema_definition = { ...schema.schema_definition, properties: ordered };
  return schema;
}

/**
 * The schema version the catalog currently points at (`catalogs.current_schema_version`).
 * @throws NotFoundError (404) when the catalog does not exist
 */
export async function getCurrentSchema(knex: Knex | Knex.Transaction, catalogId: string): Promise<CatalogSchema> {
  const row = await CatalogSchema.query(knex)
    .where('catalog_id', catalogId)
    .where('version', Catalog.query(knex).select('current_schema_version').where('id', catalogId))
    .first();
  if (!row) throw new NotFoundError('Catalog not found');
  return withPropertyOrder(row);
}

/**
 * One stored schema version of a catalog (docs/api-reference.md "Schema versions", `GET …/schema?version=X`).
 * @throws NotFoundError (404) when the catalog has no such version
 */
export async function getSchemaVersion(knex: Knex | Knex.Transaction, catalogId: string, version: string): Promise<CatalogSchema> {
  const row = await CatalogSchema.query(knex).where({ catalog_id: catalogId, version }).first();
  if (!row) throw new NotFoundError(`Schema version ${version} not found`);
  return withPropertyOrder(row);
}

/**
 * Locks the catalog for a catalog-wide change for the rest of the transaction: the catalog lock
 * exclusive, then the catalog row (src/services/catalog/catalog-locks.ts; docs/architecture.md
 * "Catalog write locks"). Concurrent schema changes of one catalog are serialised (version
 * numbers never collide) and wait for the item writers in flight, as those wait for them.
 * @throws NotFoundError (404) when the catalog does not exist
 */
export async function lockCatalog(trx: Knex.Transaction, catalogId: string): Promise<void> {
  if (!(await lockCatalogExclusive(trx, catalogId))) throw new NotFoundError('Catalog not found');
}

/**
 * A FieldWorkflowInfo entry for a property of a schema (used when a schema arrives whole: on
 * create, and for fields that have none). Category comes from `x-field-category`
 * (`generated`/`enriched` → generated), unit from `unit` or `x-unit`, samples from `examples`.
 */
export function deriveFieldInfo(name: string, property: JsonSchemaProperty, required: boolean, version: string, at: string): FieldWorkflowInfo {
  const unit = property.unit ?? property['x-unit'];
  const category = property['x-field-category'];
  const samples = property.examples ?? property.sample_values;
  return {
    field_name: name,
    field_type: fieldTypeOf(property),
    description: typeof property.description === 'string' ? property.description : null,
    required,
    field_category: category === 'generated' || category === 'enriched' ? 'generated' : 'input',
    scope: typeof property['x-scope'] === 'string' ? property['x-scope'] : 'variant',
    unit: typeof unit === 'string' ? unit : null,
    sample_values: Array.isArray(samples) ? samples.map((s: unknown) => (typeof s === 'string' ? s : JSON.stringify(s))) : null,
    added_by_workflow: null,
    added_by_node: null,
    added_in_version: version,
    created_at: at,
    last_edited_by_workflow: null,
    last_edited_by_node: null,
    last_edited_in_version: null,
    last_edited_at: null,
    validation_rules: null,
  };
}

/**
 * Rebuilds `fields_workflow_info` in the order of `definition.properties` (docs/api-reference.md "Schema versions": kept
 * in step with the properties): existing entries are kept (with `required` refreshed), new
 * properties get a derived entry, entries of removed properties are dropped.
 */
export function syncFieldInfo(definition: SchemaDefinition, previous: FieldWorkflowInfo[], version: string, at: string): FieldWorkflowInfo[] {
  const byName = new Map(previous.map((f) => [f.field_name, f]));
  const required = new Set(definition.required ?? []);
  return Object.entries(definition.properties).map(([name, prop]) => {
    const known = byName.get(name);
    return known ? { ...known, required: required.has(name) } : deriveFieldInfo(name, prop, required.has(name), version, at);
  });
}

/** Counts of docs/api-reference.md "Schema versions": total, input and generated fields. */
export function fieldCounts(info: FieldWorkflowInfo[]): { total_fields: number; input_fields_count: number; generated_fields_count: number } {
  const generated = info.filter((f) => f.field_category === 'generated').length;
  return { total_fields: info.length, input_fields_count: info.length - generated, generated_fields_count: generated };
}

/** What a new schema version consists of; see {@link writeSchemaVersion}. */
export interface NewSchemaVersion {
  catalogId: string;
  previous: CatalogSchema;
  bump: VersionBump;
  schema_definition: SchemaDefinition;
  taxonomy: StoredTaxonomy | null;
  fields_workflow_info: FieldWorkflowInfo[];
  migration_rules: Record<string, unknown> | null;
  reason: string;
  workflowId?: string | null;
  /** ISO timestamp of the change (also used in the field lineage). */
  at: string;
}

/**
 * Inserts the next schema version and points the catalog at it (docs/api-reference.md "Schema versions"): major versions
 * are `backward_compatible: false`. Call inside a transaction after {@link lockCatalog}.
 * @returns the inserted row
 */
export async function writeSchemaVersion(trx: Knex.Transaction, scope: Scope, v: NewSchemaVersion): Promise<CatalogSchema> {
  const version = bumpVersion(v.previous.version, v.bump);
  const row = await CatalogSchema.query(trx).insertAndFetch({
    id: newId(),
    catalog_id: v.catalogId,
    version,
    schema_definition: v.schema_definition,
    taxonomy: v.taxonomy,
    backward_compatible: v.bump !== 'major',
    migration_rules: v.migration_rules,
    created_by: actorId(scope),
    change_reason: v.reason,
    created_at: new Date(v.at),
    last_edited_by_workflow: v.workflowId ?? null,
    last_edited_at: new Date(v.at),
    fields_workflow_info: v.fields_workflow_info,
  });
  await Catalog.query(trx)
    .where('id', v.catalogId)
    .patch({ current_schema_version: version, updated_at: new Date(v.at) });
  // A removed field's grid indexes go (src/services/catalog/grid/grid-indexes.ts): marked here, dropped by their workflow.
  await markGridIndexesDropping(trx, v.catalogId, versionFields(v.schema_definition, v.taxonomy));
  return withPropertyOrder(row);
}

/** Every field of a schema version: its properties and its taxonomy nodes' attributes (the grid's fields). */
function versionFields(definition: SchemaDefinition, taxonomy: StoredTaxonomy | null): string[] {
  const fields = new Set(Object.keys(definition.properties ?? {}));
  for (const node of Object.values(taxonomy?.nodes ?? {})) for (const a of node.attributes ?? []) if (typeof a.name === 'string') fields.add(a.name);
  return [...fields];
}

/** The JSON type of a sample value, as JSON Schema names it (`null` for null). */
function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value; // string | boolean
}

/**
 * The JSON Schema `type` inferred from every sample value of one field: integer and number
 * widen to number; other mixes give a type list; only nulls give `string`.
 */
export function inferType(values: unknown[]): string | string[] {
  const types = new Set(values.map(jsonTypeOf).filter((t) => t !== 'null'));
  if (types.has('number') && types.has('integer')) types.delete('integer');
  if (types.size === 0) return 'string';
  if (types.size === 1) return [...types][0];
  return [...types].sort();
}

/** The top-level keys of `dataSamples` that `known` lacks (`__` system keys aside), with their values in sample order. */
function unknownFields(known: SchemaDefinition['properties'], dataSamples: Array<Record<string, unknown>>): Map<string, unknown[]> {
  const seen = new Map<string, unknown[]>();
  for (const data of dataSamples) {
    for (const [key, value] of Object.entries(data)) {
      if (key.startsWith('__') || Object.prototype.hasOwnProperty.call(known, key)) continue;
      let list = seen.get(key);
      if (!list) seen.set(key, (list = []));
      list.push(value);
    }
  }
  return seen;
}

/**
 * True when {@link evolveSchema} would add a field for `dataSamples` to the catalog's current
 * schema, read in the caller's transaction without locking (an item writer holding the catalog
 * lock shared asks this before it writes; src/services/catalog/catalog-locks.ts).
 */
export async function schemaWouldEvolve(trx: Knex.Transaction, catalogId: string, dataSamples: Array<Record<string, unknown>>): Promise<boolean> {
  const current = await getCurrentSchema(trx, catalogId);
  return unknownFields(current.schema_definition.properties, dataSamples).size > 0;
}

/**
 * `auto_evolve_schema` (docs/api-reference.md "Catalogs"): adds every top-level field of `dataSamples` that the
 * current schema lacks (keys starting `__` are system keys and never added), with a type
 * inferred from all samples, as ONE new minor version. The caller decides whether the catalog
 * (or the request) asks for evolution; this function does not read the flag. Locks the catalog.
 * @returns `{evolved: false}` when nothing is new, else the new version string
 */
export async function evolveSchema(
  trx: Knex.Transaction,
  scope: Scope,
  catalogId: string,
  dataSamples: Array<Record<string, unknown>>,
  reason: string,
): Promise<{ evolved: boolean; new_schema_version?: string }> {
  await lockCatalog(trx, catalogId);
  const current = await getCurrentSchema(trx, catalogId);
  const known = current.schema_definition.properties;
  const seen = unknownFields(known, dataSamples);
  if (seen.size === 0) return { evolved: false };
  const at = new Date().toISOString();
  const version = bumpVersion(current.version, 'minor');
  const properties = { ...known };
  for (const [name, values] of seen) properties[name] = { type: inferType(values) };
  const schema_definition = { ...current.schema_definition, properties };
  const fields = syncFieldInfo(schema_definition, current.fields_workflow_info, version, at);
  const row = await writeSchemaVersion(trx, scope, {
    catalogId,
    previous: current,
    bump: 'minor',
    schema_definition,
    taxonomy: current.taxonomy,
    fields_workflow_info: fields,
    migration_rules: { change_type: 'minor', fields_added: [...seen.keys()], auto_evolved: true },
    reason,
    at,
  });
  return { evolved: true, new_schema_version: row.version };
}
