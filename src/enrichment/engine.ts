import { extractFromText, extractWithModel, type TextModel } from './text';
import { createLearnedTextModels, learnedTextFields } from './learned-text';
import { coerce } from './extract/coerce';
import { pageCandidates } from './extract/candidates';
import type { Candidate, Method } from './extract/candidate';
import { matchPage, pageReading, type ItemIdentity, type PageMatch } from './extract/identity';
import { fieldRole, snake } from './extract/roles';
import { ruleOn, type ExtractionTuning } from './extract/rules';
import { calibrationCell, cellProbability, levelOf } from './extract/calibration';
import { BUILT_IN_CALIBRATION } from './extract/calibration-table';
import { PageMemo, type PageDoc } from './parse/page';
import { domainAllowed } from './research/domains';
import { itemIdentifiers, itemName, itemNameKey, planQueries, SPEED_BUDGETS } from './research/plan';
import { brandAtStart, brandKnowledge, knownBrand } from './text/brand';
import { withSourceHints } from './research/hints';
import { promptSteer, withPromptDomains, withPromptWords } from './research/prompt';
import type { FetchedPage, Fetcher, SearchProvider, WarcRecordRef } from './research/types';
import { fieldsLacking, itemPageSources, reviewItemPageFailures } from './research/item-page';
import { knowledgeBaseCandidates, knowledgeBaseSources } from './knowledge-base/sources';
import { createLlmClient, refineWithLlm, withFitCheck, type LlmConfig } from './llm';
import { fetchedPageDoc } from './providers/documents';
import { RetryLaterError } from './research/types';
import type {
  EngineUsage,
  EnrichInput,
  EnrichmentEngine,
  EnrichmentResult,
  Evidence,
  ItemPageFailure,
  LowConfidenceCandidate,
  OutputField,
  ReviewInfo,
} from './types';
import { applySemantics, present } from './semantics';
import { keepIdentity } from './semantics/refresh';
import { readDimension } from './semantics/dimensions';
import { lowConfidenceWanted } from './semantics/low-confidence';
import { unitCandidates } from './semantics/measure';
import { applyTaxonomy, type CompiledTaxonomy } from './taxonomy';
import { type Confidence, vote, type Voted } from './voting';

/**
 * What evidence stores per read page: the compact parsed facts and where the page ranked; for a
 * page of a web archive also its capture date and WARC record.
 */
export interface EvidenceDocument {
  url: string;
  /** 0-based position: the item's own pages first, then the fused search ranking. */
  rank: number;
  doc: PageDoc;
  captured_at?: string;
  warc_record?: WarcRecordRef;
}

/** The capture facts of an archived page (none for a live fetch). */
function captureOf(page: FetchedPage): Pick<EvidenceDocument, 'captured_at' | 'warc_record'> {
  return page.record ? { captured_at: page.fetched_at, warc_record: page.record } : {};
}

function emptyUsage(): EngineUsage {
  return { search_calls: 0, pages_fetched: 0, llm_calls: 0, llm_prompt_tokens: 0, llm_completion_tokens: 0 };
}

/** Keeps evidence small: capped text and lists (the extractor reads no more than this). */
function compact(doc: PageDoc): PageDoc {
  return {
    ...doc,
    text: doc.text.slice(0, 20_000),
    key_values: doc.key_values.slice(0, 300),
    price_texts: doc.price_texts.slice(0, 15),
    availability_texts: doc.availability_texts.slice(0, 10),
    images: doc.images.slice(0, 20),
  };
}

/** Reciprocal-rank fusion (Cormack et al. 2009, k = 10) of several result lists; ties by URL. */
function fuse(lists: Array<Array<{ url: string }>>): Array<{ url: string; score: number }> {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((r, i) => scores.set(r.url, (scores.get(r.url) ?? 0) + 1 / (10 + i)));
  return [...scores].map(([url, score]) => ({ url, score: Number(score.toFixed(6)) })).sort((a, b) => b.score - a.score || (a.url < b.url ? -1 : 1));
}

