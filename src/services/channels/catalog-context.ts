import type { ApplyContext, SchemaFieldInfo } from '../../channels';
import type { CatalogSchema } from '../../models/catalog-schema';
import type { EnrichedNode, EnrichedTaxonomy } from '../catalog/taxonomy';
import { fieldTypeOf } from '../catalog/schema/schema';

/**
 * What the channels domain needs to know of a catalog (docs/channels.md, "Mapping proposal"):
 * its fields as the mapping proposal reads them, and the derived values (category path, Google
 * product category) of its taxonomy. Pure functions over a loaded schema and taxonomy.
 */

/** The schema's fields: JSON Schema type, format and description, with the scope and unit of FieldWorkflowInfo. */
export function schemaFieldsOf(schema: CatalogSchema): SchemaFieldInfo[] {
  const info = new Map((schema.fields_workflow_info ?? []).map((f) => [f.field_name, f]));
  return Object.entries(schema.schema_definition.properties ?? {}).map(([name, p]) => ({
    name,
    type: fieldTypeOf(p),
    description: typeof p.description === 'string' ? p.description : (info.get(name)?.description ?? null),
    format: typeof p.format === 'string' ? p.format : null,
    unit: typeof p.unit === 'string' ? p.unit : (info.get(name)?.unit ?? null),
    scope: info.get(name)?.scope ?? null,
  }));
}

/** A node description naming its Google product taxonomy id (how suggested taxonomies mark Google nodes). */
const GOOGLE_NODE = /Google product taxonomy (\d+)/;

/**
 * The Google product category of a taxonomy node: its own, or its nearest ancestor's, from a
 * `google_product_category` attribute value of the node or a description "Google product
 * taxonomy <id>" (src/services/sheets/taxonomy.ts marks the nodes it took from Google so).
 * Returns the id and the Google path (the node's path: such nodes are named as Google's), or null.
 */
export function googleCategoryOfNode(taxonomy: EnrichedTaxonomy, nodeId: string): { id: string; path: string[] } | null {
  let n: EnrichedNode | undefined = taxonomy.nodes[nodeId];
  while (n) {
    const attr = n.attributes.find((a) => a.name === 'google_product_category');
    const fromAttr = attr && Array.isArray(attr.values) && attr.values.length === 1 ? String(attr.values[0]) : null;
    const id = fromAttr ?? GOOGLE_NODE.exec(n.description ?? '')?.[1] ?? null;
    if (id) return { id, path: n.path };
    n = n.parent ? taxonomy.nodes[n.parent] : undefined;
  }
  return null;
}

/** Whether any node of the taxonomy names a Google product category. */
export function hasGoogleCategories(taxonomy: EnrichedTaxonomy | null): boolean {
  return !!taxonomy && Object.keys(taxonomy.nodes).some((id) => googleCategoryOfNode(taxonomy, id) !== null);
}

/**
 * The {@link ApplyContext} of a catalog: category paths and Google categories from its taxonomy,
 * the feed's currency, the product id field (a variant's item_group_id).
 */
export function applyContextOf(taxonomy: EnrichedTaxonomy | null, currency?: string, productIdField?: string | null): ApplyContext {
  return {
    currency,
    groupIdField: productIdField ?? undefined,
    categoryPath: (id) => taxonomy?.nodes[id]?.path ?? null,
    googleCategory: (id) => (taxonomy ? (googleCategoryOfNode(taxonomy, id)?.id ?? null) : null),
  };
}
