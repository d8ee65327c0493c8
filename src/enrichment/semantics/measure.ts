/**
 * Candidates for number fields with a `unit` (docs/api-enrichment.md "Enrichment jobs", Output-schema `unit`) from a
 * page: spec rows and product properties named like the field whose value carries a unit
 * ("Width: 45 cm"), or whose label states it ("Width (cm): 45"), product properties the page
 * states as schema.org QuantitativeValues (`{"value": "1.2", "unitCode": "KGM"}`, UN/CEFACT
 * Rec 20 codes), and dimension tuples ("Dimensions: 60 x 40 x 75 cm") for
 * width/height/depth/length fields. Values are emitted as "<number> <unit>" text, or as the
 * number with its `unitCode` in `Candidate.unit`, so `coerce` converts them; bare numbers
 * without a stated unit are never emitted.
 */
import type { Candidate } from '../extract/candidates';
import { normKey } from '../extract/candidates';
import { snake } from '../extract/roles';
import { findQuantities, labelUnit, parseWrittenNumber, unitName } from '../normalize/units';
import type { PageDoc } from '../parse/page';
import type { StructuredProduct } from '../parse/products';
import type { OutputField } from '../types';
import { readDimension } from './dimensions';

/** A label without its unit part: "Width (cm)" → "width". */
function bareLabel(label: string): string {
  return normKey(label.replace(/\s*[([/][^()[\]/]*[)\]]?\s*$/, '').replace(/\s+in\s+[a-z]{1,12}\s*$/i, ''));
}

function withUnit(label: string, value: string): string | null {
  if (findQuantities(value).length > 0) return value;
  const unit = labelUnit(label);
  return unit && /^\s*-?\d+(?:[.,]\d+)?\s*$/.test(value) ? `${value.trim()} ${unit}` : null;
}

/** Unit-bearing candidates for `field` on one page (empty when the field has no `unit`). */
export function unitCandidates(doc: PageDoc, field: OutputField, product?: StructuredProduct): Candidate[] {
  if (!field.unit || (field.type !== 'number' && field.type !== 'integer')) return [];
  const out: Candidate[] = [];
  const wanted = normKey(snake(field.name).replace(/_/g, ' '));
  for (const [k, v] of Object.entries(product?.properties ?? {})) {
    const label = k.replace(/([a-z])([A-Z])/g, '$1 $2');
    if (bareLabel(label) !== wanted) continue;
    // A QuantitativeValue's unitCode/unitText states the unit of its bare value.
    const unit = product?.units?.[k];
    const stated = unit && unitName(unit) && !Number.isNaN(parseWrittenNumber(v)) ? unit : undefined;
    const value = stated ? v : withUnit(label, v);
    if (value) {
      out.push({
        value,
        method: product?.origin ?? 'jsonld',
        weight: 0.9,
        url: doc.url,
        explanation: `product property "${k}" ("${v}"${stated ? `, unit ${stated}` : ''}) on ${doc.url}`,
        ...(stated ? { unit: stated } : {}),
      });
      break;
    }
  }
  const row = doc.key_values.find((kv) => bareLabel(kv.key) === wanted && withUnit(kv.key, kv.value) !== null);
  if (row)
    out.push({
      value: withUnit(row.key, row.value) as string,
      method: 'table',
      weight: 0.75,
      url: doc.url,
      explanation: `spec row "${row.key}: ${row.value.slice(0, 60)}" on ${doc.url}`,
    });
  if (out.length === 0) {
    const labelled = [
      ...Object.entries(product?.properties ?? {}).map(([label, text]) => ({ label, text })),
      ...doc.key_values.map((kv) => ({ label: kv.key, text: kv.value })),
    ];
    const dim = readDimension(field, labelled, true);
    if (dim)
      out.push({
        value: `${dim.value} ${field.unit}`,
        method: 'table',
        weight: dim.by === 'letter' ? 0.7 : 0.55,
        url: doc.url,
        explanation: `dimensions "${dim.label}: ${dim.text}" on ${doc.url}`,
      });
  }
  return out;
}