/** Roles whose page values carry a calibrated confidence (the labelled fields of the pages suite). */
const CALIBRATED_ROLES = new Set(['price', 'currency', 'availability', 'sku', 'brand', 'gtin', 'mpn']);

/**
 * The calibrated confidence of a voted page value (src/enrichment/extract/calibration.ts): the
 * probability of its cell under the tuning's calibration (the built-in one by default) mapped
 * to high / medium / low; the vote's own rule for fields of other roles and knowledge-base values.
 * A value with a doubtful reading (`Candidate.doubt`: docs/evaluation.md, "Calibrated confidence";
 * docs/enrich-options.md, "Sale and list prices") is in a `doubtful` cell and at most `medium`.
 */
function calibratedConfidence(voted: Voted, role: string, field: string, tuning?: ExtractionTuning): Confidence {
  const level = uncappedConfidence(voted, role, field, tuning);
  return level === 'high' && voted.candidates.some((c) => c.doubt) ? 'medium' : level;
}

function uncappedConfidence(voted: Voted, role: string, field: string, tuning?: ExtractionTuning): Confidence {
  const best = voted.candidates[0];
  if (!CALIBRATED_ROLES.has(role) || best.method === 'knowledge_base') return voted.confidence;
  const cal = tuning?.calibration ?? BUILT_IN_CALIBRATION;
  const [contested, doubtful] = [voted.rivals.some((r) => r.weight >= 0.5), voted.candidates.some((c) => !!c.doubt)];
  const cell = calibrationCell({ method: best.method, weight: best.weight, agreeing: voted.agreeing, contested, doubtful });
  const probability = cellProbability(cal, cell);
  tuning?.observe?.(field, cell, probability);
  return cal.total.n > 0 ? levelOf(cal, cell) : voted.confidence;
}

/**
 * The texts of an item that `web_search: false` extraction reads: every non-blank string
 * field, as `[field name, text]` in the item's key order. Also what a catalog item offers as
 * training text (src/services/enrichment/rows/examples.ts), so the tagger learns from the same
 * kind of text it is applied to.
 */
export function inputText(item: Record<string, unknown>): Array<[string, string]> {
  return Object.entries(item)
    .filter(([, v]) => typeof v === 'string' && v.trim().length > 0)
    .map(([k, v]) => [k, v as string]);
}

/**
 * Builds the enrichment engine over a search provider and a fetcher (the offline archive or
 * the live web). research: query planning from identifiers then name, reciprocal-rank fusion,
 * fetch + parse of the best candidates within the speed tier's budget. extract: identity
 * check per page, candidates per field (structured data, OpenGraph, spec tables, text),
 * agreement voting, typed output with sources and explanations; deterministic, no I/O.
 * `web_search: false` reads values only from the item's own text (src/enrichment/text); with
 * `options.text_examples` (the target catalog's items) a tagger learned from them reads it
 * (src/enrichment/learned-text.ts, trained once per examples and field set, off the event loop).
 * Knowledge-base documents (`options.knowledge_base`) join voting as `SOURCE_X` candidates.
 * With `llm`, extract adds one structured-output LLM call over the evidence (src/enrichment/llm),
 * merged under its grounding rules, and with `validate_semantics` a second one checking that the
 * values fit their fields (src/enrichment/llm/fit.ts). The request's `prompt` steers research
 * with or without a model: its product words join the name query, the domains it names are
 * preferred like source hints (src/enrichment/research/prompt.ts). Search/fetch failures are
 * recorded in `evidence.problems`.
 * The engine owns its state: trained text models and their training queue, the LLM client, and
 * a parse memo of the pages and knowledge-base documents it read (one engine per worker).
 * `tuning`: the extraction rules left out and the confidence calibration (src/enrichment/extract/rules.ts);
 * the service passes none (every rule, the built-in calibration), the evaluation one fitted per held-out site family.
 * `itemFetcher` reads the pages items name themselves (default `fetcher`): the service passes the
 * archives followed by the live fetcher in every configuration (src/enrichment/providers/index.ts);
 * such a page that the live fetcher could not read is kept in `evidence.item_pages` and said on the
 * row (field issue; flag `robots_denied`, or `research_problems` for other failures).
 * `taxonomyBridge` gives the compiled Google product taxonomy (loaded on first use), through which
 * items are classified into a catalog's own taxonomy (src/enrichment/taxonomy/bridge.ts).
 * Long on purpose: the closure wires the stages over shared loaders; the work is in the small functions it calls.
 */
