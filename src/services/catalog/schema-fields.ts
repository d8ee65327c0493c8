import type { Knex } from 'knex';
import { ValidationDetail, ValidationError } from '../../lib/errors';
import type { JsonSchemaProperty } from '../../models/catalog-schema';
import {
  assertValidSchemaDefinition,
  bumpVersion,
  FieldWorkflowInfo,
  getCurrentSchema,
  lockCatalog,
  maxBump,
  SchemaDefinition,
  VersionBump,
  writeSchemaVersion,
} from './schema';
import type { Scope } from '../access/scope';

/**
 * Adding, updating and removing schema fields (interface-spec.md, Schema; decisions.md §2 and
 * G2). Every accepted request writes exactly one new schema version; the version bump is the
 * largest of its changes: optional field added → minor; field removed, type changed, field made
 * required (including a new required field) or validation rules changed → major; description,
 * unit, samples, category or scope only → patch.
 */

/** Field types a schema field may have (interface-spec.md, POST …/schema/fields). */
export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;

/** One field to add (POST …/schema/fields body; an entry of G2 `fields_to_add`). */
export interface AddField {
  field_name: string;
  field_type: (typeof FIELD_TYPES)[number];
  description?: string;
  required?: boolean;
  field_category?: 'input' | 'generated';
  position?: 'top' | 'bottom';
  workflow_id?: string;
  unit?: string;
  sample_values?: unknown[];
  validation_rules?: Record<string, unknown>;
  scope?: 'variant' | 'product' | 'both';
}

/** One field to change (an entry of G2 `fields_to_update`): only the given attributes change. */
export type UpdateField = Partial<Omit<AddField, 'position' | 'workflow_id'>> & { field_name: string };

/** The G2 batch body (decisions.md §2). */
export interface FieldBatch {
  fields_to_add?: AddField[];
  fields_to_update?: UpdateField[];
  fields_to_remove?: string[];
  workflow_id?: string;
  reason?: string;
}

/** Response of both field endpoints (interface-spec.md; decisions.md §2 G2 adds the last two). */
export interface FieldChangeResult {
  success: boolean;
  catalog_id: string;
  new_schema_version: string;
  previous_schema_version: string;
  fields_added: string[];
  fields_updated: string[];
  fields_removed: string[];
  message: string;
}

// Keys of a property that describe it rather than constrain values; everything else came from
// `validation_rules` and is replaced as a whole when the rules change.
const ANNOTATION_KEYS = new Set(['type', 'description', 'title', 'unit', 'examples', 'x-field-category', 'x-unit', 'x-scope']);

function samplesAsStrings(values: unknown[] | undefined): string[] | null {
  return values ? values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) : null;
}

/** The JSON Schema property of a field: its rules, then its type, description, unit and samples. */
function buildProperty(f: { field_type: string; description?: string | null; unit?: string | null; sample_values?: unknown[] | null; validation_rules?: Record<string, unknown> | null }): Record<string, unknown> {
  return {
    ...(f.validation_rules ?? {}),
    type: f.field_type,
    ...(f.description ? { description: f.description } : {}),
    ...(f.unit ? { unit: f.unit } : {}),
    ...(f.sample_values ? { examples: f.sample_values } : {}),
  };
}

/** Checks one property is valid JSON Schema, reporting at `loc` (e.g. `['body', 'validation_rules']`). */
function assertValidProperty(name: string, property: Record<string, unknown>, loc: Array<string | number>): void {
  try {
    assertValidSchemaDefinition({ type: 'object', properties: { [name]: property } }, []);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(err.details.map((d) => ({ ...d, loc })));
  }
}

function nonEmpty(rules: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(rules).filter(([, v]) => (Array.isArray(v) ? v.length > 0 : v && Object.keys(v as object).length > 0)));
}

/**
 * Applies a G2 batch to the catalog's current schema in one transaction and one new version.
 * Paths in errors are relative to the request body, given as `bodyLoc` (e.g. `['body']`).
 * @throws ValidationError (422): adding an existing field or one twice, updating/removing a
 *   missing field, a field named in two lists, invalid validation rules, or an empty batch
 * @throws NotFoundError (404) when the catalog does not exist (ownership is checked by the caller)
 */
