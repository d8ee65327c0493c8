/**
 * Rule layer of text extraction: candidates from catalog vocabulary, identifiers, templates,
 * measurements, sizes, lexicons and the title-prefix brand guess, resolved greedily into at
 * most one value per field. Used alone when no example texts are available, and as evidence
 * features for the learned tagger (model.ts) when they are.
 */
import type { OutputField } from '../types';
import { brandPrefix, fieldCandidates, type Candidate, type KeyTotals, type Method } from './candidates';
import { vocabularyText } from './vocabulary';
import type { FieldProfile } from './profile';
import { convert, parseMeasurement, parseNumber } from './quantities';
import { overlaps, phraseKey } from './spans';

/** One extracted value. `snippet` is an exact substring of the input text. */
export interface TextExtraction {
  field: string;
  value: unknown;
  snippet: string;
  confidence: 'high' | 'medium' | 'low';
  /** Kind of evidence the value rests on (see candidates.ts; `tagger`: the learned tagger, model.ts). */
  method: Method | 'tagger';
}

/**
 * Least estimated fill rate (see FieldProfile.fill) at which each kind of evidence is used:
 * on a field the catalog rarely fills, a weak match is more likely noise than a value, and
 * an absent value costs less than a wrong one. Measured on the dev splits (evaluation.md),
 * one constant per evidence kind, never per field.
 */
const MIN_FILL: Record<Method, number> = {
  vocabulary: 0.1,
  identifier: 0.3,
  template: 0.3,
  anchor: 0.05,
  size: 0.3,
  measurement: 0.5,
  lexicon: 0.3,
  prefix: 0.5,
};

/** Methods whose candidates may share a span with another field's candidate. */
function sharable(a: Candidate, b: Candidate, profiles: Map<string, FieldProfile>): boolean {
  if (a.key === undefined || b.key === undefined || a.key !== b.key) return false;
  return [a.field, b.field].every((f) => (profiles.get(f)?.vocabulary.counts.get(a.key!) ?? 0) > 0);
}

/**
 * Greedy resolution of `candidates` (as from {@link ruleCandidates}): best-scoring candidates first; a field takes one value (arrays may take
 * several); a span claimed by one field is closed to others unless both fields' catalogs
 * hold that very value.
 */
export function resolve(candidates: Candidate[], profiles: Map<string, FieldProfile>): Candidate[] {
  const sorted = [...candidates].sort((a, b) => b.score - a.score || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const accepted: Candidate[] = [];
  for (const c of sorted) {
    const isArray = profiles.get(c.field)?.field.type === 'array';
    const own = accepted.filter((a) => a.field === c.field);
    if (own.length > 0 && (!isArray || own.some((a) => overlaps(a, c) || a.text.toLowerCase() === c.text.toLowerCase()))) continue;
    if (accepted.some((a) => a.field !== c.field && overlaps(a, c) && !sharable(a, c, profiles))) continue;
    accepted.push(c);
  }
  return accepted;
}

/** Confidence of a resolved candidate from the kind of evidence behind it. */
function confidenceOf(c: Candidate): TextExtraction['confidence'] {
  if (c.method === 'vocabulary' || c.method === 'identifier') return c.score >= 3 ? 'high' : 'medium';
  if (c.method === 'prefix' || c.method === 'lexicon') return 'low';
  return 'medium';
}

/**
 * Value of a candidate in the field's declared type: strings as written; numbers parsed and,
 * when the field has a `unit`, converted to it; enum fields mapped onto the enum member with
 * the same phrase key. Returns undefined when the candidate cannot be expressed.
 */
export function coerce(c: Candidate, field: OutputField): unknown {
  const members = field.type === 'array' ? field.items_enum : field.enum;
  if (members !== undefined && members.length > 0) {
    return members.find((m) => phraseKey(String(m)) === phraseKey(c.text));
  }
  const elementType = field.type === 'array' ? (field.array_element_type ?? 'string') : field.type;
  if (elementType === 'number' || elementType === 'integer') {
    const m = c.measurement ?? parseMeasurement(c.text) ?? undefined;
    const raw = m !== undefined ? (field.unit ? convert(m, field.unit) : m.value) : parseNumber(c.text.replace(/[^\d.,/ -]/g, ''));
    if (raw === null || Number.isNaN(raw)) return undefined;
    return elementType === 'integer' ? Math.round(raw) : raw;
  }
  if (elementType === 'string' || elementType === 'image_url') return elementType === 'image_url' ? undefined : c.text.trim();
  return undefined;
}

/**
 * Every rule candidate of every field in `text` (kinds of evidence a field's estimated fill
 * rate does not support are dropped, see MIN_FILL), including the title-prefix brand guess.
 */
export function ruleCandidates(text: string, profiles: Map<string, FieldProfile>): Candidate[] {
  const first = profiles.values().next().value;
  const totals: KeyTotals = first?.keyTotals ?? new Map();
  const hasHeight = [...profiles.values()].some((p) => p.axis === 'height');
  const scanned = vocabularyText(text);
  const candidates = [...profiles.values()].flatMap((p) =>
    fieldCandidates(text, p, totals, hasHeight, scanned).filter((c) => p.fill === null || p.fill >= MIN_FILL[c.method]),
  );
  const stops = new Set(candidates.map((c) => c.start));
  for (const p of profiles.values()) {
    if (!p.isBrand || (p.fill !== null && p.fill < MIN_FILL.prefix)) continue;
    const prefix = brandPrefix(text, new Set([...stops].filter((s) => !candidates.some((c) => c.start === s && c.field === p.field.name))), p.typicalWords);
    if (prefix !== null) candidates.push({ ...prefix, field: p.field.name, method: 'prefix', score: 0.9 });
  }
  return candidates;
}

/** Resolved candidates (see {@link resolve}) as extractions in each field's type. */
export function toExtractions(resolved: Candidate[], profiles: Map<string, FieldProfile>): TextExtraction[] {
  const out: TextExtraction[] = [];
  for (const c of resolved) {
    const field = profiles.get(c.field)!.field;
    const value = coerce(c, field);
    if (value === undefined) continue;
    const existing = out.find((o) => o.field === c.field);
    if (existing && field.type === 'array') {
      (existing.value as unknown[]).push(value);
      continue;
    }
    out.push({ field: c.field, value: field.type === 'array' ? [value] : value, snippet: c.text, confidence: confidenceOf(c), method: c.method });
  }
  return out;
}

/**
 * Rule-layer extraction with profiles built once by `buildProfiles` (profile.ts): candidates
 * of {@link ruleCandidates}, resolved by {@link resolve}, coerced to each field's type.
 * Returns at most one value per non-array field, each with the exact `snippet` it came from.
 */
export function extractWithProfiles(text: string, profiles: Map<string, FieldProfile>): TextExtraction[] {
  return toExtractions(resolve(ruleCandidates(text, profiles), profiles), profiles);
}
