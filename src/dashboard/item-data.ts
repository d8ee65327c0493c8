import type { Knex } from 'knex';
import { actorNames } from '../services/access/people';
import type { Catalog } from '../models/catalog';
import type { CatalogItem } from '../models/catalog-item';
import type { Scope } from '../services/access/scope';
import { getCatalog } from '../services/catalog/catalogs';
import { loadItem } from '../services/catalog/items/items-read';
import { catalogGtinField } from '../services/channels/gtin-field';
import {
  appliedItemChanges,
  fieldProvenance,
  itemSnapshotVersions,
  type AppliedItemChange,
  type FieldProvenance,
  type ItemSnapshotVersion,
} from '../services/review/item-history';

/**
 * What the console's item page shows, read through the catalog and review
 * services: the item, its catalog and schema, its product (a variant's parent), each field's
 * provenance, and its history (applied changes and snapshot versions).
 */

/** One field row of the item page. */
export interface ItemField {
  name: string;
  /** `field_type` of the schema's field info; null for a field the schema does not have. */
  type: string | null;
  unit: string | null;
  description: string | null;
  required: boolean;
  /** `product`, `variant` or `both` (field info `scope`); null outside the schema. */
  scope: string | null;
  value: unknown;
  provenance: FieldProvenance | null;
}

/** Everything the item page renders. */
export interface ItemPageData {
  catalog: Catalog;
  item: CatalogItem;
  /** A variant's product (its parent item), when it has one. */
  parent: CatalogItem | null;
  schemaVersion: string;
  fields: ItemField[];
  changes: AppliedItemChange[];
  versions: ItemSnapshotVersion[];
  /** Display names of who edited or approved the item's changes: actor id → name. */
  actors: Record<string, string>;
  /** The catalog field holding the GTIN (docs/console.md "GTIN flags"): the page warns beside a bad value of it; null when none. */
  gtinField: string | null;
}

/**
 * Loads the item page of item `itemId` of catalog `catalogId`: the schema's fields in schema
 * order, then the item's other data fields.
 * @throws NotFoundError (404) unknown catalog or item; ForbiddenError (403) another organization's
 */
export async function loadItemPage(knex: Knex, scope: Scope, catalogId: string, itemId: string): Promise<ItemPageData> {
  const [item, { catalog, schema }] = await Promise.all([loadItem(knex, scope, catalogId, itemId), getCatalog(knex, scope, catalogId)]);
  const [changes, versions, parent, gtinField] = await Promise.all([
    appliedItemChanges(knex, catalogId, itemId),
    itemSnapshotVersions(knex, catalogId, itemId),
    item.parent_id ? loadItem(knex, scope, catalogId, item.parent_id) : Promise.resolve(null),
    catalogGtinField(knex, catalogId, schema),
  ]);
  const properties = schema.schema_definition.properties ?? {};
  const required = schema.schema_definition.required ?? [];
  const infos = new Map((schema.fields_workflow_info ?? []).map((f) => [String(f.field_name), f]));
  const names = [...Object.keys(properties), ...Object.keys(item.data ?? {}).filter((k) => !(k in properties) && !k.startsWith('__'))];
  const provenance = fieldProvenance(changes, names);
  const fields = names.map((name): ItemField => {
    const info = infos.get(name);
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    return {
      name,
      type: name in properties ? (str(info?.field_type) ?? (typeof properties[name].type === 'string' ? String(properties[name].type) : 'string')) : null,
      unit: str(info?.unit),
      description: str(info?.description) ?? str(properties[name]?.description),
      required: required.includes(name),
      scope: name in properties ? (str(info?.scope) ?? 'variant') : null,
      value: item.data?.[name],
      provenance: provenance[name] ?? null,
    };
  });
  const editors = changes.map((c) => (typeof c.review_info?.edited_by === 'string' ? c.review_info.edited_by : null));
  const actors = await actorNames(knex, scope.organizationId, [...editors, ...changes.map((c) => c.decided_by)]);
  return { catalog, item, parent, schemaVersion: schema.version, fields, changes, versions, actors: Object.fromEntries(actors), gtinField };
}
