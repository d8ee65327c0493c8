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

/** HTML character references left in scraped titles ("Men&#39;s", "Play &amp; Pretend") → their characters. */
const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: ' ' };
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,6}|#x[\da-f]{1,6}|[a-z]+);/gi, (all, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref.toLowerCase()] ?? all;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/** The stemmed content words of a text, in order (repeats kept); digits-only tokens dropped. */
export function terms(text: string): string[] {
  // A single letter hyphenated to a word is one word ("T-Shirt" → tshirt, "B-12" → b12), not a dropped letter and a word.
  const folded = decodeEntities(text)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/(?<![\p{L}\p{N}])(\p{L})-(?=[\p{L}\p{N}])/gu, '$1');
  const out: string[] = [];
  for (const word of folded.split(/[^\p{L}\p{N}]+/u)) {
    if (word.length < 2 || STOP.has(word) || /^\d+$/.test(word)) continue;
    out.push(stem(word));
  }
  return out;
}
