/**
 * Learning from the user's catalog: when example items (text plus the values the catalog
 * holds for them) are available, a BIO tagger (tagger.ts) is trained on them at run time.
 * Labels come from matching each example's values back into its own text; features are the
 * token's lexical context plus the rule layer's evidence (rules.ts), so the tagger learns per
 * field which kinds of evidence the catalog confirms, where in a title values sit, which
 * words surround them and how long they are. To keep the rule evidence honest on the
 * training texts, it is computed by cross-fitting (Wolpert, "Stacked generalization", 1992):
 * each example's candidates come from profiles built without its fold's values.
 */
import type { OutputField } from '../types';
import type { Candidate } from './candidates';
import { buildProfiles, type FieldProfile } from './profile';
import { coerce, resolve, ruleCandidates, extractWithProfiles, type TextExtraction } from './rules';
import { tag, tokenFeatures, tokenize, trainTagger, type Sequence, type Tagger, type Token } from './tagger';

/** One catalog item for training: its text and its values (alternatives allowed; null = none). */
export interface TextExample {
  text: string;
  values: Record<string, string | string[] | null | undefined>;
}

/** What {@link trainTextModel} learns: rule profiles plus the tagger and the fields it owns. */
export interface TextModel {
  profiles: Map<string, FieldProfile>;
  /** Null when no example value could be found in an example text. */
  tagger: Tagger | null;
  /**
   * Fields decided by the tagger: their catalog values are mostly written verbatim in the
   * example texts. Other fields (e.g. normalized values) stay with the rule layer.
   */
  tagged: Set<string>;
}

/** Number of cross-fitting folds for the rule evidence on training texts. */
const FOLDS = 5;

/** Least share of a field's example values found verbatim in their texts for the tagger to own it. */
const MIN_WRITTEN_SHARE = 0.5;

/** Least number of verbatim occurrences for the tagger to own a field. */
const MIN_WRITTEN = 3;

/** Acceptable values of one example field as a list (empty for none). */
function valuesOf(v: TextExample['values'][string]): string[] {
  if (v === null || v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((x) => x.trim().length > 0);
}

/** Token range `[from, to)` whose text spans exactly `[start, end)`, or null. */
function tokenRange(tokens: Token[], start: number, end: number): [number, number] | null {
  const from = tokens.findIndex((t) => t.start === start);
  const last = tokens.findIndex((t) => t.end === end);
  return from >= 0 && last >= from ? [from, last + 1] : null;
}

/** Every occurrence of `value` in `text` (case-sensitive; case-insensitive when none). */
function occurrences(text: string, value: string): number[] {
  const find = (hay: string, needle: string): number[] => {
    const out: number[] = [];
    for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) out.push(i);
    return out;
  };
  const exact = find(text, value);
  return exact.length > 0 ? exact : find(text.toLowerCase(), value.toLowerCase());
}

/**
 * Gold labels of an example's tokens: every occurrence of the first of a field's values that
 * occurs on token boundaries is labelled B/I of that field (longer values first; a token
 * keeps its first label). Returns the labels and the fields found.
 */
export function labelTokens(text: string, tokens: Token[], values: TextExample['values'], fields: string[]): { labels: number[]; found: Set<string> } {
  const labels = new Array<number>(tokens.length).fill(0);
  const found = new Set<string>();
  const entries = fields
    .map((field, k) => ({ field, k, value: valuesOf(values[field]).map((v) => ({ v, at: occurrences(text, v) })).find((x) => x.at.length > 0) }))
    .filter((e) => e.value !== undefined)
    .sort((a, b) => b.value!.v.length - a.value!.v.length);
  for (const { field, k, value } of entries) {
    for (const at of value!.at) {
      const range = tokenRange(tokens, at, at + value!.v.length);
      if (range === null || labels.slice(range[0], range[1]).some((l) => l !== 0)) continue;
      for (let t = range[0]; t < range[1]; t += 1) labels[t] = t === range[0] ? 2 * k + 1 : 2 * k + 2;
      found.add(field);
    }
  }
  return { labels, found };
}

/**
 * Evidence features of each token from rule candidates: which field and kind of evidence
 * covers it (and whether it begins or ends that candidate), and which field the rule layer's
 * resolution gives it.
 */
export function evidenceFeatures(tokens: Token[], candidates: Candidate[], resolved: Candidate[]): string[][] {
  const out = tokens.map(() => [] as string[]);
  const mark = (c: Candidate, prefix: string): void => {
    let first = true;
    for (let t = 0; t < tokens.length; t += 1) {
      const tok = tokens[t]!;
      if (tok.start < c.start || tok.end > c.end) continue;
      out[t]!.push(`${prefix}=${c.field}|${c.method}|${first ? 'B' : 'I'}`);
      if (tokens[t + 1] === undefined || tokens[t + 1]!.end > c.end) out[t]!.push(`${prefix}E=${c.field}|${c.method}`);
      first = false;
    }
  };
  for (const c of candidates) mark(c, 'c');
  for (const c of resolved) mark(c, 'r');
  return out;
}

/** Word → fields whose catalog values contain it, with the word's place in those values. */
type WordIndex = Map<string, Set<string>>;

