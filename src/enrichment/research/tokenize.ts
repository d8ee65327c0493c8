/**
 * Search tokens of a text: NFKD-folded, diacritics removed, lower-cased, split on anything
 * that is not a letter or digit. Identifiers such as `B07FW264WL` or `4054278533728` stay one
 * token; a hyphenated part number also yields its joined form (`WH-1000XM4` → `wh`, `1000xm4`,
 * `wh1000xm4`) so either spelling finds it.
 */
export function tokenize(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const out: string[] = [];
  for (const word of folded.split(/[^\p{L}\p{N}\-_./]+/u)) {
    if (!word) continue;
    const parts = word.split(/[-_./]+/).filter(Boolean);
    out.push(...parts);
    if (parts.length > 1 && parts.some((p) => /\d/.test(p)) && parts.join('').length <= 30) out.push(parts.join(''));
  }
  return out;
}
