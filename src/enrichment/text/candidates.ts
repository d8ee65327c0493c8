/**
 * Candidate generation: every way a field's value may appear in the text, each with a score
 * (higher = more specific evidence). Scores order evidence kinds: catalog vocabulary >
 * identifiers > learned value templates > size tuples > measurements > built-in lexicons >
 * title-prefix brand guess.
 */
import { findCodeTokens, findGtins, codeShape } from './identifiers';
import { findMeasurements, findPackPhrases, type Measurement } from './quantities';
import type { FieldProfile } from './profile';
import { findSizeTuples } from './sizes';
import type { Span } from './spans';
import { matchTemplates } from './templates';
import { matchVocabulary } from './vocabulary';

/** How a candidate was found. */
export type Method = 'vocabulary' | 'identifier' | 'template' | 'size' | 'measurement' | 'lexicon' | 'prefix';

/** One possible value of one field. */
export interface Candidate extends Span {
  field: string;
  method: Method;
  score: number;
  /** Vocabulary key when method = vocabulary (for sharing a span between fields). */
  key?: string;
  measurement?: Measurement;
}

/** Vocabulary key → total weight across all fields (for ambiguity between fields). */
export type KeyTotals = Map<string, number>;

/** Title part of the text: up to the first line break (descriptions follow it). */
function titleEnd(text: string): number {
  const nl = text.indexOf('\n');
  return nl < 0 ? text.length : nl;
}

/** Score adjustment by position: later in the title is slightly weaker, outside the title clearly weaker. */
function positionPenalty(start: number, end: number): number {
  return start >= end ? 0.6 + Math.min(0.3, start / 20000) : (0.1 * start) / Math.max(end, 1);
}

/** Leading title words up to `maxWords`, stopping at a digit or punctuation (brand guess). */
function titlePrefix(text: string, maxWords: number): Span | null {
  const m = /^\s*((?:[\p{L}][\p{L}'&.]*)(?:[ ](?:[\p{L}][\p{L}'&.]*)){0,5})/u.exec(text.slice(0, titleEnd(text)));
  if (!m) return null;
  const words = m[1]!.split(' ').slice(0, maxWords);
  const value = words.join(' ').replace(/[.']+$/, '');
  const start = text.indexOf(value);
  return value.length >= 2 ? { start, end: start + value.length, text: value } : null;
}

/** Median number of words of a field's known vocabulary entries (1 when none). */
function typicalWords(profile: FieldProfile): number {
  const lengths: number[] = [];
  for (const [key, count] of profile.vocabulary.counts) for (let i = 0; i < count; i += 1) lengths.push(key.split(' ').length);
  lengths.sort((a, b) => a - b);
  return lengths.length > 0 ? lengths[Math.floor(lengths.length / 2)]! : 1;
}

/** All candidates for one field. */
export function fieldCandidates(text: string, profile: FieldProfile, totals: KeyTotals, hasHeight: boolean): Candidate[] {
  const name = profile.field.name;
  const end = titleEnd(text);
  const out: Candidate[] = [];
  const push = (span: Span, method: Method, base: number, extra: Partial<Candidate> = {}): void => {
    out.push({ ...span, field: name, method, score: base - positionPenalty(span.start, end), ...extra });
  };
  const vocab = profile.vocabulary;
  for (const hit of matchVocabulary(text, vocab)) {
    const count = vocab.counts.get(hit.key) ?? 0;
    const share = count / (totals.get(hit.key) ?? count);
    push(hit, 'vocabulary', 3 + share + 0.3 * Math.log10(1 + count) + 0.02 * hit.key.length, { key: hit.key });
  }
  if (profile.isGtin) for (const span of findGtins(text)) push(span, 'identifier', 3.5);
  if (profile.isCode) {
    for (const span of findCodeTokens(text)) {
      if (/^\d{8,14}$/.test(span.text) && findGtins(span.text).length > 0) continue;
      const shareOfShape = profile.codeShapes.get(codeShape(span.text)) ?? 0;
      const mixed = /\p{L}/u.test(span.text) && /\d/.test(span.text);
      if (profile.codeShapes.size > 0 ? shareOfShape < 0.05 : !mixed || span.text.length < 5) continue;
      push(span, 'identifier', 2 + shareOfShape + 0.01 * span.text.length);
    }
  }
  for (const hit of matchTemplates(text, profile.templates)) {
    push(hit, 'template', 2 + (profile.templates.counts.get(hit.key) ?? 0) / Math.max(profile.templates.total, 1));
  }
  if (profile.axis !== null) {
    for (const tuple of findSizeTuples(text, hasHeight)) {
      for (const side of tuple) if (side.axis === profile.axis) push(side, 'size', 2.4);
    }
  }
  if (profile.dimensions.length > 0) {
    for (const m of findMeasurements(text)) if (profile.dimensions.includes(m.dimension)) push(m, 'measurement', 1.6, { measurement: m });
  }
  if (profile.isPack) for (const span of findPackPhrases(text)) push(span, 'template', 1.7);
  if (profile.lexicon !== null) for (const hit of matchVocabulary(text, profile.lexicon)) push(hit, 'lexicon', 1.3, { key: hit.key });
  if (profile.isBrand) {
    const prefix = titlePrefix(text, typicalWords(profile));
    if (prefix !== null) push(prefix, 'prefix', 0.9);
  }
  return out;
}
