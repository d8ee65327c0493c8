/**
 * A category's attributes (`all_attributes`, docs/api-reference.md "Taxonomy") as output fields, so the
 * engine's own extraction reads them (docs/api-enrichment.md "Enrichment jobs" `predict_taxonomy_attributes`).
 */
import type { FieldType, OutputField } from '../types';
import type { TaxonomyAttribute } from './tree';

/** attribute `type` words onto output-field types; unknown types read as text. */
function fieldType(type: string | undefined): FieldType {
  const t = (type ?? '').toLowerCase();
  if (/^(number|float|decimal|double|numeric|measurement|dimension)$/.test(t)) return 'number';
  if (/^(integer|int|count)$/.test(t)) return 'integer';
  if (/^(boolean|bool|yes_?no|flag)$/.test(t)) return 'boolean';
  if (/^(array|list|multi_?select|multi_?value|tags|set)$/.test(t)) return 'array';
  return 'string';
}

/** A unit declared with the attribute (`unit` key) or in its name ("Width (cm)"). */
function unitOf(attribute: TaxonomyAttribute): string | undefined {
  const declared = (attribute as { unit?: unknown }).unit;
  if (typeof declared === 'string' && declared.trim()) return declared.trim();
  return /\(\s*([a-zA-Z"]{1,6})\s*\)\s*$/.exec(attribute.name)?.[1];
}

/**
 * Output fields for attributes: name, type, description (the attribute's, else its name),
 * `values` as `enum` (or `items_enum` for list attributes), `required`, and a unit when the
 * attribute states one.
 */
export function attributeFields(attributes: TaxonomyAttribute[]): OutputField[] {
  return attributes.map((a) => {
    const type = fieldType(a.type);
    const values = (a.values ?? []).filter((v): v is string => typeof v === 'string' && v.length > 0);
    const unit = type === 'number' || type === 'integer' ? unitOf(a) : undefined;
    return {
      name: a.name,
      type,
      description: a.description ?? a.name,
      ...(values.length > 0 ? (type === 'array' ? { items_enum: values, array_element_type: 'string' as const } : { enum: values }) : {}),
      ...(a.required ? { required: true } : {}),
      ...(unit ? { unit } : {}),
    };
  });
}
