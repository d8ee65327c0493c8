/**
 * `service_map_to_catalog_schema` (docs/tool-server-design.md "Map to catalog schema", the baseline release's request): the catalog's
 * schema becomes the `output_schema` of `POST /public/enrich`, so source rows come back shaped as
 * catalog items. The response (an EnrichResponse) is passed through.
 */

/** One output-schema field (docs/api-enrichment.md "Enrichment jobs"). */
export interface OutputField {
  name: string;
  type: string;
  description: string;
  required?: boolean;
  enum?: string[];
  array_element_type?: string;
  items_enum?: string[];
  unit?: string;
  sample_values?: string[];
}

/** The baseline release's fixed block of schema-safe mapping rules appended to the prompt (docs/tool-server-design.md "Map to catalog schema"). */
export const MAPPING_RULES = [
  'Schema-safe mapping rules:',
  '- Map each source field to the target field with the same meaning; never invent values.',
  '- Keep values in the target type and unit; convert units only when the source states its unit.',
  '- Use only allowed enum values; when none fits, leave the field null.',
  '- Prefer null over uncertain mappings.',
].join('\n');

/** The default prompt (docs/tool-server-design.md "Map to catalog schema"). */
export const DEFAULT_MAPPING_PROMPT = 'Map source fields to target catalog schema. Prefer null over uncertain mappings.';

/** The first non-"null" member of a JSON Schema type, stripped; "string" otherwise (docs/tool-server-design.md "Map to catalog schema" `type`). */
function fieldType(t: unknown): string {
  if (typeof t === 'string' && t.trim()) return t.trim();
  if (Array.isArray(t)) {
    const first = t.find((x) => typeof x === 'string' && x !== 'null');
    if (typeof first === 'string') return first;
  }
  return 'string';
}

/**
 * The output schema of a catalog schema definition, fields in `properties` order (docs/tool-server-design.md "Map to catalog schema": type, description with scope/category/source metadata, required, enum, array element
 * type and enum, unit, up to 8 sample values). Object-typed fields map as strings (the enrich
 * output schema has no object type).
 */
export function outputSchemaOf(definition: { properties?: Record<string, Record<string, unknown>>; required?: string[] }): OutputField[] {
  const required = new Set(definition.required ?? []);
  return Object.entries(definition.properties ?? {}).map(([name, p]) => {
    let type = fieldType(p.type);
    if (!['string', 'number', 'integer', 'boolean', 'array'].includes(type)) type = 'string';
    const meta = (['x-field-scope', 'x-field-category', 'x-field-source'] as const)
      .filter((k) => typeof p[k] === 'string')
      .map((k) => `${k.slice('x-field-'.length)}=${String(p[k])}`);
    const base =
      typeof p.description === 'string' && p.description.trim() ? p.description.trim() : `Populate ${name} from source data when confidently available.`;
    const field: OutputField = { name, type, description: meta.length ? `${base} Metadata: ${meta.join(', ')}` : base };
    if (required.has(name)) field.required = true;
    if (Array.isArray(p.enum)) field.enum = p.enum.map(String);
    const items = p.items && typeof p.items === 'object' ? (p.items as Record<string, unknown>) : null;
    if (type === 'array' && items) {
      const it = fieldType(items.type);
      if (it !== 'object' && items.type !== undefined) field.array_element_type = it;
      if (Array.isArray(items.enum)) field.items_enum = items.enum.map(String);
    }
    const unit = p.unit ?? p.units ?? p['x-unit'];
    if (typeof unit === 'string') field.unit = unit;
    if (Array.isArray(p.examples)) field.sample_values = p.examples.slice(0, 8).map(String);
    return field;
  });
}
