/**
 * Product dimensions written as one tuple ("60 x 40 x 75 cm", "W 60 x D 40 x H 75 cm",
 * `13w x 4d x 7h"`, "Dimensions (WxHxD): 10 x 20 x 5 mm") mapped onto width/height/depth/
 * length fields by the field's name or description. Units via ../normalize/units.
 */
import { NUMBER, convertQuantity, parseWrittenNumber, unitName } from '../normalize/units';
import type { OutputField } from '../types';

/** The measured axis a field asks for. */
export type Axis = 'width' | 'height' | 'depth' | 'length';

const AXIS_LETTER: Record<string, Axis> = { w: 'width', b: 'width', h: 'height', d: 'depth', t: 'depth', l: 'length' };
const AXIS_WORDS: Array<[RegExp, Axis]> = [
  [/\b(width|wide|breite|largeur|ancho|larghezza)\b/, 'width'],
  [/\b(height|high|tall|höhe|hauteur|alto|altezza)\b/, 'height'],
  [/\b(depth|deep|tiefe|profondeur|profundidad|profondità)\b/, 'depth'],
  [/\b(length|long|länge|longueur|largo|lunghezza)\b/, 'length'],
];

function axisOfWords(text: string): Axis | null {
  const t = text.toLowerCase().replace(/_/g, ' ');
  for (const [re, axis] of AXIS_WORDS) if (re.test(t)) return axis;
  return null;
}

/** The axis a field measures, from its name, then its description; null for other fields. */
export function fieldAxis(field: Pick<OutputField, 'name' | 'description'>): Axis | null {
  return axisOfWords(field.name) ?? axisOfWords(field.description ?? '');
}

/**
 * An order convention declared in a text ("W x D x H", "(LxWxH)", "H×B×T"): the axes in
 * order, or null when none is declared.
 */
export function declaredOrder(text: string): Axis[] | null {
  const m = /(?<![\p{L}])([WHDLBT])\s*[x×*]\s*([WHDLBT])(?:\s*[x×*]\s*([WHDLBT]))?(?![\p{L}])/iu.exec(text);
  if (!m) return null;
  return m
    .slice(1)
    .filter(Boolean)
    .map((l) => AXIS_LETTER[l.toLowerCase()]);
}

/** One number of a dimension tuple: its value, its unit (tuple unit when not written) and its axis letter when written. */
export interface DimensionPart {
  value: number;
  unit: string;
  axis?: Axis;
}

const UNIT = String.raw`mm|cm|m|in|inch(?:es)?|"|”|″|ft|feet|'`;
const PART = String.raw`(?:([WHDLBT])\s*[:.]?\s*)?(${NUMBER})\s*(${UNIT})?\s*(?:([WHDLBT])(?![\p{L}]))?`;
const TUPLE = new RegExp(String.raw`(?<![\p{L}\p{N}.,])${PART}(?:\s*[x×*]\s*${PART}){1,2}(?:\s*(${UNIT}))?(?![\p{L}\p{N}])`, 'giu');

/**
 * Every dimension tuple (2 or 3 numbers joined by x/×/*) in a text, with its unit (written
 * after each number or once at the end) and written axis letters. Tuples with no unit at all
 * are returned with `unit` '' (the caller decides whether a unit is implied).
 */
export function findDimensions(text: string): DimensionPart[][] {
  const out: DimensionPart[][] = [];
  TUPLE.lastIndex = 0;
  for (let m = TUPLE.exec(text); m !== null; m = TUPLE.exec(text)) {
    const tail = m[m.length - 1];
    const parts: DimensionPart[] = [];
    const groups = m[0].split(/\s*[x×*]\s*(?=[WHDLBT]?\s*[:.]?\s*\d)/i);
    for (const g of groups) {
      const p = new RegExp(`^${PART}`, 'iu').exec(g.trim());
      if (!p) continue;
      const letter = p[1] ?? p[4];
      const unit = unitName(p[3] ?? tail ?? '') ?? '';
      parts.push({ value: parseWrittenNumber(p[2]), unit, ...(letter ? { axis: AXIS_LETTER[letter.toLowerCase()] } : {}) });
    }
    const shared = parts.map((p) => p.unit).find(Boolean) ?? '';
    if (parts.length >= 2 && parts.every((p) => !Number.isNaN(p.value))) out.push(parts.map((p) => ({ ...p, unit: p.unit || shared })));
  }
  return out;
}

/**
 * The value of one axis read from a dimension text, converted to `unit`:
 * a written axis letter wins; otherwise the order declared in the text or in `order`
 * (e.g. from the field description, "W x D x H") assigns positions; without any declared
 * order nothing is assigned, because conventions differ (W×D×H, W×H×D, L×W×H).
 * `impliedUnit` is used for tuples written without a unit (e.g. from a label "Size (in)").
 * @returns the number and the tuple's text span, or null
 */
export function dimensionValue(
  text: string,
  axis: Axis,
  unit: string,
  order?: Axis[] | null,
  impliedUnit?: string | null,
): { value: number; by: 'letter' | 'order' } | null {
  const declared = declaredOrder(text) ?? order ?? null;
  for (const parts of findDimensions(text)) {
    const lettered = parts.find((p) => p.axis === axis);
    const positional = !lettered && declared && declared.length === parts.length && parts.every((p) => !p.axis) ? parts[declared.indexOf(axis)] : undefined;
    const part = lettered ?? positional;
    if (!part) continue;
    const from = part.unit || impliedUnit || '';
    const n = from ? convertQuantity({ value: part.value, unit: unitName(from) ?? from }, unit) : null;
    if (n !== null) return { value: n, by: lettered ? 'letter' : 'order' };
  }
  return null;
}

/** Spec keys that hold a whole dimension tuple ("Dimensions", "Size (W x D x H)", "Maße"). */
const TUPLE_KEY = /dimension|measurement|\bsize\b|abmessung|maße|masse|dimensions?|afmeting|wymiary|размер/i;

/** A dimension read for a field: the value in the field's unit and the text it came from. */
export interface DimensionReading {
  value: number;
  /** The label or input field the tuple was found under. */
  label: string;
  /** The tuple's text. */
  text: string;
  by: 'letter' | 'order';
}

/**
 * Reads one axis field (width/height/depth/length with a `unit`) from labelled texts holding
 * dimension tuples: spec-table rows whose key names dimensions, or the item's own text fields.
 * The order convention comes from the text, the label, or the field description
 * ("W x D x H"); see {@link dimensionValue}.
 * @returns the first reading, or null when the field is not an axis field or nothing fits
 */
export function readDimension(field: OutputField, labelled: Array<{ label: string; text: string }>, requireTupleKey: boolean): DimensionReading | null {
  const axis = fieldAxis(field);
  if (!axis || !field.unit) return null;
  const fieldOrder = declaredOrder(field.description ?? '');
  for (const { label, text } of labelled) {
    if (requireTupleKey && !TUPLE_KEY.test(label)) continue;
    const order = declaredOrder(label) ?? fieldOrder;
    const hit = dimensionValue(text, axis, field.unit, order, labelUnitOf(label));
    if (hit) return { value: hit.value, label, text: text.slice(0, 120), by: hit.by };
  }
  return null;
}

function labelUnitOf(label: string): string | null {
  const m = /[([]\s*(mm|cm|m|in|inch(?:es)?|ft)\s*[)\]]/i.exec(label);
  return m ? m[1] : null;
}
