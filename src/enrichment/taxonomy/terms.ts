/**
 * Terms for category matching: NFKD-folded, diacritics removed, lower-cased words with a
 * light English plural/suffix stemmer (so "Tables" matches "table", "Shelves" "shelf",
 * "Batteries" "battery"), function words dropped.
 */

const STOP = new Set([
  'a',
  'an',
  'and',
  'or',
  'the',
  'of',
  'for',
  'with',
  'without',
  'in',
  'on',
  'to',
  'by',
  'from',
  'at',
  'as',
  'is',
  'are',
  'this',
  'that',
  'your',
  'our',
  'other',
  'misc',
  'x',
]);

/** Stem of one lower-case word (a few English inflection rules; idempotent on its output). */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ves')) w = `${w.slice(0, -3)}f`;
  else if (w.length > 3 && /(sses|xes|ches|shes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith('ing')) w = w.slice(0, -3);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** The stemmed content words of a text, in order (repeats kept); digits-only tokens dropped. */
export function terms(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const out: string[] = [];
  for (const word of folded.split(/[^\p{L}\p{N}]+/u)) {
    if (word.length < 2 || STOP.has(word) || /^\d+$/.test(word)) continue;
    out.push(stem(word));
  }
  return out;
}
