/**
 * Span helpers shared by the text extractors: token-boundary regular expressions over the
 * original text, so every match is an exact substring (`snippet`) of the input.
 */

/** A substring of the input text: `[start, end)` UTF-16 offsets and the text itself. */
export interface Span {
  start: number;
  end: number;
  text: string;
}

/** Letters or digits in any script (a "word" character for boundary checks). */
const ALNUM = /[\p{L}\p{N}]/u;

/** True when `ch` is a letter or digit in any script. */
export function isAlnum(ch: string | undefined): boolean {
  return ch !== undefined && ALNUM.test(ch);
}

/** Escapes a literal for use inside a RegExp source. */
export function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Matching key of a phrase: lower case, dashes/underscores/whitespace runs collapsed to one
 * space, trimmed. Two surface forms with the same key are the same vocabulary entry
 * ("16-Ounce" = "16 ounce").
 */
export function phraseKey(phrase: string): string {
  return phrase
    .toLowerCase()
    .replace(/[\s\-_]+/g, ' ')
    .trim();
}

/** All matches of a global RegExp in `text` as spans (zero-length matches skipped). */
export function findAll(text: string, re: RegExp): Span[] {
  const out: Span[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex += 1;
      continue;
    }
    out.push({ start: m.index, end: m.index + m[0].length, text: m[0] });
  }
  return out;
}

/** True when two spans share at least one character. */
export function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}

/** A lower-case word without its plural ending ("jerseys" → "jersey"; words of ≤ 3 letters kept). */
export function stemWord(word: string): string {
  return word.length > 3 ? word.replace(/(?:es|s)$/, '') : word;
}

/** Key of a phrase with plural endings of its words removed, for matching catalog forms. */
export function stemKey(phrase: string): string {
  return phraseKey(phrase).split(' ').map(stemWord).join(' ');
}
