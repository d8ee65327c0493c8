/**
 * Applying field changes to a catalog's schema (docs/api-reference.md "Schema versions"). Every accepted request writes exactly one new schema version; the version bump is the
 * largest of its changes: optional field added → minor; field removed, type changed, field made
 * required (including a new required field) or validation rules changed → major; description,
 * unit, samples, category or scope only → patch.
 */
import type { Knex } from 'knex';
import { ValidationDetail, ValidationError } from '../../../lib/errors';
import type { FieldWorkflowInfo, JsonSchemaProperty } from '../../../models/catalog-schema';
import type { Scope } from '../../access/scope';
import { bumpVersion, getCurrentSchema, lockCatalog, maxBump, SchemaDefinition, syncFieldInfo, VersionBump, writeSchemaVersion } from './schema';
import type { AddField, FieldBatch, FieldChangeResult, UpdateField } from './schema-fields';
import { assertValidSchemaDefinition } from './schema-validation';

// Keys of a property that describe it rather than constrain values; everything else came from
// `validation_rules` and is replaced as a whole when the rules change.
const ANNOTATION_KEYS = new Set(['type', 'description', 'title', 'unit', 'examples', 'x-field-category', 'x-unit', 'x-scope']);

/** Sample values as the strings FieldWorkflowInfo stores (JSON for non-strings); null when none were given. */
function samplesAsStrings(values: unknown[] | undefined): string[] | null {
  return values ? values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) : null;
}

/** The JSON Schema property of a field: its rules, then its type, description, unit and samples. */
function buildProperty(f: {
  field_type: string;
  description?: string | null;
  unit?: string | null;
  sample_values?: unknown[] | null;
  validation_rules?: Record<string, unknown> | null;
}): Record<string, unknown> {
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

/** The entries of `rules` that hold something (non-empty arrays and objects). */
function nonEmpty(rules: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(rules).filter(([, v]) => (Array.isArray(v) ? v.length > 0 : v && Object.keys(v as object).length > 0)));
}

/** What a batch changed, by kind (stored in the new version's `migration_rules`). */
interface BatchChanges {
  fields_added: string[];
  required_fields_added: string[];
  fields_removed: string[];
  type_changes: Record<string, { from: string; to: string }>;
  made_required: string[];
  made_optional: string[];
  constraints_changed: string[];
  metadata_changed: string[];
}

/** The working state of one batch over the current schema, filled by the steps of {@link applyFieldBatch}. */
interface Batch {
  bodyLoc: Array<string | number>;
  workflowId: string | null;
  /** ISO timestamp of the change. */
  at: string;
  details: ValidationDetail[];
  props: Record<string, JsonSchemaProperty>;
  required: Set<string>;
  info: Map<string, FieldWorkflowInfo>;
  /** Field name → the list that named it first (a name may appear in one list only). */
  named: Map<string, string>;
  bump: VersionBump;
  changes: BatchChanges;
  /** Entries whose lineage names the new version; it is known only once every change is seen. */
  lineage: FieldWorkflowInfo[];
  added: FieldWorkflowInfo[];
  /** Added fields with `position: top`, in order. */
  top: string[];
}

/** Records that `list` names `name`; false (with a detail) when another list named it already. */
function claim(b: Batch, name: string, list: string, loc: Array<string | number>): boolean {
  const prior = b.named.get(name);
  if (prior) {
    b.details.push({ loc, msg: `Field '${name}' appears more than once (${prior}, ${list})`, type: 'value_error.duplicate_field' });
    return false;
  }
  b.named.set(name, list);
  return true;
}

/** Step `fields_to_remove`: each removal is major. */
function removeField(b: Batch, name: string, i: number): void {
  const loc = [...b.bodyLoc, 'fields_to_remove', i];
  if (!claim(b, name, 'fields_to_remove', loc)) return;
  if (!(name in b.props)) return void b.details.push({ loc, msg: `Field '${name}' does not exist`, type: 'value_error.unknown_field' });
  delete b.props[name];
  b.required.delete(name);
  b.info.delete(name);
  b.changes.fields_removed.push(name);
  b.bump = 'major';
}

/**
 * Step `fields_to_update`: type, required and validation-rule changes (major; made optional:
 * minor), then the descriptive attributes ({@link updateMetadata}, patch).
 * @throws ValidationError (422) at once when the updated property is not valid JSON Schema
 */