const wordIndexes = new WeakMap<Map<string, FieldProfile>, WordIndex>();

/**
 * Word index of the profiles' vocabularies (cached per profile map): for each lower-case
 * word of a known value, the features `v=<field>` and `v=<field>|first`/`|last` when it
 * begins/ends a value. Lets the tagger generalise from known values to new combinations
 * of their words (open-ended values such as flavours or product lines).
 */
function wordIndex(profiles: Map<string, FieldProfile>): WordIndex {
  let index = wordIndexes.get(profiles);
  if (index !== undefined) return index;
  index = new Map();
  for (const p of profiles.values()) {
    for (const key of p.vocabulary.counts.keys()) {
      const words = tokenize(key).map((t) => t.lower);
      words.forEach((w, i) => {
        const set = index!.get(w) ?? new Set<string>();
        index!.set(w, set);
        set.add(`v=${p.field.name}`);
        if (i === 0) set.add(`v=${p.field.name}|first`);
        if (i === words.length - 1) set.add(`v=${p.field.name}|last`);
      });
    }
  }
  wordIndexes.set(profiles, index);
  return index;
}

/** Token features of `text` with rule evidence and known-value words from `profiles`. */
function featuresOf(text: string, tokens: Token[], profiles: Map<string, FieldProfile>): string[][] {
  const candidates = ruleCandidates(text, profiles);
  const index = wordIndex(profiles);
  const evidence = evidenceFeatures(tokens, candidates, resolve(candidates, profiles));
  tokens.forEach((t, i) => evidence[i]!.push(...(index.get(t.lower) ?? [])));
  return tokenFeatures(tokens, evidence);
}

/** Catalog values per field of some examples (one per example: its first acceptable value). */
function knownOf(examples: TextExample[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of examples) {
    for (const [field, v] of Object.entries(e.values)) {
      const first = valuesOf(v)[0];
      if (first !== undefined) (out[field] ??= []).push(first);
    }
  }
  return out;
}

/**
 * Trains a text model for `fields` on catalog `examples`. `knownValues` (values per field,
 * duplicates = frequency) default to the examples' values; the rule profiles are built from
 * them exactly as {@link buildProfiles} does. Deterministic for the same input.
 */
export function trainTextModel(fields: OutputField[], examples: TextExample[], knownValues: Record<string, string[]> = knownOf(examples)): TextModel {
  const profiles = buildProfiles(fields, knownValues);
  const names = fields.map((f) => f.name);
  const bare = fields.map((f) => ({ ...f, sample_values: undefined }));
  const written = new Map<string, number>();
  const given = new Map<string, number>();
  const sequences: Sequence[] = [];
  for (let fold = 0; fold < FOLDS; fold += 1) {
    const inFold = examples.filter((_, i) => i % FOLDS === fold);
    if (inFold.length === 0) continue;
    const foldProfiles = buildProfiles(bare, knownOf(examples.filter((_, i) => i % FOLDS !== fold)));
    for (const e of inFold) {
      const tokens = tokenize(e.text);
      const { labels, found } = labelTokens(e.text, tokens, e.values, names);
      for (const n of names) if (valuesOf(e.values[n]).length > 0) given.set(n, (given.get(n) ?? 0) + 1);
      for (const n of found) written.set(n, (written.get(n) ?? 0) + 1);
      sequences.push({ features: featuresOf(e.text, tokens, foldProfiles), labels });
    }
  }
  const tagged = new Set(names.filter((n) => (written.get(n) ?? 0) >= MIN_WRITTEN && (written.get(n) ?? 0) / (given.get(n) ?? 1) >= MIN_WRITTEN_SHARE));
  const tagger = written.size > 0 ? trainTagger(names, sequences) : null;
  return { profiles, tagger, tagged };
}

/**
 * Extracts values from `text` with a trained model: the tagger decides the fields it owns
 * (one span per field, the one with the largest least margin over O); the rule layer
 * decides the others. Same output contract as the rule layer.
 */
export function extractWithModel(text: string, model: TextModel): TextExtraction[] {
  const rules = extractWithProfiles(text, model.profiles).filter((e) => !model.tagged.has(e.field));
  if (model.tagger === null) return rules;
  const tokens = tokenize(text);
  const spans = tag(model.tagger, featuresOf(text, tokens, model.profiles)).filter((s) => model.tagged.has(s.field));
  const out: TextExtraction[] = [];
  for (const s of [...spans].sort((a, b) => b.margin - a.margin)) {
    if (out.some((o) => o.field === s.field)) continue;
    const profile = model.profiles.get(s.field)!;
    const start = tokens[s.from]!.start;
    const end = tokens[s.to - 1]!.end;
    const candidate: Candidate = { start, end, text: text.slice(start, end), field: s.field, method: 'vocabulary', score: s.margin };
    const value = coerce(candidate, profile.field);
    if (value === undefined) continue;
    out.push({
      field: s.field,
      value: profile.field.type === 'array' ? [value] : value,
      snippet: candidate.text,
      confidence: s.margin >= 1 ? 'high' : 'medium',
      method: 'tagger',
    });
  }
  return [...out, ...rules];
}