export function createEngine(deps: {
  search: SearchProvider;
  fetcher: Fetcher;
  itemFetcher?: Fetcher;
  llm?: LlmConfig;
  tuning?: ExtractionTuning;
  taxonomyBridge?: () => CompiledTaxonomy | null;
}): EnrichmentEngine {
  const learned = createLearnedTextModels();
  const parsed = new PageMemo();
  const llm = deps.llm ? createLlmClient(deps.llm) : null;
  const research: EnrichmentEngine['research'] = async (input) => {
    const usage = emptyUsage();
    const evidence: Evidence = { queries: [], search_results: [], documents: [] };
    if (!input.options.web_search) return { evidence, usage };
    const { allowed_domains, blocked_domains, organization_id } = input.options;
    const budget = SPEED_BUDGETS[input.options.speed] ?? SPEED_BUDGETS.fast;
    const docs: EvidenceDocument[] = [];
    /** Reads one page; an item's own page (`own`: the key that named it) that failed live is kept in `evidence.item_pages`. */
    const read = async (url: string, rank: number, own?: string): Promise<void> => {
      if (!domainAllowed(url, allowed_domains, blocked_domains)) return;
      const failed = (f: Omit<ItemPageFailure, 'url' | 'field'>) => own !== undefined && (evidence.item_pages ??= []).push({ url, field: own, ...f });
      let page: FetchedPage;
      try {
        page = await (own !== undefined ? (deps.itemFetcher ?? deps.fetcher) : deps.fetcher).fetch(url, {
          organization_id,
          defer_retry: input.options.defer_fetch_retry,
        });
      } catch (err) {
        if (err instanceof RetryLaterError) throw err;
        const message = err instanceof Error ? err.message : String(err);
        (evidence.problems ??= []).push(message);
        failed({ outcome: 'refused', status: 0, reason: message });
        return;
      }
      usage.pages_fetched++;
      input.options.on_fetched?.(page);
      // Only a live fetch has an outcome; an archive that lacks the page (404) is no failure of the page.
      if (page.outcome !== undefined && page.outcome !== 'ok') {
        failed({ outcome: page.outcome, status: page.status, ...(page.robots_unreachable ? { robots_unreachable: true } : {}) });
        // A page robots.txt disallows is the site's choice (flag robots_denied), not a research problem.
        if (own !== undefined && (page.outcome !== 'robots_denied' || page.robots_unreachable))
          (evidence.problems ??= []).push(
            `item page ${url}: ${page.robots_unreachable ? 'robots.txt unreachable' : page.outcome}${page.status ? ` (HTTP ${page.status})` : ''}`,
          );
      }
      if (page.status !== 200 || (page.outcome ?? 'ok') !== 'ok' || !domainAllowed(page.final_url, allowed_domains, blocked_domains)) return;
      const doc = await fetchedPageDoc(page, parsed).catch((err: Error) => {
        (evidence.problems ??= []).push(`read ${page.final_url}: ${err.message}`);
        return null;
      });
      if (doc) docs.push({ url: page.final_url, rank, doc: compact(doc), ...captureOf(page) });
    };
    // docs/research.md, "An item's own page": the item's own page first; search only for what it lacks (none at all for item_pages_only).
    const ownPages = itemPageSources(input.item, input.options.source_hints);
    const own = ownPages.map((p) => p.url);
    for (const p of ownPages) await read(p.url, docs.length, p.field);
    const searchNeeded =
      !input.options.item_pages_only &&
      (own.length === 0 ||
        fieldsLacking(
          docs.map((d) => d.doc),
          input.item,
          input.output_schema,
        ).length > 0);
    const lists: Array<Array<{ url: string }>> = [];
    const name = itemName(input.item);
    const steer = promptSteer(input.options.prompt, name, input.output_schema);
    for (const query of searchNeeded ? withPromptWords(planQueries(input.item, input.options.speed), name, steer.words, budget.queries) : []) {
      evidence.queries.push(query);
      usage.search_calls++;
      const problem = (message: string) => (evidence.problems ??= []).push(`search "${query}": ${message}`);
      try {
        lists.push(await deps.search.search(query, { limit: budget.results, allowed_domains, blocked_domains, organization_id, onSourceError: problem }));
      } catch (err) {
        problem(err instanceof Error ? err.message : String(err));
      }
    }
    evidence.search_results = withSourceHints(fuse(lists), withPromptDomains(input.options.source_hints, steer.domains)).slice(0, Math.max(10, budget.pages));
    const done = new Set(own);
    for (const [rank, r] of evidence.search_results.slice(0, budget.pages).entries()) if (!done.has(r.url)) await read(r.url, own.length + rank);
    evidence.documents = docs;
    return { evidence, usage };
  };

  const extract: EnrichmentEngine['extract'] = async (input, evidence) => {
    const model = input.options.web_search
      ? null
      : await learned.model(
          input.output_schema,
          input.options.text_examples ?? [],
          input.options.known_values,
          input.options.text_corpus,
          false,
          input.options.on_training,
        );
    const result = buildResult(input, evidence, parsed, model, deps.tuning, deps.taxonomyBridge);
    // Here, not in buildResult (which also reads taxonomy attributes): once per row, and no conflict flag.
    reviewItemPageFailures(result.review_info, evidence.item_pages);
    if (!llm) {
      keepIdentity(result, input);
      return { result, usage: emptyUsage() };
    }
    const read = (evidence.documents as EvidenceDocument[]).filter((d) => d && d.doc).map((d) => ({ source: d.url, doc: d.doc }));
    const kb = knowledgeBaseSources(input.options.knowledge_base ?? [], input.item, parsed).map((s) => ({ source: s.source_id, doc: s.doc }));
    const refined = await refineWithLlm(llm, input, [...read, ...kb], result);
    keepIdentity(refined.result, input);
    return withFitCheck(llm, input, refined);
  };

  return {
    research,
    extract,
    fetcher: deps.fetcher,
    async enrich(input) {
      try {
        const { evidence, usage } = await research(input);
        const extracted = await extract(input, evidence);
        for (const key of Object.keys(usage) as Array<keyof EngineUsage>) usage[key] += extracted.usage[key];
        return { result: extracted.result, evidence, usage };
      } catch (err) {
        if (err instanceof RetryLaterError) throw err;
        const evidence: Evidence = { queries: [], search_results: [], documents: [] };
        return { result: errorResult(input, err), evidence, usage: emptyUsage() };
      }
    },
  };
}