function updateField(b: Batch, u: UpdateField, i: number): void {
  const loc = [...b.bodyLoc, 'fields_to_update', i];
  if (!claim(b, u.field_name, 'fields_to_update', [...loc, 'field_name'])) return;
  const prop = b.props[u.field_name];
  const fi = b.info.get(u.field_name);
  if (!prop || !fi)
    return void b.details.push({ loc: [...loc, 'field_name'], msg: `Field '${u.field_name}' does not exist`, type: 'value_error.unknown_field' });
  let next: JsonSchemaProperty = { ...prop };
  if (u.field_type !== undefined && u.field_type !== fi.field_type) {
    b.changes.type_changes[u.field_name] = { from: fi.field_type, to: u.field_type };
    next.type = u.field_type;
    fi.field_type = u.field_type;
    b.bump = 'major';
  }
  if (u.required !== undefined && u.required !== b.required.has(u.field_name)) {
    if (u.required) {
      b.required.add(u.field_name);
      b.changes.made_required.push(u.field_name);
      b.bump = 'major';
    } else {
      b.required.delete(u.field_name);
      b.changes.made_optional.push(u.field_name);
      b.bump = maxBump(b.bump, 'minor');
    }
    fi.required = u.required;
  }
  if (u.validation_rules !== undefined && JSON.stringify(u.validation_rules) !== JSON.stringify(fi.validation_rules)) {
    next = { ...Object.fromEntries(Object.entries(next).filter(([k]) => ANNOTATION_KEYS.has(k))), ...u.validation_rules, type: next.type };
    fi.validation_rules = u.validation_rules;
    b.changes.constraints_changed.push(u.field_name);
    b.bump = 'major';
  }
  if (updateMetadata(b, u, fi, next)) b.changes.metadata_changed.push(u.field_name);
  assertValidProperty(u.field_name, next, [...loc, 'validation_rules']);
  b.props[u.field_name] = next;
  b.lineage.push(fi);
}

/**
 * The descriptive attributes of an update (description, unit, samples, scope; the category
 * only with a workflow_id): written into the property `next` and the field's info.
 * @returns true when any of them changed
 */
function updateMetadata(b: Batch, u: UpdateField, fi: FieldWorkflowInfo, next: JsonSchemaProperty): boolean {
  let changed = false;
  if (u.description !== undefined && u.description !== fi.description) {
    next.description = u.description;
    fi.description = u.description;
    changed = true;
  }
  if (u.unit !== undefined && u.unit !== fi.unit) {
    next.unit = u.unit;
    fi.unit = u.unit;
    changed = true;
  }
  if (u.sample_values !== undefined) {
    next.examples = u.sample_values;
    fi.sample_values = samplesAsStrings(u.sample_values);
    changed = true;
  }
  if (u.scope !== undefined && u.scope !== fi.scope) {
    fi.scope = u.scope;
    changed = true;
  }
  if (u.field_category !== undefined && b.workflowId && u.field_category !== fi.field_category) {
    fi.field_category = u.field_category;
    changed = true;
  }
  return changed;
}

/**
 * Step `fields_to_add`: an optional field is minor, a required one major.
 * @throws ValidationError (422) at once when the new property is not valid JSON Schema
 */
function addOneField(b: Batch, a: AddField, i: number): void {
  const loc = [...b.bodyLoc, 'fields_to_add', i, 'field_name'];
  if (!claim(b, a.field_name, 'fields_to_add', loc)) return;
  if (a.field_name in b.props || b.info.has(a.field_name))
    return void b.details.push({ loc, msg: `Field '${a.field_name}' already exists`, type: 'value_error.field_exists' });
  const prop = buildProperty(a);
  assertValidProperty(a.field_name, prop, [...b.bodyLoc, 'fields_to_add', i, 'validation_rules']);
  b.props[a.field_name] = prop;
  if (a.position === 'top') b.top.push(a.field_name);
  if (a.required) {
    b.required.add(a.field_name);
    b.changes.required_fields_added.push(a.field_name);
    b.bump = 'major';
  } else {
    b.bump = maxBump(b.bump, 'minor');
  }
  b.changes.fields_added.push(a.field_name);
  const fi: FieldWorkflowInfo = {
    field_name: a.field_name,
    field_type: a.field_type,
    description: a.description ?? null,
    required: Boolean(a.required),
    // docs/api-reference.md "Schema versions": field_category is workflow-tracking metadata, stored only with a workflow_id.
    field_category: b.workflowId && a.field_category ? a.field_category : 'input',
    scope: a.scope ?? 'variant',
    unit: a.unit ?? null,
    sample_values: samplesAsStrings(a.sample_values),
    added_by_workflow: b.workflowId,
    added_by_node: null,
    added_in_version: null,
    created_at: b.at,
    last_edited_by_workflow: null,
    last_edited_by_node: null,
    last_edited_in_version: null,
    last_edited_at: null,
    validation_rules: a.validation_rules ?? null,
  };
  b.info.set(a.field_name, fi);
  b.added.push(fi);
}

/**
 * The last step: the new version's definition (fields added at the top first, then the others
 * in their order; `required` in field order, dropped when empty) and field infos, with the
 * lineage of added and updated fields naming `newVersion`.
 * @throws ValidationError (422) when the resulting schema is not valid
 */
function nextDefinition(b: Batch, current: SchemaDefinition, newVersion: string): { schema_definition: SchemaDefinition; fields: FieldWorkflowInfo[] } {
  for (const fi of b.added) fi.added_in_version = newVersion;
  for (const fi of b.lineage) {
    fi.last_edited_by_workflow = b.workflowId;
    fi.last_edited_in_version = newVersion;
    fi.last_edited_at = b.at;
  }
  const ordered = [...b.top, ...Object.keys(b.props).filter((n) => !b.top.includes(n))];
  const schema_definition: SchemaDefinition = {
    ...current,
    properties: Object.fromEntries(ordered.map((n) => [n, b.props[n]])),
    required: ordered.filter((n) => b.required.has(n)),
  };
  if (!schema_definition.required?.length) delete schema_definition.required;
  assertValidSchemaDefinition(schema_definition, b.bodyLoc);
  return { schema_definition, fields: ordered.map((n) => b.info.get(n) as FieldWorkflowInfo) };
}

