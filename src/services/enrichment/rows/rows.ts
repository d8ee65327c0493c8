import type { Knex } from 'knex';
import { engineItem } from './engine-item';
import { itemPagesOnly } from './item-pages';
import { jobTextExamples, type JobTextExamples } from './examples';
import { jobCategoryExamples } from './category-examples';
import { jobTaxonomy } from './job-taxonomy';
import { jobDocuments } from './knowledge-base';
import { RetryLaterError, type FetchedPage } from '../../../enrichment/research/types';
import { fetchRecords } from './fetch-records';
import { keepRowWarc } from './evidence-warc';
import { markRenderedMethods, requestRowRenders, type RenderSettings } from './rendering';
import type {
  CategoryExample,
  EngineUsage,
  EnrichInput,
  EnrichmentEngine,
  EnrichmentResult,
  Evidence,
  OutputField,
  ReviewInfo,
  TaxonomyInput,
} from '../../../enrichment/types';
import { EnrichmentJob } from '../../../models/enrichment-job';
import { EnrichmentRow } from '../../../models/enrichment-row';
import type { EnrichJobConfig, OutputFieldInput } from '../../../schemas/enrich';
import { errorFields } from '../../../lib/errors';
import { ArtifactRecord, artifactLinks, EnrichmentStorage, hostResultMedia, storeArtifacts } from './artifacts';
import { auditWanted } from './audit-options';
import { auditResult, AuditJudgment } from '../../../enrichment/result-audit';
import type { EnrichmentCaches } from '../enrichment-caches';
import { loadEvidence } from './evidence';
import { setJobStep } from './progress';
import { RowWrite, writeRowResults } from './row-results';
import { logger } from '../../../lib/logger';

/**
 * The row-level work of an enrichment job, used by the Temporal activities (which stay thin
 * adapters, docs/architecture.md). Every write is idempotent on (job_id, row_index): a row moves from
 * `pending` to `succeeded`/`failed` once, and the job's counters move in the same transaction,
 * so a retried activity or a replay after a worker crash never duplicates a result or a credit
 * (docs/workflows.md "Rules of the craft").
 *
 * Per-row cost (bench/row-cost.ts, archive engine ~4.5 ms/item on an idle 2-core machine): a
 * row's research evidence was ~57 KB of JSON (3 parsed pages with up to 20,000 characters of
 * text each; 24 KB per row after compression) written in the row's transaction, which held the
 * job row locked from its first statement, so on a busy machine (slow WAL writes) concurrent
 * rows queued behind each other's writes. Now the parsed pages are stored once per organization
 * by content hash (1.2 KB per row stays on the row; re-extraction resolves the references;
 * ./evidence.ts), the job row is locked only by the counter update just before commit
 * (./row-results.ts). writeRowResults can write several rows in one transaction with one counter
 * update; grouping a batch's writes that way measured ~30% more rows/s, but is not used yet (a
 * retried batch must not re-enrich rows).
 */

/**
 * The output schema of one row: the job's fields plus the fields of the row's attribute set
 * (`attribute_sets[item.attribute_set_id]`; a name already in the job's schema keeps the job's
 * definition).
 */
export function rowOutputSchema(config: EnrichJobConfig, item: Record<string, unknown>): OutputField[] {
  const base = (config.output_schema ?? []) as OutputField[];
  const setId = item.attribute_set_id;
  const set = typeof setId === 'string' ? config.attribute_sets?.[setId] : undefined;
  const extra: OutputFieldInput[] = Array.isArray(set) ? set : Array.isArray(set?.attributes) ? set.attributes : [];
  const names = new Set(base.map((f) => f.name));
  return [...base, ...extra.filter((f) => !names.has(f.name)).map((f) => ({ ...f, type: f.type ?? 'string' }))];
}

/** Feedback text of one row for re-extraction: `global_feedback` then `item_feedback[row]`. */
function rowFeedback(config: EnrichJobConfig, rowIndex: number | undefined): string | undefined {
  const parts = [config.global_feedback, rowIndex === undefined ? undefined : config.item_feedback?.[String(rowIndex)]].filter(
    (x) => typeof x === 'string' && x.trim(),
  );
  return parts.length ? parts.join('\n') : undefined;
}

