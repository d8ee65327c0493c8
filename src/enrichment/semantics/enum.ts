/**
 * Mapping an extracted value onto a field's `enum` / `items_enum` member (docs/api-enrichment.md "Enrichment jobs"): case-, diacritics-, space/underscore/hyphen-insensitive, schema.org
 * enumeration URLs reduced to their member name (`https://schema.org/InStock` → `InStock`,
 * schema.org enumeration members), and a small table of common spelling synonyms.
 */

/** Spelling variants that name the same value (British/American, common abbreviations). */
const SYNONYMS: string[][] = [
  ['grey', 'gray'],
  ['colour', 'color'],
  ['aluminium', 'aluminum'],
  ['yes', 'true', 'y'],
  ['no', 'false', 'n'],
  ['stainlesssteel', 'inox'],
  ['multicolor', 'multicolour', 'multi', 'multicolored'],
  ['new', 'newcondition'],
  ['used', 'usedcondition'],
  ['refurbished', 'refurbishedcondition'],
  ['instock', 'available', 'instore'],
  ['outofstock', 'soldout', 'unavailable'],
];

/** Folded comparison key: NFKD without marks, lower-case, no spaces/underscores/hyphens; schema.org URL prefix removed. */
export function enumKey(value: unknown): string {
  const s = String(value)
    .trim()
    .replace(/^https?:\/\/(www\.)?schema\.org\//i, '');
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_\-./]+/g, '');
}

function synonymsOf(key: string): string[] {
  return SYNONYMS.find((group) => group.includes(key)) ?? [key];
}

/**
 * The enum member a value denotes, or undefined when none does (the caller then drops it or
 * reports it; it is never kept outside the enum).
 * @param members the field's `enum` or `items_enum`
 */
export function mapEnum<T extends string | number | boolean>(value: unknown, members: readonly T[]): T | undefined {
  const key = enumKey(value);
  const direct = members.find((m) => enumKey(m) === key);
  if (direct !== undefined) return direct;
  const alternatives = synonymsOf(key);
  return members.find((m) => alternatives.includes(enumKey(m)));
}