function errorResult(input: EnrichInput, err: unknown): EnrichmentResult {
  return {
    original_data: input.item,
    after_data: { ...input.item, sources: {}, source_explanations: {} },
    all_sources: [],
    error: err instanceof Error ? err.message : String(err),
    review_info: { reasoning: 'Research failed.', confidence: 'low', flags: ['error'], field_issues: [], field_confidence: {}, field_methods: {} },
  };
}

/** A result under construction: the output data, its review info, low-confidence candidates and the sources cited. */
interface Draft {
  after: EnrichmentResult['after_data'];
  review: ReviewInfo;
  lowCandidates: LowConfidenceCandidate[];
  sources: Set<string>;
  /** `low_confidence` asked for field candidates. */
  lowEnabled: boolean;
}

/** Places a value in the output with its sources and explanation; a low-confidence value becomes a candidate instead when those are asked for. */
function place(draft: Draft, field: OutputField, value: unknown, cited: string[], explanation: string, method: Method, confidence: Confidence): void {
  if (confidence === 'low' && draft.lowEnabled) {
    draft.lowCandidates.push({
      name: field.name,
      scope: 'field',
      candidate_value: Array.isArray(value) ? value.join(', ') : String(value),
      confidence: 'LOW',
      reason: 'Only a weak reading supports this value.',
      sources: cited,
      source_explanation: explanation,
    });
    return;
  }
  draft.after[field.name] = value;
  draft.after.sources[field.name] = cited;
  draft.after.source_explanations[field.name] = explanation;
  draft.review.field_methods[field.name] = method;
  draft.review.field_confidence[field.name] = confidence;
  cited.forEach((s) => draft.sources.add(s));
}