/**
 * Builds the engine input of one row from the job's stored config: the job's options, the
 * catalog's `known_values`, the row's attribute-set fields and source hints, re-extraction
 * feedback, and the catalog's quality prompt (stored only when a model is configured). In a job
 * with no research source, a row whose item names its own page researches that page only
 * (./item-pages.ts itemPagesOnly).
 */
export function engineInput(config: EnrichJobConfig, item: Record<string, unknown>, rowIndex?: number): EnrichInput {
  const hintId = item.source_hint_set_id;
  const hints = typeof hintId === 'string' ? config.source_hint_sets?.[hintId] : undefined;
  const feedback = rowFeedback(config, rowIndex);
  const ownPagesOnly = itemPagesOnly(config, item);
  return {
    item: engineItem(item),
    output_schema: rowOutputSchema(config, item),
    options: {
      prompt: config.prompt || undefined,
      speed: config.speed ?? 'deep',
      allowed_domains: config.allowed_domains,
      blocked_domains: config.blocked_domains,
      web_search: config.web_search !== false || ownPagesOnly,
      ...(ownPagesOnly ? { item_pages_only: true } : {}),
      // Request taxonomies are checked only as `{nodes: object}` (src/schemas/enrich.ts), catalog ones
      // are stored normalised; the engine takes either as its TaxonomyInput, as it always has.
      taxonomy: config.taxonomy as TaxonomyInput | undefined,
      predict_taxonomy: config.predict_taxonomy,
      predict_taxonomy_attributes: config.predict_taxonomy_attributes,
      validate_semantics: config.validate_semantics,
      low_confidence: config.low_confidence,
      ...(config.known_values ? { known_values: config.known_values } : {}),
      ...(hints ? { source_hints: { domains: hints.domains, urls: hints.urls } } : {}),
      ...(feedback ? { feedback } : {}),
      ...(config.quality_prompt ? { quality_prompt: config.quality_prompt } : {}),
    },
  };
}

/** A result for an item the engine could not process at all (item-level `error`). */
function errorResult(item: Record<string, unknown>, message: string): EnrichmentResult {
  return {
    original_data: item,
    after_data: { ...item, sources: {}, source_explanations: {} },
    all_sources: [],
    error: message,
    review_info: { reasoning: message, confidence: 'low', flags: ['error'], field_issues: [], field_confidence: {}, field_methods: {} },
  };
}

const EMPTY_USAGE: EngineUsage = { search_calls: 0, pages_fetched: 0, llm_calls: 0, llm_prompt_tokens: 0, llm_completion_tokens: 0 };

/** One run of the engine on a row: its result, evidence and usage, before they are written. */
interface EngineRun {
  result: EnrichmentResult;
  evidence: unknown;
  usage: EngineUsage | null;
}

/**
 * Runs the engine for one row. Re-extraction jobs (`config.reextract_from_activity_id`) call
 * `engine.extract` on the row's stored evidence — no search, no fetch (docs/api-review.md "Activities"
 * `reextract_from_activity_id`); other jobs research + extract, reporting fetched pages to
 * `consulted`, whose outcomes the evidence keeps (`evidence.fetches`).
 */
async function runEngine(
  engine: EnrichmentEngine,
  config: EnrichJobConfig,
  input: EnrichInput,
  evidence: unknown,
  consulted: FetchedPage[],
): Promise<EngineRun> {
  if (config.reextract_from_activity_id) {
    if (!evidence)
      return { result: errorResult(input.item, 'No stored research for this row: the earlier job never processed it'), evidence: null, usage: null };
    const out = await engine.extract(input, evidence as Evidence);
    return { result: out.result, evidence, usage: out.usage ?? EMPTY_USAGE };
  }
  input.options.on_fetched = (page) => consulted.push(page);
  const out = await engine.enrich(input);
  if (consulted.length > 0) out.evidence.fetches = fetchRecords(consulted);
  return { result: out.result, evidence: out.evidence, usage: out.usage };
}

