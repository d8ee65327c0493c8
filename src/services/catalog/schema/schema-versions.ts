/**
 * The schema versions of a catalog for the console's schema page (docs/api-reference.md "Schema versions":
 * every version row is kept): the list, newest first, and the difference between any two.
 */
import type { Knex } from 'knex';
import type { CatalogSchema } from '../../../models/catalog-schema';
import type { Scope } from '../../access/scope';
import { loadCatalogOwned } from '../catalogs';
import { getSchemaVersion } from './schema';

/** Versions listed per page, at most (newest first). */
export const SCHEMA_VERSIONS_LIMIT = 200;

/** One version as the list shows it. */
export interface SchemaVersionEntry {
  version: string;
  created_at: Date;
  created_by: string;
  change_reason: string;
  backward_compatible: boolean;
  /** Fields of the version (its `fields_workflow_info` entries). */
  total_fields: number;
}

/**
 * The catalog's schema versions, newest first (at most {@link SCHEMA_VERSIONS_LIMIT}).
 * @throws NotFoundError (404), ForbiddenError (403) for the catalog
 */
export async function listSchemaVersions(knex: Knex, scope: Scope, catalogId: string): Promise<SchemaVersionEntry[]> {
  await loadCatalogOwned(knex, scope, catalogId);
  return (await knex('catalog_schemas')
    .where('catalog_id', catalogId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(SCHEMA_VERSIONS_LIMIT)
    .select(
      'version',
      'created_at',
      'created_by',
      'change_reason',
      'backward_compatible',
      knex.raw('jsonb_array_length(fields_workflow_info)::int AS total_fields'),
    )) as SchemaVersionEntry[];
}

/** A field whose definition differs between two versions: its property and field info then and now. */
export interface ChangedField {
  field_name: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/** The difference from version `from` to version `to`. */
export interface SchemaVersionDiff {
  from: CatalogSchema;
  to: CatalogSchema;
  added: string[];
  removed: string[];
  changed: ChangedField[];
  /** Whether the taxonomy differs. */
  taxonomy_changed: boolean;
}

/** A field's definition as compared: its JSON Schema property, whether required, its unit, scope and category. */
function definitionOf(schema: CatalogSchema, field: string): Record<string, unknown> {
  const info = (schema.fields_workflow_info ?? []).find((f) => f.field_name === field);
  return {
    ...(schema.schema_definition.properties?.[field] ?? {}),
    required: (schema.schema_definition.required ?? []).includes(field),
    unit: info?.unit ?? null,
    scope: info?.scope ?? null,
    field_category: info?.field_category ?? null,
  };
}

/** JSON with object keys sorted at every depth, so key order never reads as a change. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * Compares two schema versions of the catalog: fields added, removed and changed (type,
 * description, required, unit, scope, category, validation keywords), and whether the taxonomy
 * changed.
 * @throws NotFoundError (404) unknown catalog or version; ForbiddenError (403)
 */
export async function diffSchemaVersions(knex: Knex, scope: Scope, catalogId: string, from: string, to: string): Promise<SchemaVersionDiff> {
  await loadCatalogOwned(knex, scope, catalogId);
  const [a, b] = await Promise.all([getSchemaVersion(knex, catalogId, from), getSchemaVersion(knex, catalogId, to)]);
  const before = Object.keys(a.schema_definition.properties ?? {});
  const after = Object.keys(b.schema_definition.properties ?? {});
  const changed: ChangedField[] = [];
  for (const f of after.filter((n) => before.includes(n))) {
    const x = definitionOf(a, f);
    const y = definitionOf(b, f);
    if (canonical(x) !== canonical(y)) changed.push({ field_name: f, before: x, after: y });
  }
  return {
    from: a,
    to: b,
    added: after.filter((n) => !before.includes(n)),
    removed: before.filter((n) => !after.includes(n)),
    changed,
    taxonomy_changed: canonical(a.taxonomy ?? null) !== canonical(b.taxonomy ?? null),
  };
}