/** Keeps a value out of the output: a field issue, and a low-confidence candidate when those are asked for. */
function withhold(draft: Draft, field: OutputField, voted: Voted, reason: string): void {
  const value = Array.isArray(voted.value) ? voted.value.join(', ') : voted.value;
  draft.review.field_issues.push({ field: field.name, message: `Withheld "${value.slice(0, 80)}": ${reason}` });
  if (draft.lowEnabled)
    draft.lowCandidates.push({
      name: field.name,
      scope: 'field',
      candidate_value: value,
      confidence: 'LOW',
      reason,
      sources: [...new Set(voted.candidates.map((c) => c.url))],
      source_explanation: voted.candidates[0].explanation,
    });
}

/** Takes a placed value back out of the output, with a field issue saying why. */
function unplace(draft: Draft, field: OutputField, reason: string): void {
  draft.review.field_issues.push({ field: field.name, message: `Withheld "${String(draft.after[field.name]).slice(0, 80)}": ${reason}.` });
  delete draft.after[field.name];
  delete draft.after.sources[field.name];
  delete draft.after.source_explanations[field.name];
  delete draft.review.field_methods[field.name];
  delete draft.review.field_confidence[field.name];
}

/** The knowledge-base sources of an item (what {@link knowledgeBaseSources} returns). */
type KbSources = ReturnType<typeof knowledgeBaseSources>;

/**
 * `web_search: false`: reads the wanted fields from the item's own texts (the learned `model`
 * first on the fields it was taught, the rule layer on the others), then dimension tuples, then
 * the knowledge base; states what was read in `review.reasoning`. A brand field
 * (docs/enrich-options.md, "Brands read from the item's text") takes the longest known brand the
 * item's name starts with first; a brand the text gives otherwise is kept only when it is known
 * (src/enrichment/text/brand.ts), else it is a guess ({@link guessedBrand}).
 */