/** An evidence document as a debug line: its URL and, for an archived page, its capture date and WARC record. */
function documentLine(d: unknown): string {
  const doc = (typeof d === 'object' && d !== null ? d : {}) as {
    url?: string;
    captured_at?: string;
    warc_record?: { warc_file: string; offset: number; record_id: string | null };
  };
  const r = doc.warc_record;
  return `${doc.url ?? '?'}${r ? ` (captured ${doc.captured_at ?? '?'}; WARC record ${r.record_id ?? '?'} at ${r.warc_file}@${r.offset})` : ''}`;
}

/** Lines of `review_info.debug_log` (`include_debug_log`): what research and post-processing did. */
function debugLog(config: EnrichJobConfig, input: EnrichInput, outcome: EngineRun, extra: string[]): string[] {
  const ev = (outcome.evidence ?? {}) as Partial<Evidence>;
  const docs = Array.isArray(ev.documents) ? ev.documents : [];
  return [
    `mode: ${config.reextract_from_activity_id ? 're-extract from stored evidence (no search, no fetch)' : 'research + extract'}`,
    `fields: ${input.output_schema.map((f) => f.name).join(', ')}`,
    ...(ev.queries ?? []).map((q) => `query: ${q}`),
    ...(ev.search_results ?? []).slice(0, 10).map((r) => `search result: ${r.url} (score ${r.score})`),
    ...docs.map((d: unknown) => `document read: ${documentLine(d)}`),
    `usage: ${JSON.stringify(outcome.usage ?? EMPTY_USAGE)}`,
    ...extra,
  ];
}

/** A row as read for processing, with its job's state. */
interface LoadedRow {
  job_id: string;
  row_index: number;
  status: string;
  input: Record<string, unknown>;
  evidence: unknown;
  job_status: string;
  config: EnrichJobConfig;
  organization_id: string;
  /** The job's catalog's categorised items, when it predicts categories (./category-examples.ts). */
  category_examples?: CategoryExample[];
}

/**
 * Reads rows of a job with the job's status, config and organization. The job is read once,
 * not joined per row: its config (known values, …) can be large. The config's taxonomy is
 * left out (it can be megabytes): the caller takes it from the worker's cache (./job-taxonomy.ts).
 */
async function loadRows(knex: Knex, jobId: string, rowIndexes: number[]): Promise<Map<number, LoadedRow>> {
  const job = await EnrichmentJob.query(knex).findById(jobId).select('status', 'organization_id', knex.raw("config - 'taxonomy' AS config"));
  if (!job) return new Map();
  const rows = await EnrichmentRow.query(knex).where('job_id', jobId).whereIn('row_index', rowIndexes).select('row_index', 'status', 'input', 'evidence');
  return new Map(
    rows.map((r) => [
      r.row_index,
      {
        job_id: jobId,
        row_index: r.row_index,
        status: r.status,
        input: r.input,
        evidence: r.evidence,
        job_status: job.status,
        config: job.config,
        organization_id: job.organization_id,
      },
    ]),
  );
}

/** Per-call options of {@link enrichRow}. */
export interface EnrichRowOptions {
  /** A 429/503 with Retry-After stops the row with RetryLaterError instead of being recorded (the activity has attempts left). */
  deferFetchRetry?: boolean;
}

/** What a job without catalog examples learns from: nothing. */
const NO_EXAMPLES: JobTextExamples = { examples: [], texts: [] };

/**
 * What processing a row needs: the database, the engine, where artifacts and media are stored,
 * and the worker's enrichment caches (job examples and documents, evidence documents seen).
 */
export interface RowDeps {
  knex: Knex;
  engine: EnrichmentEngine;
  storage: EnrichmentStorage;
  caches: EnrichmentCaches;
  /** Rendering of pages that build their product data with JavaScript (./rendering.ts); absent = off, no notice. */
  render?: RenderSettings;
}

/**
 * The engine input of a loaded row: {@link engineInput} plus the job's knowledge base (when
 * `config.knowledge_base_enabled`), its catalog's categorised items (category examples) and, for
 * `web_search: false` jobs, its catalog text examples.
 */