export async function applyFieldBatch(trx: Knex.Transaction, scope: Scope, catalogId: string, batch: FieldBatch, bodyLoc: Array<string | number>): Promise<FieldChangeResult> {
  const adds = batch.fields_to_add ?? [];
  const updates = batch.fields_to_update ?? [];
  const removes = batch.fields_to_remove ?? [];
  if (adds.length + updates.length + removes.length === 0) throw ValidationError.at(bodyLoc, 'Nothing to change: give fields_to_add, fields_to_update or fields_to_remove', 'value_error.empty_batch');

  await lockCatalog(trx, catalogId);
  const current = await getCurrentSchema(trx, catalogId);
  const at = new Date().toISOString();
  const workflowId = batch.workflow_id ?? null;
  const details: ValidationDetail[] = [];
  const props: Record<string, JsonSchemaProperty> = { ...current.schema_definition.properties };
  const required = new Set(current.schema_definition.required ?? []);
  const info = new Map((current.fields_workflow_info as unknown as FieldWorkflowInfo[]).map((f) => [f.field_name, { ...f }]));
  const named = new Map<string, string>();
  const claim = (name: string, list: string, loc: Array<string | number>): boolean => {
    const prior = named.get(name);
    if (prior) {
      details.push({ loc, msg: `Field '${name}' appears more than once (${prior}, ${list})`, type: 'value_error.duplicate_field' });
      return false;
    }
    named.set(name, list);
    return true;
  };

  let bump: VersionBump = 'patch';
  const changes = { fields_added: [] as string[], required_fields_added: [] as string[], fields_removed: [] as string[], type_changes: {} as Record<string, { from: string; to: string }>, made_required: [] as string[], made_optional: [] as string[], constraints_changed: [] as string[], metadata_changed: [] as string[] };
  // Entries whose lineage names the new version; it is known only once every change is seen.
  const lineage: FieldWorkflowInfo[] = [];
  const added: FieldWorkflowInfo[] = [];

  removes.forEach((name, i) => {
    const loc = [...bodyLoc, 'fields_to_remove', i];
    if (!claim(name, 'fields_to_remove', loc)) return;
    if (!(name in props)) return void details.push({ loc, msg: `Field '${name}' does not exist`, type: 'value_error.unknown_field' });
    delete props[name];
    required.delete(name);
    info.delete(name);
    changes.fields_removed.push(name);
    bump = 'major';
  });

  updates.forEach((u, i) => {
    const loc = [...bodyLoc, 'fields_to_update', i];
    if (!claim(u.field_name, 'fields_to_update', [...loc, 'field_name'])) return;
    const prop = props[u.field_name];
    const fi = info.get(u.field_name);
    if (!prop || !fi) return void details.push({ loc: [...loc, 'field_name'], msg: `Field '${u.field_name}' does not exist`, type: 'value_error.unknown_field' });
    let next: JsonSchemaProperty = { ...prop };
    if (u.field_type !== undefined && u.field_type !== fi.field_type) {
      changes.type_changes[u.field_name] = { from: fi.field_type, to: u.field_type };
      next.type = u.field_type;
      fi.field_type = u.field_type;
      bump = 'major';
    }
    if (u.required !== undefined && u.required !== required.has(u.field_name)) {
      if (u.required) {
        required.add(u.field_name);
        changes.made_required.push(u.field_name);
        bump = 'major';
      } else {
        required.delete(u.field_name);
        changes.made_optional.push(u.field_name);
        bump = maxBump(bump, 'minor');
      }
      fi.required = u.required;
    }
    if (u.validation_rules !== undefined && JSON.stringify(u.validation_rules) !== JSON.stringify(fi.validation_rules)) {
      next = { ...Object.fromEntries(Object.entries(next).filter(([k]) => ANNOTATION_KEYS.has(k))), ...u.validation_rules, type: next.type };
      fi.validation_rules = u.validation_rules;
      changes.constraints_changed.push(u.field_name);
      bump = 'major';
    }
    const meta: Array<keyof UpdateField> = [];
    if (u.description !== undefined && u.description !== fi.description) {
      next.description = u.description;
      fi.description = u.description;
      meta.push('description');
    }
    if (u.unit !== undefined && u.unit !== fi.unit) {
      next.unit = u.unit;
      fi.unit = u.unit;
      meta.push('unit');
    }
    if (u.sample_values !== undefined) {
      next.examples = u.sample_values;
      fi.sample_values = samplesAsStrings(u.sample_values);
      meta.push('sample_values');
    }
    if (u.scope !== undefined && u.scope !== fi.scope) {
      fi.scope = u.scope;
      meta.push('scope');
    }
    if (u.field_category !== undefined && workflowId && u.field_category !== fi.field_category) {
      fi.field_category = u.field_category;
      meta.push('field_category');
    }
    if (meta.length) changes.metadata_changed.push(u.field_name);
    assertValidProperty(u.field_name, next, [...loc, 'validation_rules']);
    props[u.field_name] = next;
    lineage.push(fi);
  });

  const top: string[] = [];
  adds.forEach((a, i) => {
    const loc = [...bodyLoc, 'fields_to_add', i, 'field_name'];
    if (!claim(a.field_name, 'fields_to_add', loc)) return;
    if (a.field_name in props || info.has(a.field_name)) return void details.push({ loc, msg: `Field '${a.field_name}' already exists`, type: 'value_error.field_exists' });
    const prop = buildProperty(a);
    assertValidProperty(a.field_name, prop, [...bodyLoc, 'fields_to_add', i, 'validation_rules']);
    props[a.field_name] = prop;
    if (a.position === 'top') top.push(a.field_name);
    if (a.required) {
      required.add(a.field_name);
      changes.required_fields_added.push(a.field_name);
      bump = 'major';
    } else {
      bump = maxBump(bump, 'minor');
    }
    changes.fields_added.push(a.field_name);
    const fi: FieldWorkflowInfo = {
      field_name: a.field_name,
      field_type: a.field_type,
      description: a.description ?? null,
      required: Boolean(a.required),
      // interface-spec.md: field_category is workflow-tracking metadata, stored only with a workflow_id.
      field_category: workflowId && a.field_category ? a.field_category : 'input',
      scope: a.scope ?? 'variant',
      unit: a.unit ?? null,
      sample_values: samplesAsStrings(a.sample_values),
      added_by_workflow: workflowId,
      added_by_node: null,
      added_in_version: null,
      created_at: at,
      last_edited_by_workflow: null,
      last_edited_by_node: null,
      last_edited_in_version: null,
      last_edited_at: null,
      validation_rules: a.validation_rules ?? null,
    };
    info.set(a.field_name, fi);
    added.push(fi);
  });
  if (details.length) throw new ValidationError(details);

  const newVersion = bumpVersion(current.version, bump);
  for (const fi of added) fi.added_in_version = newVersion;
  for (const fi of lineage) {
    fi.last_edited_by_workflow = workflowId;
    fi.last_edited_in_version = newVersion;
    fi.last_edited_at = at;
  }
  const ordered = [...top, ...Object.keys(props).filter((n) => !top.includes(n))];
  const schema_definition: SchemaDefinition = {
    ...current.schema_definition,
    properties: Object.fromEntries(ordered.map((n) => [n, props[n]])),
    required: ordered.filter((n) => required.has(n)),
  };
  if (!schema_definition.required?.length) delete schema_definition.required;
  assertValidSchemaDefinition(schema_definition, bodyLoc);
  const fields = ordered.map((n) => info.get(n) as FieldWorkflowInfo);

  const updated = updates.map((u) => u.field_name);
  const summary = [
    changes.fields_added.length ? `added ${changes.fields_added.join(', ')}` : '',
    updated.length ? `updated ${updated.join(', ')}` : '',
    changes.fields_removed.length ? `removed ${changes.fields_removed.join(', ')}` : '',
  ].filter(Boolean).join('; ');
  const row = await writeSchemaVersion(trx, scope, {
    catalogId,
    previous: current,
    bump,
    schema_definition,
    taxonomy: current.taxonomy,
    fields_workflow_info: fields,
    migration_rules: { change_type: bump, ...nonEmpty(changes) },
    reason: batch.reason ?? `Schema fields ${summary}`,
    workflowId,
    at,
  });
  return {
    success: true,
    catalog_id: catalogId,
    new_schema_version: row.version,
    previous_schema_version: current.version,
    fields_added: changes.fields_added,
    fields_updated: updated,
    fields_removed: changes.fields_removed,
    message: `Schema ${current.version} → ${row.version}: ${summary}`,
  };
}

/**
 * `POST …/schema/fields` (interface-spec.md, Schema): adds one field as a one-entry batch.
 * @returns the spec's add-field response (without the batch-only lists)
 * @throws ValidationError (422) when the field exists or its rules are invalid
 */
export async function addField(trx: Knex.Transaction, scope: Scope, catalogId: string, field: AddField): Promise<Omit<FieldChangeResult, 'fields_updated' | 'fields_removed'>> {
  const { workflow_id, ...rest } = field;
  try {
    const result = await applyFieldBatch(trx, scope, catalogId, { fields_to_add: [rest], workflow_id, reason: `Added field ${field.field_name}` }, ['body']);
    const { fields_updated: _u, fields_removed: _r, ...single } = result;
    return single;
  } catch (err) {
    // The single-field body holds the field at its top level: drop the batch's list position.
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(err.details.map((d) => ({ ...d, loc: d.loc[1] === 'fields_to_add' ? ['body', ...d.loc.slice(3)] : d.loc })));
  }
}
