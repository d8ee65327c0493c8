/**
 * Learning from the user's catalog: when example items (text plus the values the catalog
 * holds for them) are available, a BIO tagger (a linear-chain CRF, crf.ts, over the tokens and
 * features of tagger.ts) is trained on them at run time.
 * Labels come from matching each example's values back into its own text; features are the
 * token's lexical context plus the rule layer's evidence (rules.ts), so the tagger learns per
 * field which kinds of evidence the catalog confirms, where in a title values sit, which
 * words surround them and how long they are. To keep the rule evidence honest on the
 * training texts, it is computed by cross-fitting (Wolpert, "Stacked generalization", 1992):
 * each example's candidates come from profiles built without its fold's values. The same
 * folds give held-out predictions from which each field's source (tagger, rules or both) and
 * least tagger span probability are chosen to maximise micro F1 on the catalog itself, and
 * from which a span reranker (rerank.ts, span-features.ts) learns to choose among each
 * field's likeliest spans with what the tagger cannot weigh: catalog values and phrase counts
 * of the catalog's texts (corpus.ts).
 */
import type { OutputField, TextExample } from '../types';
import { buildProfiles, type FieldProfile } from './profile';
import { phraseKey, stemKey, stemWord } from './spans';
import { coerce, extractWithProfiles, resolve, ruleCandidates, toExtractions, type TextExtraction } from './rules';
import { trainCrf, TRAINING, type Crf } from './crf';
import { tag } from './crf-spans';
import { allowedLabels, tokenFeatures, tokenize, type Sequence, type Token } from './tagger';
import { buildCorpus, extendCorpus, type CorpusStats } from './corpus';
import { choiceProbabilities, trainReranker, type RankingList, type Reranker, type SparseFeatures } from './rerank';
import { catalogValuesOf, noneFeatures, spanFeatures, type CatalogValues } from './span-features';
import { evidenceFeatures, labelTokens, valuesOf } from './labels';

/** One group of catalog items (e.g. a category): its fields and the values its items hold per field. */
export interface TextGroup {
  fields: OutputField[];
  /** Values per field (duplicates = frequency); default: the group's examples' values. */
  knownValues?: Record<string, string[]>;
}

/** What a {@link TextModel} knows about one group of items. */
interface GroupModel {
  profiles: Map<string, FieldProfile>;
  /**
   * Per field: the catalog's values (span-features.ts), for writing a tagged span the way the
   * catalog writes that value and for the reranker's features.
   */
  values: Map<string, CatalogValues>;
  /** Per field: where its value comes from (chosen by cross-validation, see choosePolicies). */
  policies: Map<string, FieldPolicy>;
  /** Tagger labels the group's items may take (O and its own fields; see allowedLabels). */
  labels: number[];
}

/**
 * What {@link trainTextModel} learns: one tagger shared by every group of items, and per group
 * the rule profiles, catalog forms, field policies and the tagger labels of its fields.
 */
export interface TextModel {
  /** Null when no example value could be found in an example text. */
  tagger: Crf | null;
  groups: Map<string, GroupModel>;
  /** True when token features carry a group-specific copy (more than one group). */
  grouped: boolean;
  /**
   * With several groups: profiles of every field name over all groups' known values, whose
   * words are features in every group (a flavour known in one category hints in another).
   */
  shared: Map<string, FieldProfile> | null;
  /** Phrase counts of the catalog's texts (see corpus.ts), read by the reranker's features. */
  corpus: CorpusStats;
  /** Chooses among each field's tagged spans (see rerank.ts); null without a tagger. */
  reranker: Reranker | null;
}

/**
 * Where a field's value comes from: the tagger (values whose span probability, 0–1, is below
 * `minProbability` are dropped), the tagger and else the rule layer (`both`), or the rule
 * layer alone.
 */
export interface FieldPolicy {
  source: 'tagger' | 'both' | 'rules';
  minProbability: number;
}

/**
 * Number of cross-fitting folds for the rule evidence and held-out spans of training texts: 3
 * (with held-out taggers of 8 passes, crf.ts TRAINING) half the training time of 5 folds of 15
 * passes at −0.002 exact F1 on average over the three text evaluations (docs/evaluation-history.md,
 * "Speed of text-only jobs").
 */
const FOLDS = 3;

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

