/**
 * Phrase statistics of a catalog's unlabelled texts (every item text the model may see: the
 * examples' and, when known, those of the items being enriched): in how many texts each short
 * phrase of a title occurs. A value that recurs across items stands as a phrase of its own
 * ("GRAVE BEFORE SHAVE" in several titles, each time followed by different words), while a
 * span cut too short or too long rarely does; this is the phrase-frequency evidence that
 * open-attribute mining reads from a product corpus (Zhang et al., "OA-Mine: Open-World
 * Attribute Mining for E-Commerce Products with Weak Supervision", WWW 2022).
 *
 * Every count excludes the text asked about when it is part of the corpus, so a training text
 * and a scored text see the same statistics of the others.
 */
import { tokenize, type Token } from './tagger';

/** Longest phrase, in tokens, that is counted. */
export const MAX_PHRASE = 8;

/**
 * Document frequencies of title phrases (Maps and Sets only: the model stays
 * structured-cloneable): `phrases` maps a phrase of 1–{@link MAX_PHRASE} lower-case title
 * tokens joined by U+0001 to the number of texts whose title holds it; `texts` are the texts
 * counted.
 */
export interface CorpusStats {
  texts: Set<string>;
  phrases: Map<string, number>;
}

/** Key of tokens `[from, to)`: their lower-case forms joined by U+0001. */
function tokenRunKey(tokens: Token[], from: number, to: number): string {
  return tokens
    .slice(from, to)
    .map((t) => t.lower)
    .join('\u0001');
}

/** The distinct phrase keys of a text's title (see {@link CorpusStats}). */
function titlePhrases(tokens: Token[]): Set<string> {
  const title = tokens.filter((t) => t.title);
  const out = new Set<string>();
  for (let from = 0; from < title.length; from += 1) {
    for (let to = from + 1; to <= Math.min(title.length, from + MAX_PHRASE); to += 1) out.add(tokenRunKey(title, from, to));
  }
  return out;
}

/** Builds the {@link CorpusStats} of `texts` (a text given twice counts twice). */
export function buildCorpus(texts: Iterable<string>): CorpusStats {
  const stats: CorpusStats = { texts: new Set(), phrases: new Map() };
  for (const text of texts) {
    stats.texts.add(text);
    for (const key of titlePhrases(tokenize(text))) stats.phrases.set(key, (stats.phrases.get(key) ?? 0) + 1);
  }
  return stats;
}

/**
 * The {@link CorpusStats} of `stats`' texts plus `texts` (a new object; `stats` is left as is):
 * what {@link buildCorpus} gives for both together.
 */
export function extendCorpus(stats: CorpusStats, texts: Iterable<string>): CorpusStats {
  const out: CorpusStats = { texts: new Set(stats.texts), phrases: new Map(stats.phrases) };
  for (const text of texts) {
    out.texts.add(text);
    for (const key of titlePhrases(tokenize(text))) out.phrases.set(key, (out.phrases.get(key) ?? 0) + 1);
  }
  return out;
}

/**
 * Number of texts of `stats`, other than `text` itself, whose title holds the phrase of
 * `tokens` `[from, to)` (tokens of `text`); 0 for an empty range, a range past `tokens` or a
 * phrase longer than {@link MAX_PHRASE}.
 */
export function phraseCount(stats: CorpusStats, text: string, tokens: Token[], from: number, to: number): number {
  if (from < 0 || to > tokens.length || to <= from || to - from > MAX_PHRASE) return 0;
  const key = tokenRunKey(tokens, from, to);
  const all = stats.phrases.get(key) ?? 0;
  if (all === 0 || !stats.texts.has(text)) return all;
  // The text's own title counts once when it holds the phrase.
  return tokens.slice(from, to).every((t) => t.title) ? all - 1 : all;
}