function rowInput(row: LoadedRow, knowledgeBase: unknown, learning: JobTextExamples): EnrichInput {
  const config = row.config;
  const input = engineInput(config, row.input, row.row_index);
  input.options.organization_id = row.organization_id;
  if (config.knowledge_base_enabled) input.options.knowledge_base = knowledgeBase as EnrichInput['options']['knowledge_base'];
  if (row.category_examples?.length) input.options.category_examples = row.category_examples;
  if (learning.examples.length > 0 && !input.options.web_search) {
    input.options.text_examples = learning.examples;
    input.options.text_corpus = learning.texts;
  }
  return input;
}

/**
 * Runs the engine on a row ({@link runEngine}); re-extraction reads the row's stored evidence
 * with its documents resolved. An engine error becomes the row's item-level error result.
 * @returns the outcome (its evidence in the row's stored form) and the research as extraction
 *   saw it, parsed pages included (the audit looks into it)
 */
async function runRowEngine(deps: RowDeps, row: LoadedRow, input: EnrichInput, consulted: FetchedPage[]): Promise<{ outcome: EngineRun; research: unknown }> {
  // One debug line per engine call: durability tests count calls per row across worker processes
  // (a killed attempt's call shows, its write does not).
  logger.debug({ job_id: row.job_id, row_index: row.row_index }, 'engine call');
  try {
    const stored = row.config.reextract_from_activity_id ? await loadEvidence(deps.knex, row.organization_id, row.evidence) : null;
    const outcome = await runEngine(deps.engine, row.config, input, stored, consulted);
    const research = stored ?? outcome.evidence;
    // Keep the row's stored form (document references) rather than the hydrated pages.
    if (stored) outcome.evidence = row.evidence;
    return { outcome, research };
  } catch (err) {
    if (err instanceof RetryLaterError) throw err;
    return {
      outcome: { result: errorResult(input.item, `Enrichment failed: ${errorFields(err).message ?? String(err)}`), evidence: null, usage: null },
      research: null,
    };
  }
}

/**
 * The job's post-processing of a row's result, in place: media hosting (`host_media`, and
 * `image_processing`, whose processed images are served from the service), source artifacts
 * (`capture_source_artifacts`), feedback, audit, and finally the debug log over `notes`.
 * @returns the stored artifacts to record with the row
 */
async function postProcess(
  deps: RowDeps,
  row: LoadedRow,
  input: EnrichInput,
  outcome: EngineRun,
  research: unknown,
  capture: FetchedPage[] | null,
): Promise<ArtifactRecord[]> {
  const config = row.config;
  const result = outcome.result;
  const notes: string[] = [];
  if ((config.host_media || config.image_processing?.enabled) && !result.error) {
    const media = await hostResultMedia(
      deps.knex,
      deps.storage,
      deps.engine.fetcher,
      row.organization_id,
      result,
      input.output_schema,
      Boolean(config.strict_hosted_media),
      config.image_processing,
    );
    notes.push(
      `media hosted: ${media.hosted}, not hostable: ${media.failed}, images processed: ${media.processed}${config.strict_hosted_media ? ' (strict: failed fields cleared)' : ''}`,
    );
  }
  let artifacts: ArtifactRecord[] = [];
  if (capture) {
    artifacts = await storeArtifacts(deps.storage, capture);
    const warc = await keepRowWarc(deps.storage, row.job_id, row.row_index, capture, outcome.evidence, result);
    if (warc) artifacts.push(warc);
    (result as EnrichmentResult & { source_artifacts?: unknown }).source_artifacts = artifactLinks(deps.storage, artifacts);
    notes.push(`source artifacts kept: ${artifacts.length}`);
  }
  if (input.options.text_examples) notes.push(`catalog text examples: ${input.options.text_examples.length}`);
  if (input.options.feedback) (result.review_info as ReviewInfo & { feedback?: string }).feedback = input.options.feedback;
  if (auditWanted(config)) {
    const audit = auditResult(result, row.input, input.output_schema, research as Evidence | null);
    (result.review_info as ReviewInfo & { audit?: AuditJudgment }).audit = audit;
    notes.push(`audit: ${audit.decision}`);
  }
  if (config.include_debug_log) (result.review_info as ReviewInfo & { debug_log?: string[] }).debug_log = debugLog(config, input, outcome, notes);
  return artifacts;
}