/**
 * Token features of `text` with rule evidence and known-value words from `profiles`, plus the
 * rule layer's own output. With `group` (a model of several groups): each token's place
 * relative to the first word of the group's name in the text (before, at, after), the words of
 * `shared` (every group's known values) as features prefixed `a`, and every feature also
 * copied with the group as prefix, so the shared tagger learns what holds in every group and
 * what holds in one ("feature augmentation", Daumé III, "Frustratingly Easy Domain
 * Adaptation", ACL 2007).
 */
function analyse(
  text: string,
  tokens: Token[],
  profiles: Map<string, FieldProfile>,
  group?: string,
  shared?: Map<string, FieldProfile>,
): { features: string[][]; rules: TextExtraction[] } {
  const candidates = ruleCandidates(text, profiles);
  const resolved = resolve(candidates, profiles);
  const index = wordIndex(profiles);
  const sharedIndex = shared === undefined ? undefined : wordIndex(shared);
  const evidence = evidenceFeatures(tokens, candidates, resolved);
  const groupWords = new Set(group === undefined ? [] : tokenize(group).map((t) => stemWord(t.lower)));
  const firstGroupWord = tokens.findIndex((t) => groupWords.has(stemWord(t.lower)));
  tokens.forEach((t, i) => {
    // Where the token sits relative to the group's own name in the text ("… Toothbrush, Soft").
    if (firstGroupWord >= 0) evidence[i]!.push(i === firstGroupWord ? 'gw' : i < firstGroupWord ? 'gw<' : groupWords.has(stemWord(t.lower)) ? 'gw+' : 'gw>');
    evidence[i]!.push(...(index.get(t.lower) ?? []));
    if (sharedIndex !== undefined) evidence[i]!.push(...[...(sharedIndex.get(t.lower) ?? [])].map((f) => `a${f}`));
  });
  const features = tokenFeatures(tokens, evidence);
  return {
    features: group === undefined ? features : features.map((fs) => fs.concat(fs.map((f) => `${group}\u0001${f}`))),
    rules: toExtractions(resolved, profiles),
  };
}

/** A tagged value of one field with the tagger's probability of its span (0–1, see crf-spans.ts tag). */
interface TaggedValue {
  extraction: TextExtraction;
  probability: number;
}

/** One candidate value of a field: the tagged value (with the tagger's span probability) and its reranker features. */
interface SpanCandidate extends TaggedValue {
  features: SparseFeatures;
}

/** Span probability from which a tagged value counts as high confidence. */
const HIGH_CONFIDENCE = 0.8;

/**
 * Candidate values per field from the tagger's spans (crf-spans.ts tag: the likeliest few per field,
 * in probability order), each written as the catalog writes it when the text shows an
 * inflection of a catalog value (`values`: the group's, or on held-out texts those of the
 * other folds' examples), with its reranker features over `corpus`.
 */
function candidatesOf(
  text: string,
  tokens: Token[],
  features: string[][],
  tagger: Crf,
  group: GroupModel,
  values: Map<string, CatalogValues>,
  corpus: CorpusStats,
): Map<string, SpanCandidate[]> {
  const out = new Map<string, SpanCandidate[]>();
  for (const s of tag(tagger, features, group.labels)) {
    const field = group.profiles.get(s.field)!.field;
    const start = tokens[s.from]!.start;
    const end = tokens[s.to - 1]!.end;
    const written = text.slice(start, end);
    // Only an inflection differing from the catalog's form is rewritten, never mere case.
    const form = values.get(s.field)?.forms.get(stemKey(written));
    const canonical = form !== undefined && phraseKey(form) !== phraseKey(written) ? form : written;
    const value = coerce({ start, end, text: canonical, field: s.field, method: 'vocabulary', score: s.probability }, field);
    if (value === undefined) continue;
    const list = out.get(s.field) ?? [];
    out.set(s.field, list);
    list.push({
      probability: s.probability,
      extraction: { field: s.field, value: field.type === 'array' ? [value] : value, snippet: written, confidence: 'medium', method: 'tagger' },
      features: spanFeatures({ text, tokens, from: s.from, to: s.to, probability: s.probability, rank: list.length }, s.field, values.get(s.field), corpus),
    });
  }
  return out;
}

/**
 * One value per field from its candidates: the reranker's choice (else the likeliest span)
 * with the tagger's probability of that span, which the field policies' thresholds judge.
 * Confidence is high from a probability of {@link HIGH_CONFIDENCE}.
 */