function readItemText(draft: Draft, input: EnrichInput, wanted: OutputField[], kb: KbSources, model: TextModel | null): void {
  const { item, options } = input;
  const { after } = draft;
  const texts = inputText(item);
  const brands = brandKnowledge(wanted, item, options.known_values, options.text_examples);
  const nameKey = itemNameKey(item);
  for (const field of nameKey ? wanted.filter((f) => brands.has(f.name)) : []) {
    const at = brandAtStart(String(item[nameKey!]), brands.get(field.name)!);
    if (at) place(draft, field, at.value, [`INPUT:${nameKey}`], `The item's ${nameKey} starts with "${at.snippet}", a known brand.`, 'text', 'medium');
  }
  const guesses = new Map<string, { value: string; key: string; snippet: string }>();
  // With a learned model, the texts of the fields where the catalog writes its values come
  // first and are read by the model; the others by the rule layer, as without examples.
  const learned = model ? learnedTextFields(options.text_examples ?? []) : new Set<string>();
  const order = [...texts.filter(([k]) => learned.has(k)), ...texts.filter(([k]) => !learned.has(k))];
  for (const [key, text] of order) {
    const remaining = wanted.filter((f) => !(f.name in after.sources) && f.name !== key);
    if (remaining.length === 0) break;
    // The model covers the whole output schema; values of fields no longer wanted are dropped below.
    const found = model && learned.has(key) ? extractWithModel(text, model) : extractFromText(text, remaining, options.known_values ?? {});
    for (const x of found) {
      const field = remaining.find((f) => f.name === x.field);
      if (!field || field.name in after.sources || !present(x.value)) continue;
      const known = brands.get(field.name);
      const brand = known ? knownBrand(String(x.value), known) : null;
      if (known && brand === null) {
        if (!guesses.has(field.name)) guesses.set(field.name, { value: String(x.value), key, snippet: x.snippet });
        continue;
      }
      // A known brand is more than a weak reading, whatever the text layer's own confidence.
      const confidence = brand !== null && x.confidence === 'low' ? 'medium' : x.confidence;
      place(draft, field, brand ?? x.value, [`INPUT:${key}`], `Found in the item's ${key}: "${x.snippet}".`, 'text', confidence);
    }
  }
  // Dimension tuples in the item's text ("Bar table, 51x51 cm") for width/height/depth fields with a unit.
  for (const field of wanted.filter((f) => !(f.name in after.sources))) {
    const dim = readDimension(
      field,
      texts.map(([label, text]) => ({ label, text })),
      false,
    );
    if (dim)
      place(
        draft,
        field,
        dim.value,
        [`INPUT:${dim.label}`],
        `Dimensions "${dim.text}" in the item's ${dim.label}.`,
        'text',
        dim.by === 'letter' ? 'high' : 'medium',
      );
  }
  for (const field of wanted.filter((f) => !(f.name in after.sources))) {
    const role = fieldRole(field);
    const voted = vote(knowledgeBaseCandidates(kb, role, field.name, [snake(field.name).replace(/_/g, ' ')]), field);
    const value = voted ? coerce(voted.value, field, role, voted.candidates[0].unit) : undefined;
    if (voted && value !== undefined)
      place(
        draft,
        field,
        value,
        [...new Set(voted.candidates.map((c) => c.url))],
        `${voted.candidates[0].explanation[0].toUpperCase()}${voted.candidates[0].explanation.slice(1)}.`,
        'knowledge_base',
        voted.confidence,
      );
  }
  for (const [name, guess] of guesses) if (!(name in after.sources)) guessedBrand(draft, name, guess);
  draft.review.reasoning = `No web search: values were read from the item's own text (${texts.map(([k]) => k).join(', ') || 'none'})${model ? `; ${[...learned].filter((k) => texts.some(([t]) => t === k)).join(', ') || 'none'} read by a tagger learned from ${options.text_examples!.length} example texts of the catalog's items` : ''}.`;
}

/**
 * A brand guessed from the item's own text, which no catalog value, item value or page states:
 * never a value, but a field issue saying so and, when `low_confidence` asks for field
 * candidates, a `LOW` candidate (docs/enrich-options.md, "Brands read from the item's text").
 */
function guessedBrand(draft: Draft, name: string, guess: { value: string; key: string; snippet: string }): void {
  const reason = `Brand guessed from the item's ${guess.key}; no catalog item or page states it.`;
  draft.review.field_issues.push({
    field: name,
    message: `Not kept "${guess.value.slice(0, 80)}": a brand guessed from the item's ${guess.key}, which no catalog item or page states.`,
  });
  if (draft.lowEnabled)
    draft.lowCandidates.push({
      name,
      scope: 'field',
      candidate_value: guess.value,
      confidence: 'LOW',
      reason,
      sources: [`INPUT:${guess.key}`],
      source_explanation: `Found in the item's ${guess.key}: "${guess.snippet}".`,
    });
}

/** Read pages and which of them match the item (best first). */
interface PageReading {
  docs: EvidenceDocument[];
  accepted: Array<{ d: EvidenceDocument; m: PageMatch }>;
  rejected: number;
}