/**
 * Applies a batch to the catalog's current schema as one new version: removals, then
 * updates, then additions, each checked; all problems of the batch are reported together.
 * Call inside the use case's transaction (src/services/catalog/schema/schema-use-cases.ts). Paths in
 * errors are relative to the request body, given as `bodyLoc` (e.g. `['body']`).
 * @throws ValidationError (422): adding an existing field or one twice, updating/removing a
 *   missing field, a field named in two lists, invalid validation rules, or an empty batch
 * @throws NotFoundError (404) when the catalog does not exist (ownership is checked by the caller)
 * Long on purpose: the steps of one transaction in their order (check, lock, write the version).
 */
export async function applyFieldBatch(
  trx: Knex.Transaction,
  scope: Scope,
  catalogId: string,
  batch: FieldBatch,
  bodyLoc: Array<string | number>,
): Promise<FieldChangeResult> {
  const adds = batch.fields_to_add ?? [];
  const updates = batch.fields_to_update ?? [];
  const removes = batch.fields_to_remove ?? [];
  if (adds.length + updates.length + removes.length === 0)
    throw ValidationError.at(bodyLoc, 'Nothing to change: give fields_to_add, fields_to_update or fields_to_remove', 'value_error.empty_batch');

  await lockCatalog(trx, catalogId);
  const current = await getCurrentSchema(trx, catalogId);
  const at = new Date().toISOString();
  // A version stored without per-field info for some (or all) of its properties (e.g. written
  // by SQL or an older import) gets it derived from the properties, as the schema page shows
  // it: otherwise those fields could not be updated and the new version's info
  // would hold holes.
  const info = syncFieldInfo(current.schema_definition, current.fields_workflow_info ?? [], current.version, at);
  const b: Batch = {
    bodyLoc,
    workflowId: batch.workflow_id ?? null,
    at,
    details: [],
    props: { ...current.schema_definition.properties },
    required: new Set(current.schema_definition.required ?? []),
    info: new Map(info.map((f) => [f.field_name, { ...f }])),
    named: new Map(),
    bump: 'patch',
    changes: {
      fields_added: [],
      required_fields_added: [],
      fields_removed: [],
      type_changes: {},
      made_required: [],
      made_optional: [],
      constraints_changed: [],
      metadata_changed: [],
    },
    lineage: [],
    added: [],
    top: [],
  };
  removes.forEach((name, i) => removeField(b, name, i));
  updates.forEach((u, i) => updateField(b, u, i));
  adds.forEach((a, i) => addOneField(b, a, i));
  if (b.details.length) throw new ValidationError(b.details);

  const { schema_definition, fields } = nextDefinition(b, current.schema_definition, bumpVersion(current.version, b.bump));
  const updated = updates.map((u) => u.field_name);
  const summary = [
    b.changes.fields_added.length ? `added ${b.changes.fields_added.join(', ')}` : '',
    updated.length ? `updated ${updated.join(', ')}` : '',
    b.changes.fields_removed.length ? `removed ${b.changes.fields_removed.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const row = await writeSchemaVersion(trx, scope, {
    catalogId,
    previous: current,
    bump: b.bump,
    schema_definition,
    taxonomy: current.taxonomy,
    fields_workflow_info: fields,
    migration_rules: { change_type: b.bump, ...nonEmpty(b.changes) },
    reason: batch.reason ?? `Schema fields ${summary}`,
    workflowId: b.workflowId,
    at: b.at,
  });
  return {
    catalog_id: catalogId,
    new_schema_version: row.version,
    previous_schema_version: current.version,
    fields_added: b.changes.fields_added,
    fields_updated: updated,
    fields_removed: b.changes.fields_removed,
    summary,
  };
}

/**
 * `POST …/schema/fields` (docs/api-reference.md "Schema versions"): adds one field as a one-entry batch. Call
 * inside the use case's transaction.
 * @returns the change (the route presents it without the batch-only lists)
 * @throws ValidationError (422) when the field exists or its rules are invalid
 */
export async function addField(trx: Knex.Transaction, scope: Scope, catalogId: string, field: AddField): Promise<FieldChangeResult> {
  const { workflow_id, ...rest } = field;
  try {
    return await applyFieldBatch(trx, scope, catalogId, { fields_to_add: [rest], workflow_id, reason: `Added field ${field.field_name}` }, ['body']);
  } catch (err) {
    // The single-field body holds the field at its top level: drop the batch's list position.
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(err.details.map((d) => ({ ...d, loc: d.loc[1] === 'fields_to_add' ? ['body', ...d.loc.slice(3)] : d.loc })));
  }
}