function chooseTagged(candidates: Map<string, SpanCandidate[]>, reranker: Reranker | null): Map<string, TaggedValue> {
  const out = new Map<string, TaggedValue>();
  for (const [field, list] of candidates) {
    let best = 0;
    if (reranker !== null) {
      const p = choiceProbabilities(
        reranker,
        list.map((c) => c.features),
        noneFeatures(field),
      );
      for (let i = 1; i < list.length; i += 1) if (p[i]! > p[best]!) best = i;
    }
    const { extraction, probability } = list[best]!;
    out.set(field, { probability, extraction: { ...extraction, confidence: probability >= HIGH_CONFIDENCE ? 'high' : 'medium' } });
  }
  return out;
}

/** The reranker's decision for one field: its candidates, and the first whose value is a gold value (else none). */
function rankingList(field: string, list: SpanCandidate[], gold: string[]): RankingList {
  const hit = list.findIndex((c) => gold.includes(String(c.extraction.value)));
  return { candidates: list.map((c) => c.features), none: noneFeatures(field), gold: hit < 0 ? list.length : hit };
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

/** One example's held-out predictions: tagger value and probability, rule value, gold values. */
interface HeldOut {
  tagged: Map<string, TaggedValue>;
  /** The fold's tagger's candidates per field, and the fold, from which the reranker learns. */
  candidates: Map<string, SpanCandidate[]>;
  fold: number;
  rules: Map<string, string>;
  gold: TextExample['values'];
}

/**
 * Slot tallies of one field under one option: `correct` = VC, `errors` = 2·VW + NV + VN, so
 * that micro F1 over fields = 2·ΣVC / (2·ΣVC + Σerrors).
 */
function tally(outcomes: Array<{ gold: string[]; predicted: string | undefined }>): { correct: number; errors: number } {
  let correct = 0;
  let errors = 0;
  for (const { gold, predicted } of outcomes) {
    if (predicted === undefined) errors += gold.length > 0 ? 1 : 0;
    else if (gold.includes(predicted)) correct += 1;
    else errors += gold.length > 0 ? 2 : 1;
  }
  return { correct, errors };
}

/** Least span probabilities tried as a field's tagger threshold (0 = keep every tagged value). */
const MIN_PROBABILITIES = [0, 0.2, 0.4, 0.6, 0.8];

/**
 * Every field's policy chosen by cross-validation on the catalog: each combination of source
 * (tagger, tagger else rules, rules) and least tagger span probability (see
 * {@link MIN_PROBABILITIES}) is tallied on the held-out
 * predictions, and the combination of options maximising micro F1 over all fields is found
 * by Dinkelbach's method for ratio objectives (Dinkelbach, "On nonlinear fractional
 * programming", Management Science 1967): with the current F1 = F, each field takes the
 * option maximising VC·(1 − F) − (F/2)·errors, then F is recomputed, until it stops rising.
 * Ties keep the earlier option: the rule layer unless the tagger does better on held-out data.
 */
function choosePolicies(names: string[], heldOut: HeldOut[]): Map<string, FieldPolicy> {
  const perField = names.map((field) => {
    const options: FieldPolicy[] = [
      { source: 'rules', minProbability: Infinity },
      ...MIN_PROBABILITIES.flatMap((minProbability) => [
        { source: 'tagger' as const, minProbability },
        { source: 'both' as const, minProbability },
      ]),
    ];
    return options.map((option) => ({
      option,
      ...tally(
        heldOut.map((h) => {
          const tagged = h.tagged.get(field);
          const source = pick(option, tagged, h.rules.has(field));
          return {
            gold: valuesOf(h.gold[field]),
            predicted: source === 'tagger' ? String(tagged!.extraction.value) : source === 'rules' ? h.rules.get(field) : undefined,
          };
        }),
      ),
    }));
  });
  let f1 = 0;
  let chosen = perField.map((options) => options[0]!);
  for (let round = 0; round < 10; round += 1) {
    const next = perField.map((options) =>
      options.reduce((a, b) => (b.correct * (1 - f1) - (f1 / 2) * b.errors > a.correct * (1 - f1) - (f1 / 2) * a.errors ? b : a)),
    );
    const correct = next.reduce((sum, o) => sum + o.correct, 0);
    const errors = next.reduce((sum, o) => sum + o.errors, 0);
    const nextF1 = correct === 0 ? 0 : (2 * correct) / (2 * correct + errors);
    if (nextF1 <= f1 + 1e-9) break;
    chosen = next;
    f1 = nextF1;
  }
  return new Map(names.map((n, i) => [n, chosen[i]!.option]));
}

/** Which source a policy takes a field's value from, given the tagger's value and whether the rule layer has one. */
function pick(policy: FieldPolicy, tagged: TaggedValue | undefined, hasRule: boolean): 'tagger' | 'rules' | null {
  if (policy.source !== 'rules' && tagged !== undefined && tagged.probability >= policy.minProbability) return 'tagger';
  return policy.source !== 'tagger' && hasRule ? 'rules' : null;
}

/**
 * Trains a text model for `fields` on catalog `examples` (one group of items; the examples'
 * own `group` is ignored). `knownValues` (values per field, duplicates = frequency) default to
 * the examples' values; `texts` are further unlabelled texts of the catalog. See
 * {@link trainGroupedTextModel}.
 */
export function trainTextModel(fields: OutputField[], examples: TextExample[], knownValues?: Record<string, string[]>, texts: string[] = []): TextModel {
  return trainPending(beginTextTraining(fields, examples, knownValues, texts));
}

/** {@link beginGroupedTextTraining} for one group of items (see {@link trainTextModel}). */
export function beginTextTraining(
  fields: OutputField[],
  examples: TextExample[],
  knownValues?: Record<string, string[]>,
  texts: string[] = [],
): PendingTextTraining {
  return beginGroupedTextTraining(
    new Map([['', { fields, knownValues }]]),
    examples.map((e) => ({ ...e, group: '' })),
    texts,
  );
}

/**
 * A text-model training whose CRF trainings are still to run (most of its time; they are
 * independent of each other, so a caller may run them in parallel: src/enrichment/text-threads.ts).
 * Training `k` is {@link trainCrfExcluding}(`names`, `sequences`, `folds`, `trainings[k]`);
 * `complete` takes their taggers in the same order and returns the model.
 */
export interface PendingTextTraining {
  /** The tagger's fields, in label order. */
  names: string[];
  /** Every example's token sequence. */
  sequences: Sequence[];
  /** Each sequence's cross-fitting fold (0 … FOLDS − 1). */
  folds: number[];
  /** The fold each training leaves out (its held-out tagger), or null for the final tagger on every sequence; empty when nothing was labelled. */
  trainings: Array<number | null>;
  /**
   * Hands over training `index`'s tagger as soon as it is trained, in any order (optional): the
   * held-out work of its fold is done now, and once every fold's tagger is in, the field
   * policies and the reranker, so that they overlap the trainings still running. The final
   * tagger's index is ignored. The model is the same as from `complete` alone.
   */
  take(index: number, tagger: Crf): void;
  /** The model, given the taggers of `trainings` in order. @throws Error when their number differs */
  complete(taggers: Crf[]): TextModel;
}

/** A CRF on the `sequences` whose fold is not `exclude` (all of them when null): one training of a {@link PendingTextTraining}. */
export function trainCrfExcluding(names: string[], sequences: Sequence[], folds: number[], exclude: number | null): Crf {
  return trainCrf(
    names,
    sequences.filter((_, i) => folds[i] !== exclude),
    exclude === null ? TRAINING.epochs : TRAINING.heldOutEpochs,
  );
}

/** Runs a pending training's CRF trainings one after another on this thread. */
function trainPending(pending: PendingTextTraining): TextModel {
  return pending.complete(pending.trainings.map((exclude) => trainCrfExcluding(pending.names, pending.sequences, pending.folds, exclude)));
}

/**
 * Trains one text model for a catalog whose items fall into `groups` (e.g. categories with
 * different fields; an example's `group` names its group, examples of unknown groups are
 * ignored): {@link beginGroupedTextTraining} with its CRF trainings run on this thread.
 */
export function trainGroupedTextModel(groups: Map<string, TextGroup>, examples: TextExample[], texts: string[] = []): TextModel {
  return trainPending(beginGroupedTextTraining(groups, examples, texts));
}

/**
 * Prepares the training of one text model for `groups` of items (see
 * {@link trainGroupedTextModel}). Rule profiles are built per group from its known values exactly as
 * {@link buildProfiles} does; the tagger is shared, so what one group's items teach about a
 * field of the same name (a brand's place in a title, a pack size's shape) helps the others,
 * with group-specific feature copies when there are several groups (see analyse). `texts`
 * are further unlabelled texts of the catalog (e.g. the items to be enriched): with the
 * examples' texts they make the corpus of phrase counts (corpus.ts). Steps:
 * (1, here) cross-fitted rule evidence and gold labels for every example; (2) per fold, a tagger
 * trained on the other folds proposes the fold's candidate spans per field (held-out
 * candidates, catalog values from the other folds); (3) per fold, a reranker trained on the
 * other folds' held-out candidates chooses the fold's values; (4) each group's field policies
 * are chosen on these held-out choices; (5) the final tagger and reranker are trained on all
 * examples and held-out candidates. The taggers of (2) and (5) are the pending CRF trainings;
 * `complete` does the rest. Deterministic for the same input, wherever the CRFs are trained.
 * One function on purpose: the steps share the folds and their held-out material, which would
 * otherwise be passed between steps as a dozen parallel arrays.
 */
export function beginGroupedTextTraining(groups: Map<string, TextGroup>, examples: TextExample[], texts: string[] = []): PendingTextTraining {
  const corpus = buildCorpus([...examples.map((e) => e.text), ...texts]);
  const names = [...new Set([...groups.values()].flatMap((g) => g.fields.map((f) => f.name)))];
  const grouped = groups.size > 1;
  const members = new Map([...groups.keys()].map((g) => [g, examples.filter((e) => (e.group ?? '') === g)]));
  const models = new Map<string, GroupModel>();
  for (const [name, group] of groups) {
    const known = group.knownValues ?? knownOf(members.get(name)!);
    models.set(name, {
      profiles: buildProfiles(group.fields, known),
      values: catalogValuesOf(known),
      policies: new Map(group.fields.map((f) => [f.name, { source: 'rules', minProbability: Infinity } as FieldPolicy])),
      labels: allowedLabels(group.fields.map((f) => names.indexOf(f.name))),
    });
  }
  const unionFields = names.map((n) => ({ name: n, type: 'string' as const, description: n }));
  // Folds by position within the group: every group is spread over all folds.
  const foldOf = new Map<TextExample, number>();
  for (const own of members.values()) own.forEach((e, i) => foldOf.set(e, i % FOLDS));
  const outOfFold = (pool: TextExample[], fold: number): TextExample[] => pool.filter((e) => foldOf.get(e) !== fold);
  // Shared word evidence, cross-fitted like the groups' own: an example never sees its fold's values.
  const shared = grouped ? buildProfiles(unionFields, knownOf([...foldOf.keys()])) : null;
  const sharedFolds = Array.from({ length: FOLDS }, (_, fold) =>
    grouped ? buildProfiles(unionFields, knownOf(outOfFold([...foldOf.keys()], fold))) : undefined,
  );
  const prepared: Array<{
    fold: number;
    group: string;
    example: TextExample;
    tokens: Token[];
    sequence: Sequence;
    rules: TextExtraction[];
    values: Map<string, CatalogValues>;
  }> = [];
  let labelled = false;
  for (const [name, group] of groups) {
    const own = members.get(name)!;
    const gm = models.get(name)!;
    const fieldNames = new Set(group.fields.map((f) => f.name));
    const bare = group.fields.map((f) => ({ ...f, sample_values: undefined }));
    const tagged = own.map((example) => {
      const tokens = tokenize(example.text);
      const values = Object.fromEntries(Object.entries(example.values).filter(([k]) => fieldNames.has(k)));
      return { example, tokens, ...labelTokens(example.text, tokens, values, names) };
    });
    for (let fold = 0; fold < FOLDS; fold += 1) {
      const inFold = tagged.filter((t) => foldOf.get(t.example) === fold);
      if (inFold.length === 0) continue;
      const foldKnown = knownOf(outOfFold(own, fold));
      const foldProfiles = buildProfiles(bare, foldKnown);
      const values = catalogValuesOf(foldKnown);
      for (const { example, tokens, labels, found } of inFold) {
        labelled ||= found.size > 0;
        const { features, rules } = analyse(example.text, tokens, foldProfiles, grouped ? name : undefined, sharedFolds[fold]);
        prepared.push({ fold, group: name, example, tokens, sequence: { features, labels, allowed: gm.labels }, rules, values });
      }
    }
  }
  const sequences = prepared.map((p) => p.sequence);
  const folds = prepared.map((p) => p.fold);
  const tested = Array.from({ length: FOLDS }, (_, fold) => fold).filter((fold) => folds.includes(fold));
  const trainings = labelled ? [...tested, null] : [];
  /** Each tested fold's held-out predictions, by the fold's place in `tested` (see take). */
  const taken: Array<Array<{ group: string; held: HeldOut }>> = [];
  let takenCount = 0;
  let finalReranker: Reranker | null = null;
  /**
   * Once every fold is in: the held-out predictions in fold order (as one pass over the folds
   * would make them, whatever order the taggers came in), the reranker's own cross-fitted
   * choices, the field policies chosen on them, and the final reranker.
   */
  const finishHeldOut = (): Reranker => {
    const heldOut = new Map<string, HeldOut[]>([...groups.keys()].map((g) => [g, []]));
    for (const fold of taken) for (const { group, held } of fold) heldOut.get(group)!.push(held);
    // The reranker's own held-out choices (cross-fitted on the same folds) decide the policies.
    const all = [...heldOut.values()].flat();
    const lists = (pool: HeldOut[]): RankingList[] =>
      pool.flatMap((h) => [...h.candidates].map(([field, list]) => rankingList(field, list, valuesOf(h.gold[field]))));
    for (let fold = 0; fold < FOLDS; fold += 1) {
      const reranker = trainReranker(lists(all.filter((h) => h.fold !== fold)));
      for (const h of all.filter((x) => x.fold === fold)) h.tagged = chooseTagged(h.candidates, reranker);
    }
    for (const [name, group] of groups)
      models.get(name)!.policies = choosePolicies(
        group.fields.map((f) => f.name),
        heldOut.get(name)!,
      );
    return trainReranker(lists(all));
  };
  const take = (index: number, tagger: Crf): void => {
    if (!labelled || index < 0 || index >= tested.length || taken[index] !== undefined) return;
    const fold = tested[index]!;
    taken[index] = prepared
      .filter((p) => p.fold === fold)
      .map((p) => ({
        group: p.group,
        held: {
          candidates: candidatesOf(p.example.text, p.tokens, p.sequence.features, tagger, models.get(p.group)!, p.values, corpus),
          tagged: new Map(),
          fold,
          rules: new Map(p.rules.map((e) => [e.field, String(e.value)])),
          gold: p.example.values,
        },
      }));
    takenCount += 1;
    if (takenCount === tested.length) finalReranker = finishHeldOut();
  };
  const complete = (taggers: Crf[]): TextModel => {
    if (taggers.length !== trainings.length) throw new Error(`text model: ${taggers.length} taggers for ${trainings.length} trainings`);
    if (!labelled) return { tagger: null, groups: models, grouped, shared, corpus, reranker: null };
    taggers.forEach((tagger, index) => take(index, tagger));
    return { tagger: taggers[tested.length]!, groups: models, grouped, shared, corpus, reranker: finalReranker };
  };
  return { names, sequences, folds, trainings, take, complete };
}

/**
 * The same model reading its phrase counts over further unlabelled `texts` of the catalog as
 * well (e.g. the items of one job; corpus.ts): the trained parts are shared, only the corpus is
 * new. Lets a model trained once on a catalog's examples serve every job of that catalog.
 */
export function withCorpus(model: TextModel, texts: readonly string[]): TextModel {
  return texts.length === 0 ? model : { ...model, corpus: extendCorpus(model.corpus, texts) };
}

/**
 * Extracts values from `text` of an item of `group` (default: the only group of a model from
 * {@link trainTextModel}) with a trained model: per field, the tagger's value or the rule
 * layer's, as the field's policy says. Same output contract as the rule layer.
 * @throws Error when the model has no such group
 */
export function extractWithModel(text: string, model: TextModel, group = ''): TextExtraction[] {
  const gm = model.groups.get(group);
  if (gm === undefined) throw new Error(`text model: unknown item group "${group}"`);
  if (model.tagger === null) return extractWithProfiles(text, gm.profiles);
  const tokens = tokenize(text);
  const { features, rules } = analyse(text, tokens, gm.profiles, model.grouped ? group : undefined, model.shared ?? undefined);
  const tagged = chooseTagged(candidatesOf(text, tokens, features, model.tagger, gm, gm.values, model.corpus), model.reranker);
  const out: TextExtraction[] = [];
  for (const [field, policy] of gm.policies) {
    const rule = rules.find((e) => e.field === field);
    const source = pick(policy, tagged.get(field), rule !== undefined);
    if (source === 'tagger') out.push(tagged.get(field)!.extraction);
    else if (source === 'rules') out.push(rule!);
  }
  return out;
}
