import { normalizeAvailability } from '../normalize/availability';
import { normalizeNumber } from '../normalize/price';
import { parseWrittenNumber, readInUnit, unitSymbol } from '../normalize/units';
import { mapEnum } from '../semantics/enum';
import type { OutputField } from '../types';
import type { FieldRole } from './roles';

function fold(v: unknown): string {
  return String(v)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
}

function toEnum(value: string, members: Array<string | number | boolean>, role: FieldRole): string | number | boolean | undefined {
  const direct = members.find((m) => fold(m) === fold(value)) ?? mapEnum(value, members);
  if (direct !== undefined) return direct;
  if (role === 'availability') return members.find((m) => normalizeAvailability(String(m)) === value);
  return undefined;
}

function absoluteUrl(url: string): string | undefined {
  try {
    const u = new URL(url);
    return /^https?:$/.test(u.protocol) ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Converts a voted candidate value into the field's declared type (docs/api-enrichment.md "Enrichment jobs"): numbers from decimal strings (first number of a text for generic
 * fields), integers rounded, booleans from InStock/yes/true words, enum values mapped onto a
 * member (case/space-insensitive; availability also by meaning) or dropped, arrays of
 * `image_url` as absolute http(s) URLs. Returns undefined when the value does not fit.
 * `unit` is the unit the source states apart from a bare number (a QuantitativeValue
 * `unitCode` such as `KGM` — UN/CEFACT Rec 20 — or its `unitText`; see `Candidate.unit`):
 * a number field with a `unit` is converted from it (1.2 with `KGM` → 1200 for a field in `g`);
 * a text field gets the number followed by the unit's symbol ("1.2 kg"), since a bare number
 * would lose what it measures.
 */
export function coerce(value: string | string[], field: OutputField, role: FieldRole, unit?: string | null): unknown {
  if (field.type === 'array') {
    const list = Array.isArray(value) ? value : value.split(/\s*[,;|]\s*/);
    const elementType = field.array_element_type ?? 'string';
    const mapped = list
      .map((v) => (elementType === 'image_url' ? absoluteUrl(v) : elementType === 'number' ? toNumber(v) : v.trim()))
      .filter((v) => v !== undefined && v !== '');
    const allowed = field.items_enum;
    const kept = allowed && allowed.length ? mapped.map((v) => toEnum(String(v), allowed, role)).filter((v) => v !== undefined) : mapped;
    return kept.length > 0 ? [...new Set(kept)] : undefined;
  }
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  if (field.enum && field.enum.length > 0) return toEnum(text, field.enum, role);
  switch (field.type) {
    case 'number':
      return field.unit ? readInUnit(text, field.unit, unit) : toNumber(text);
    case 'integer': {
      const n = field.unit ? readInUnit(text, field.unit, unit) : toNumber(text);
      return n === undefined ? undefined : Math.round(n);
    }
    case 'boolean': {
      if (role === 'availability') return text === 'InStock';
      if (/^(yes|true|ja|oui|sí|si|1|y)$/i.test(text.trim())) return true;
      if (/^(no|false|nein|non|0|n)$/i.test(text.trim())) return false;
      return undefined;
    }
    default:
      return unit && !Number.isNaN(parseWrittenNumber(text)) ? `${text.trim()} ${unitSymbol(unit)}` : text;
  }
}

function toNumber(text: string): number | undefined {
  const m = /-?\d[\d.,' ]*/.exec(text);
  if (!m) return undefined;
  const n = normalizeNumber(m[0].trim());
  return n === null ? undefined : Number(n);
}
