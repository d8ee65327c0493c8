/**
 * Adding, updating and removing schema fields (docs/api-reference.md "Schema versions"): the requests and their outcome. Applying them: src/services/catalog/schema/schema-field-batch.ts.
 */
import type { FIELD_TYPES } from '../../../models/catalog-schema';

/** One field to add (POST …/schema/fields body; an entry of `fields_to_add`). */
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

/** One field to change (an entry of `fields_to_update`): only the given attributes change. */
export type UpdateField = Partial<Omit<AddField, 'position' | 'workflow_id'>> & { field_name: string };

/** The batch body (docs/api-reference.md "Batch field changes"). */
export interface FieldBatch {
  fields_to_add?: AddField[];
  fields_to_update?: UpdateField[];
  fields_to_remove?: string[];
  workflow_id?: string;
  reason?: string;
}

/**
 * Outcome of a field change (docs/api-reference.md "Schema versions"; docs/api-reference.md "Batch field changes"): the versions and the
 * fields named by kind; `summary` lists the changes in words (the response's message says
 * `Schema <previous> → <new>: <summary>`, src/presenters/catalogs.ts).
 */
export interface FieldChangeResult {
  catalog_id: string;
  new_schema_version: string;
  previous_schema_version: string;
  fields_added: string[];
  fields_updated: string[];
  fields_removed: string[];
  summary: string;
}