/**
 * Runs the engine for a loaded pending row (research + extract, or extract only for
 * re-extraction jobs) and applies the job's post-processing (media hosting, source artifacts,
 * debug log). Writes nothing to the row.
 * @param knowledgeBase the job's knowledge-base documents when `config.knowledge_base_enabled`
 * @param learning the job's catalog text examples and item texts ({@link jobTextExamples}; the
 *   same arrays for every row of the job, so the engine trains its text model once), used when
 *   `web_search` is false
 */
async function computeRow(
  deps: RowDeps,
  row: LoadedRow,
  knowledgeBase: unknown,
  learning: JobTextExamples = NO_EXAMPLES,
  options: EnrichRowOptions = {},
): Promise<RowWrite | 'render'> {
  const input = rowInput(row, knowledgeBase, learning);
  if (options.deferFetchRetry) input.options.defer_fetch_retry = true;
  // The job's poll shows the training step while the text model learns from the catalog's examples.
  if (input.options.text_examples)
    input.options.on_training = (state) =>
      void setJobStep(deps.knex, row.job_id, state === 'started' ? 'training_text_model' : null).catch((err: unknown) =>
        logger.warn({ job_id: row.job_id, err: errorFields(err) }, 'job step not recorded'),
      );
  const consulted: FetchedPage[] = [];
  const capture = row.config.capture_source_artifacts ? consulted : null;
  const { outcome, research } = await runRowEngine(deps, row, input, consulted);
  markRenderedMethods(outcome.result, consulted);
  if (deps.render && (await requestRowRenders(deps.knex, deps.render, row, input, outcome.result, outcome.evidence, consulted))) return 'render';
  outcome.result.original_data = row.input;
  const artifacts = await postProcess(deps, row, input, outcome, research, capture);
  return { rowIndex: row.row_index, outcome, artifacts };
}

/**
 * Processes one row: skips it when already done or when the job is no longer running, otherwise
 * runs the engine (research + extract, or extract only for re-extraction jobs; `web_search:
 * false` jobs with the job's catalog text examples), applies the
 * job's post-processing (media hosting, source artifacts, debug log) and writes the result
 * idempotently, staging it on the job's activity when the job targets a catalog.
 * @returns `processed` false when nothing was written (already done, job cancelled/finished)
 * @returns `render` true when pages of the row must be rendered first (nothing written; the
 *   workflow runs the render activity, then this row again)
 * @throws RetryLaterError when `options.deferFetchRetry` and a page asked to be fetched later
 *   (nothing is written; the activity reschedules the row through Temporal's retry)
 */
export async function enrichRow(
  deps: RowDeps,
  jobId: string,
  rowIndex: number,
  options: EnrichRowOptions = {},
): Promise<{ processed: boolean; succeeded: boolean; render?: boolean }> {
  const { knex, caches } = deps;
  const row = (await loadRows(knex, jobId, [rowIndex])).get(rowIndex);
  if (!row || row.status !== 'pending' || row.job_status !== 'running') return { processed: false, succeeded: false };
  const taxonomy = await jobTaxonomy(knex, caches.jobTaxonomies, jobId);
  if (taxonomy) row.config.taxonomy = taxonomy;
  if (row.config.predict_taxonomy) row.category_examples = await jobCategoryExamples(knex, caches.jobCategoryExamples, jobId);
  const kb = row.config.knowledge_base_enabled ? await jobDocuments(knex, caches.jobDocuments, jobId) : undefined;
  const learning = row.config.web_search === false ? await jobTextExamples(knex, caches.jobTextExamples, jobId) : NO_EXAMPLES;
  const computed = await computeRow(deps, row, kb, learning, options);
  if (computed === 'render') return { processed: false, succeeded: false, render: true };
  const [written] = await writeRowResults({ knex, knownEvidenceDocs: caches.knownEvidenceDocs }, jobId, [computed]);
  return { processed: written, succeeded: written && !computed.outcome.result.error };
}