/**
 * Web research: votes each wanted field over the candidates of the pages that match the item
 * (the best page weighs most) and the knowledge base; withholds markup-only GTINs, notes
 * readings that do not fit the type and strong rivals; states what was read in `review.reasoning`.
 */
function readPages(
  draft: Draft,
  item: Record<string, unknown>,
  wanted: OutputField[],
  pages: PageReading,
  kb: KbSources,
  evidence: Evidence,
  tuning?: ExtractionTuning,
): void {
  const { review } = draft;
  const { docs, accepted, rejected } = pages;
  for (const field of wanted) {
    const role = fieldRole(field);
    const synonyms = [snake(field.name).replace(/_/g, ' '), ...(field.semantic_type ? [field.semantic_type] : [])];
    const candidates: Candidate[] = [];
    accepted.forEach(({ d, m }, i) => {
      const product = m.product !== undefined ? d.doc.products[m.product] : undefined;
      for (const c of [...pageCandidates(d.doc, role, field.name, synonyms, product, tuning), ...unitCandidates(d.doc, field, product)])
        candidates.push(pageReading(c, i, m));
    });
    candidates.push(...knowledgeBaseCandidates(kb, role, field.name, synonyms));
    const voted = vote(candidates, field);
    if (!voted) continue;
    if (role === 'gtin' && ruleOn(tuning, 'gtin.withhold-markup-only') && voted.candidates.every((c) => c.markup_only)) {
      withhold(draft, field, voted, 'The GTIN appears only in the page markup, never on the page itself.');
      continue;
    }
    const value = coerce(voted.value, field, role, voted.candidates[0].unit);
    if (value === undefined) {
      review.field_issues.push({ field: field.name, message: `Found "${String(voted.value).slice(0, 80)}" but it does not fit the declared type.` });
      continue;
    }
    const cited = [...new Set(voted.candidates.map((c) => c.url))];
    place(
      draft,
      field,
      value,
      cited,
      `${voted.candidates[0].explanation[0].toUpperCase()}${voted.candidates[0].explanation.slice(1)}.`,
      voted.candidates[0].method,
      calibratedConfidence(voted, role, field.name, tuning),
    );
    const rival = voted.rivals.find((r) => r.weight >= 0.5);
    const doubt = voted.candidates.find((c) => c.doubt)?.doubt;
    if (rival)
      review.field_issues.push({
        field: field.name,
        message: `Another reading gave "${`${String(rival.value)}${rival.unit ? ` ${rival.unit}` : ''}`.slice(0, 80)}" (${rival.explanation}).`,
      });
    else if (doubt) review.field_issues.push({ field: field.name, message: `Not certain: ${doubt}.` });
  }
  // A currency denominates a price: when a price is asked for and none was found (nor given by the item), a currency read alone is not kept.
  const priceField = wanted.find((f) => fieldRole(f) === 'price');
  if (priceField && !(priceField.name in draft.after.sources) && !present(item[priceField.name]) && ruleOn(tuning, 'currency.needs-price'))
    for (const f of wanted.filter((w) => fieldRole(w) === 'currency' && w.name in draft.after.sources))
      unplace(draft, f, 'no price was found on the page for it to denominate');
  if (accepted.length === 0) review.flags.push('no_matching_page');
  review.reasoning =
    accepted.length > 0
      ? `Read ${docs.length} page(s) from ${evidence.queries.length} search(es); used ${accepted.length} that match the item (best: ${accepted[0].d.url}, ${accepted[0].m.reason}); ${rejected} rejected as other products.`
      : `Read ${docs.length} page(s) from ${evidence.queries.length} search(es); none matched the item, so no values were taken from the web.`;
}

