/**
 * What the span reranker (rerank.ts) knows of a candidate value beyond the tagger's token
 * features: the catalog's values of its field (held as {@link CatalogValues}) and span-level
 * features of a candidate (see {@link spanFeatures}).
 */
import { phraseCount, type CorpusStats } from './corpus';
import type { SparseFeatures } from './rerank';
import { stemKey } from './spans';
import { isSeparator, type Token } from './tagger';

/**
 * The catalog's values of one field by stem key (see spans.ts stemKey): the most frequent
 * written form (ties: first seen), the number of items holding the value, and the stem keys
 * of every run of words inside a value.
 */
export interface CatalogValues {
  forms: Map<string, string>;
  counts: Map<string, number>;
  parts: Set<string>;
}

/** {@link CatalogValues} per field of `knownValues` (values per field, duplicates = frequency). */
export function catalogValuesOf(knownValues: Record<string, string[]>): Map<string, CatalogValues> {
  const out = new Map<string, CatalogValues>();
  for (const [field, values] of Object.entries(knownValues)) {
    const surfaces = new Map<string, Map<string, number>>();
    const parts = new Set<string>();
    for (const v of values) {
      const key = stemKey(v);
      const perKey = surfaces.get(key) ?? new Map<string, number>();
      surfaces.set(key, perKey);
      perKey.set(v, (perKey.get(v) ?? 0) + 1);
      const words = key.split(' ');
      for (let a = 0; a < words.length; a += 1) for (let b = a + 1; b <= words.length; b += 1) parts.add(words.slice(a, b).join(' '));
    }
    const forms = new Map<string, string>();
    const counts = new Map<string, number>();
    for (const [key, perKey] of surfaces) {
      forms.set(key, [...perKey.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0]);
      counts.set(
        key,
        [...perKey.values()].reduce((a, b) => a + b, 0),
      );
    }
    out.set(field, { forms, counts, parts });
  }
  return out;
}

/** Bucket of a count: 0, 1–2, 3–6, 7–14, 15 or more (⌊log2(n + 1)⌋, capped at 4). */
function countBucket(n: number): number {
  return Math.min(4, Math.floor(Math.log2(n + 1)));
}

/**
 * Indicator features `names` (and real-valued ones `real`) as a sparse vector, each once as
 * it is and once for the field, so the reranker learns what holds for every field and what
 * for one (Daumé III, "Frustratingly Easy Domain Adaptation", ACL 2007).
 */
function conjoined(field: string, names: string[], real: Record<string, number> = {}): SparseFeatures {
  const out: SparseFeatures = new Map();
  for (const prefix of ['', `${field}|`]) {
    for (const n of names) out.set(prefix + n, 1);
    for (const [n, v] of Object.entries(real)) out.set(prefix + n, v);
  }
  return out;
}

/** A candidate span of one field: token range `[from, to)` of `tokens` (of `text`), the tagger's probability and its rank among the field's spans (0 = likeliest). */
export interface SpanAt {
  text: string;
  tokens: Token[];
  from: number;
  to: number;
  probability: number;
  rank: number;
}

/**
 * The catalog features of token range `[from, to)` (see {@link spanFeatures}): `known` with
 * `knownN=`, else `inKnown`; `hasKnown` when a shorter run inside it is a value. `keyOf(a, b)`
 * is the stem key of tokens `[a, b)`.
 */
function catalogNames(values: CatalogValues, keyOf: (a: number, b: number) => string, from: number, to: number): string[] {
  const out: string[] = [];
  const key = keyOf(from, to);
  const known = values.counts.get(key) ?? 0;
  if (known > 0) out.push('known', `knownN=${countBucket(known)}`);
  else if (values.parts.has(key)) out.push('inKnown');
  for (let a = from; a < to; a += 1) {
    for (let b = a + 1; b <= to; b += 1) {
      if (b - a < to - from && (values.counts.get(keyOf(a, b)) ?? 0) > 0) return [...out, 'hasKnown'];
    }
  }
  return out;
}

/**
 * Reranker features of candidate `span` of `field`: the tagger's log probability (`logp`,
 * real-valued) and rank (`rank=`, 3 = 3 or later); length in tokens (`len=`, 5 = 5 or more);
 * the catalog's values (`known` with `knownN=` the bucket of items holding it, else `inKnown`
 * when it lies inside one; `hasKnown` when a shorter run inside it is one); in how many other
 * texts of `corpus` it stands as a title phrase (`df=`) and which share of those continue
 * with the same next (`next=`) / previous (`prev=`) word as here ("-" none, 0, lo < ½, hi,
 * 1; "$"/"^" at the text's ends); whether a separator or the text's edge precedes / follows
 * it (`seg=`); `first` when it starts the text, `desc` when it lies in the description.
 */
export function spanFeatures(span: SpanAt, field: string, values: CatalogValues | undefined, corpus: CorpusStats): SparseFeatures {
  const { text, tokens, from, to, probability, rank } = span;
  const count = phraseCount(corpus, text, tokens, from, to);
  const share = (n: number): string => (count === 0 ? '-' : n === 0 ? '0' : n >= count ? '1' : n * 2 < count ? 'lo' : 'hi');
  const names = [
    `rank=${Math.min(rank, 3)}`,
    `len=${Math.min(to - from, 5)}`,
    `df=${countBucket(count)}`,
    `next=${to >= tokens.length ? '$' : share(phraseCount(corpus, text, tokens, from, to + 1))}`,
    `prev=${from === 0 ? '^' : share(phraseCount(corpus, text, tokens, from - 1, to))}`,
    `seg=${isSeparator(tokens, from - 1) ? 1 : 0}${isSeparator(tokens, to) ? 1 : 0}`,
  ];
  if (values !== undefined) names.push(...catalogNames(values, (a, b) => stemKey(text.slice(tokens[a]!.start, tokens[b - 1]!.end)), from, to));
  if (from === 0) names.push('first');
  if (!tokens[from]!.title) names.push('desc');
  return conjoined(field, names, { logp: Math.log(Math.max(probability, 1e-6)) });
}

/** Features of a field's "none" choice: a bias, once overall and once for the field. */
export function noneFeatures(field: string): SparseFeatures {
  return conjoined(field, ['none']);
}
