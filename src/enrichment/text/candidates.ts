/**
 * Candidate generation: every way a field's value may appear in the text, each with a score
 * (higher = more specific evidence). Scores order evidence kinds: catalog vocabulary >
 * identifiers > learned value templates > numbers labelled by the field's name or axis > size tuples > measurements > built-in lexicons >
 * title-prefix brand guess.
 */
import { findCodeTokens, findGtins, codeShape } from './identifiers';
import { findMeasurements, findPackPhrases, NUMBER_SOURCE, type Measurement } from './quantities';
import type { FieldProfile } from './profile';
import { findLabelledSides, findSizeTuples } from './sizes';
import type { Span } from './spans';
import { matchTemplates } from './templates';
import { matchVocabulary, vocabularyText, type VocabularyText } from './vocabulary';

/** How a candidate was found. */
export type Method = 'vocabulary' | 'identifier' | 'template' | 'anchor' | 'size' | 'measurement' | 'lexicon' | 'prefix';

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

/** Lower-case words that may sit inside a brand name ("Tamarac by Slippers International"). */
const BRAND_JOINERS = new Set(['by', 'of', 'and', '&', 'de', 'the']);

/**
 * Brand guess from the start of the title: the run of capitalised words before the first
 * separator (",", " - ", "(", "|", ":"), number, lower-case word or the first word another
 * field claims (`stops`: start offsets of other fields' candidates). A run longer than
 * `maxWords` is cut to `maxWords`. Null when the title does not start with such a word.
 */
export function brandPrefix(text: string, stops: Set<number>, maxWords: number): Span | null {
  const title = text.slice(0, titleEnd(text));
  const words: Span[] = [];
  const re = /[^\s,;:|()[\]]+/gu;
  for (let m = re.exec(title); m !== null; m = re.exec(title)) {
    const word = m[0];
    const gap = title.slice(words.length > 0 ? words[words.length - 1]!.end : 0, m.index);
    if (words.length > 0 && /[,;:|()[\]]|\s[-–]\s/.test(gap)) break;
    if (stops.has(m.index) && words.length > 0) break;
    if (/^\d/.test(word)) break;
    if (!/^\p{Lu}/u.test(word)) {
      if (words.length > 0 && BRAND_JOINERS.has(word.toLowerCase())) {
        words.push({ start: m.index, end: m.index + word.length, text: word });
        continue;
      }
      break;
    }
    words.push({ start: m.index, end: m.index + word.length, text: word });
  }
  while (words.length > 0 && BRAND_JOINERS.has(words[words.length - 1]!.text.toLowerCase())) words.pop();
  const kept = words.length > 4 ? words.slice(0, maxWords) : words;
  if (kept.length === 0) return null;
  const start = kept[0]!.start;
  const end = kept[kept.length - 1]!.end;
  return { start, end, text: text.slice(start, end) };
}

/** All candidates for one field; `scanned` is the text's {@link vocabularyText} (made once for every field). */
export function fieldCandidates(
  text: string,
  profile: FieldProfile,
  totals: KeyTotals,
  hasHeight: boolean,
  scanned: VocabularyText = vocabularyText(text),
): Candidate[] {
  const name = profile.field.name;
  const end = titleEnd(text);
  const out: Candidate[] = [];
  const push = (span: Span, method: Method, base: number, extra: Partial<Candidate> = {}): void => {
    out.push({ ...span, field: name, method, score: base - positionPenalty(span.start, end), ...extra });
  };
  const vocab = profile.vocabulary;
  for (const hit of matchVocabulary(scanned, vocab)) {
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
    for (const side of findLabelledSides(text)) if (side.axis === profile.axis) push(side, 'anchor', 2.5);
  }
  if (profile.dimensions.length > 0) {
    for (const m of findMeasurements(text)) if (profile.dimensions.includes(m.dimension)) push(m, 'measurement', 1.6, { measurement: m });
  }
  if (profile.anchors.length > 0) {
    const words = profile.anchors.join('|');
    const re = new RegExp(`(?<![\\p{L}\\p{N}.,])(${NUMBER_SOURCE})[\\s-]?(?:${words})|(?:${words})\\s?[:#]?\\s?(${NUMBER_SOURCE})(?![\\p{N}])`, 'giu');
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const written = (m[1] ?? m[2])!;
      const start = m[1] !== undefined ? m.index : m.index + m[0].lastIndexOf(written);
      push({ start, end: start + written.length, text: written }, 'anchor', 2.2);
    }
  }
  if (profile.isPack) for (const span of findPackPhrases(text)) push(span, 'template', 1.7);
  if (profile.lexicon !== null) for (const hit of matchVocabulary(scanned, profile.lexicon)) push(hit, 'lexicon', 1.3, { key: hit.key });
  return out;
}