/** The result's overall confidence (its weakest field's; medium without fields) and its flags for issues and research problems. */
function finishReview(review: ReviewInfo, evidence: Evidence): void {
  const levels = Object.values(review.field_confidence);
  review.confidence = levels.includes('low') ? 'low' : levels.includes('medium') || levels.length === 0 ? 'medium' : 'high';
  if (review.field_issues.length > 0) review.flags.push('conflicting_values');
  if (evidence.problems?.length) {
    review.flags.push('research_problems');
    review.reasoning += ` Research problems: ${evidence.problems.slice(0, 3).join('; ')}${evidence.problems.length > 3 ? '; …' : ''}.`;
  }
}

/**
 * One item's result from its evidence. `memo`: the engine's parse memo (knowledge-base
 * documents). `model`: the text model learned from the target
 * catalog's items for `input.output_schema` (web_search false only); without it, the text is
 * read by the rule layer with the catalog's known values. `tuning`: see {@link createEngine}. Steps: read every
 * requested field from the item's text ({@link readItemText}) or the matching pages
 * ({@link readPages}), finish the review, then taxonomy, then refresh / merge against the item's
 * own values and the semantic checks ({@link applySemantics}).
 */
function buildResult(
  input: EnrichInput,
  evidence: Evidence,
  memo: PageMemo,
  model: TextModel | null = null,
  tuning?: ExtractionTuning,
  bridge?: () => CompiledTaxonomy | null,
): EnrichmentResult {
  const { item, output_schema: fields, options } = input;
  const lowEnabled = options.low_confidence?.enabled === true && (options.low_confidence.scopes ?? ['field']).includes('field');
  const draft: Draft = {
    after: { ...item, sources: {}, source_explanations: {} },
    review: { reasoning: '', confidence: 'high', flags: [], field_issues: [], field_confidence: {}, field_methods: {} },
    lowCandidates: [],
    sources: new Set<string>(),
    lowEnabled,
  };
  // Refresh (docs/api-enrichment.md "Refresh and merge"): every requested field is researched; applySemantics then reconciles with the item's values.
  const wanted = fields;

  const ids = itemIdentifiers(item);
  const identity: ItemIdentity = { name: itemName(item), brand: ids.brand, identifiers: [...ids.gtin, ...ids.mpn, ...ids.sku] };
  const docs = (evidence.documents as EvidenceDocument[]).filter((d) => d && d.doc);
  const matches: Array<{ d: EvidenceDocument; m: PageMatch }> = docs.map((d) => ({ d, m: matchPage(identity, d.doc) }));
  const accepted = matches.filter((x) => x.m.kind !== 'none').sort((a, b) => b.m.score - a.m.score || a.d.rank - b.d.rank);
  const rejected = matches.length - accepted.length;
  const kb = knowledgeBaseSources(options.knowledge_base ?? [], item, memo);

  if (!options.web_search) readItemText(draft, input, wanted, kb, model);
  else readPages(draft, item, wanted, { docs, accepted, rejected }, kb, evidence, tuning);
  finishReview(draft.review, evidence);
  const result: EnrichmentResult = { original_data: item, after_data: draft.after, all_sources: [...draft.sources], review_info: draft.review };
  if (lowEnabled) {
    result.low_confidence_candidates = draft.lowCandidates.slice(0, options.low_confidence?.max_candidates_per_item ?? 8);
    result.low_confidence_fields = [...new Set(result.low_confidence_candidates.map((c) => c.name))];
  }
  const pages = accepted.map(({ d, m }) => ({ url: d.url, doc: d.doc, product: m.product !== undefined ? d.doc.products[m.product] : undefined }));
  const attributeOptions = {
    ...options,
    predict_taxonomy: false,
    low_confidence: lowConfidenceWanted(options, 'taxonomy_attribute') ? { ...options.low_confidence, enabled: true, scopes: ['field' as const] } : undefined,
  };
  applyTaxonomy(
    result,
    input,
    pages,
    (attributes) => buildResult({ item, output_schema: attributes, options: attributeOptions }, evidence, memo, null, tuning),
    options.predict_taxonomy && options.taxonomy ? bridge?.() : undefined,
  );
  applySemantics(result, input);
  return result;
}
