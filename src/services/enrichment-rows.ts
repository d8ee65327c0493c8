import type { Knex } from 'knex';
import { jobDocuments } from './enrichment-knowledge-base';
import type { FetchedPage } from '../enrichment/research/types';
import type { EngineUsage, EnrichInput, EnrichmentEngine, EnrichmentResult, Evidence, OutputField, ReviewInfo } from '../enrichment/types';
import type { EnrichmentJob } from '../models/enrichment-job';
import { ArtifactRecord, artifactLinks, hostResultMedia, recordArtifacts, storeArtifacts } from './enrichment-artifacts';
import { CatalogTarget, stageRowResult } from './enrichment-staging';

/**
 * The row-level work of an enrichment job, used by the Temporal activities (which stay thin
 * adapters, architecture.md). Every write is idempotent on (job_id, row_index): a row moves from
 * `pending` to `succeeded`/`failed` once, and the job's counters move in the same transaction,
 * so a retried activity or a replay after a worker crash never duplicates a result or a credit
 * (architecture.md, Temporal rule 4).
 */

/** Progress counters of a job, read from PostgreSQL (the workflow's progress query mirrors them). */
export interface JobProgress {
  status: EnrichmentJob['status'];
  total_items: number;
  completed_items: number;
  successful: number;
}

/**
 * Row indexes still pending, in order, after `afterRowIndex` (exclusive), among the first
 * `total_items` rows (rows beyond `max_rows` are stored but never processed).
 * @returns at most `limit` row indexes (integers, never item data: rule 2)
 */
export async function pendingRowIndexes(knex: Knex, jobId: string, afterRowIndex: number, limit: number): Promise<number[]> {
  const job = await knex('enrichment_jobs').where({ id: jobId }).first('total_items');
  if (!job) return [];
  const rows = await knex('enrichment_rows')
    .where({ job_id: jobId, status: 'pending' })
    .where('row_index', '>', afterRowIndex)
    .where('row_index', '<', job.total_items)
    .orderBy('row_index')
    .limit(limit)
    .select('row_index');
  return rows.map((r) => r.row_index as number);
}

/** Item keys that steer the service, not the research: removed from the item the engine sees. */
const CONTROL_KEYS = ['attribute_set_id', 'source_hint_set_id'];

/** The item as the engine sees it: without control keys (`attribute_set_id`, `__catalog_item_id`, …). */
export function engineItem(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([k]) => !k.startsWith('__') && !CONTROL_KEYS.includes(k)));
}

/**
 * The output schema of one row: the job's fields plus the fields of the row's attribute set
 * (`attribute_sets[item.attribute_set_id]`; a name already in the job's schema keeps the job's
 * definition).
 */
export function rowOutputSchema(config: Record<string, any>, item: Record<string, unknown>): OutputField[] {
  const base = (config.output_schema ?? []) as OutputField[];
  const setId = item.attribute_set_id;
  const set = typeof setId === 'string' ? config.attribute_sets?.[setId] : undefined;
  const extra: OutputField[] = Array.isArray(set) ? set : Array.isArray(set?.attributes) ? set.attributes : [];
  const names = new Set(base.map((f) => f.name));
  return [...base, ...extra.filter((f) => !names.has(f.name)).map((f) => ({ ...f, type: f.type ?? 'string' }))];
}

/** Feedback text of one row for re-extraction: `global_feedback` then `item_feedback[row]`. */
function rowFeedback(config: Record<string, any>, rowIndex: number | undefined): string | undefined {
  const parts = [config.global_feedback, rowIndex === undefined ? undefined : config.item_feedback?.[String(rowIndex)]].filter((x) => typeof x === 'string' && x.trim());
  return parts.length ? parts.join('\n') : undefined;
}

/**
 * Builds the engine input of one row from the job's stored config: the job's options, the
 * catalog's `known_values`, the row's attribute-set fields and source hints, and re-extraction
 * feedback.
 */
export function engineInput(config: Record<string, any>, item: Record<string, unknown>, rowIndex?: number): EnrichInput {
  const hintId = item.source_hint_set_id;
  const hints = typeof hintId === 'string' ? config.source_hint_sets?.[hintId] : undefined;
  const feedback = rowFeedback(config, rowIndex);
  return {
    item: engineItem(item),
    output_schema: rowOutputSchema(config, item),
    options: {
      prompt: config.prompt || undefined,
      speed: config.speed ?? 'deep',
      allowed_domains: config.allowed_domains,
      blocked_domains: config.blocked_domains,
      web_search: config.web_search !== false,
      taxonomy: config.taxonomy,
      predict_taxonomy: config.predict_taxonomy,
      predict_taxonomy_attributes: config.predict_taxonomy_attributes,
      validate_semantics: config.validate_semantics,
      low_confidence: config.low_confidence,
      ...(config.known_values ? { known_values: config.known_values } : {}),
      ...(hints ? { source_hints: { domains: hints.domains, urls: hints.urls } } : {}),
      ...(feedback ? { feedback } : {}),
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

/** The outcome of one row, before it is written. */
interface RowOutcome {
  result: EnrichmentResult;
  evidence: unknown;
  usage: EngineUsage | null;
}

/**
 * Runs the engine for one row. Re-extraction jobs (`config.reextract_from_activity_id`) call
 * `engine.extract` on the row's stored evidence — no search, no fetch (interface-spec.md
 * `reextract_from_activity_id`); other jobs research + extract, reporting fetched pages to
 * `capture` when artifacts are kept.
 */
async function runEngine(engine: EnrichmentEngine, config: Record<string, any>, input: EnrichInput, evidence: unknown, capture: FetchedPage[] | null): Promise<RowOutcome> {
  if (config.reextract_from_activity_id) {
    if (!evidence) return { result: errorResult(input.item, 'No stored research for this row: the earlier job never processed it'), evidence: null, usage: null };
    const out = await engine.extract(input, evidence as Evidence);
    return { result: out.result, evidence, usage: out.usage ?? EMPTY_USAGE };
  }
  if (capture) input.options.on_fetched = (page) => capture.push(page);
  const out = await engine.enrich(input);
  return { result: out.result, evidence: out.evidence, usage: out.usage };
}

/** Lines of `review_info.debug_log` (`include_debug_log`): what research and post-processing did. */
function debugLog(config: Record<string, any>, input: EnrichInput, outcome: RowOutcome, extra: string[]): string[] {
  const ev = (outcome.evidence ?? {}) as Partial<Evidence>;
  const docs = Array.isArray(ev.documents) ? ev.documents : [];
  return [
    `mode: ${config.reextract_from_activity_id ? 're-extract from stored evidence (no search, no fetch)' : 'research + extract'}`,
    `fields: ${input.output_schema.map((f) => f.name).join(', ')}`,
    ...(ev.queries ?? []).map((q) => `query: ${q}`),
    ...(ev.search_results ?? []).slice(0, 10).map((r) => `search result: ${r.url} (score ${r.score})`),
    ...docs.map((d: any) => `document read: ${d?.url ?? '?'}`),
    `usage: ${JSON.stringify(outcome.usage ?? EMPTY_USAGE)}`,
    ...extra,
  ];
}

/**
 * Processes one row: skips it when already done or when the job is no longer running, otherwise
 * runs the engine (research + extract, or extract only for re-extraction jobs), applies the
 * job's post-processing (media hosting, source artifacts, debug log) and writes the result
 * idempotently, staging it on the job's activity when the job targets a catalog.
 * @returns `processed` false when nothing was written (already done, job cancelled/finished)
 */
export async function processRow(knex: Knex, engine: EnrichmentEngine, jobId: string, rowIndex: number): Promise<{ processed: boolean; succeeded: boolean }> {
  const row = await knex('enrichment_rows as r')
    .join('enrichment_jobs as j', 'j.id', 'r.job_id')
    .where({ 'r.job_id': jobId, 'r.row_index': rowIndex })
    .first('r.status', 'r.input', 'r.evidence', 'j.status as job_status', 'j.config', 'j.organization_id');
  if (!row || row.status !== 'pending' || row.job_status !== 'running') return { processed: false, succeeded: false };
  const config = row.config as Record<string, any>;
  const input = engineInput(config, row.input, rowIndex);
  if (config.knowledge_base_enabled) input.options.knowledge_base = await jobDocuments(knex, jobId);
  const capture: FetchedPage[] | null = config.capture_source_artifacts ? [] : null;
  let outcome: RowOutcome;
  try {
    outcome = await runEngine(engine, config, input, row.evidence, capture);
  } catch (err: any) {
    outcome = { result: errorResult(input.item, `Enrichment failed: ${err?.message ?? String(err)}`), evidence: null, usage: null };
  }
  const result = outcome.result;
  result.original_data = row.input;
  const notes: string[] = [];
  if (config.host_media && !result.error) {
    const media = await hostResultMedia(knex, engine.fetcher, row.organization_id, result, input.output_schema, Boolean(config.strict_hosted_media));
    notes.push(`media hosted: ${media.hosted}, not hostable: ${media.failed}${config.strict_hosted_media ? ' (strict: failed fields cleared)' : ''}`);
  }
  let artifacts: ArtifactRecord[] = [];
  if (capture) {
    artifacts = await storeArtifacts(capture);
    (result as EnrichmentResult & { source_artifacts?: unknown }).source_artifacts = artifactLinks(artifacts);
    notes.push(`source artifacts kept: ${artifacts.length}`);
  }
  if (input.options.feedback) (result.review_info as ReviewInfo & { feedback?: string }).feedback = input.options.feedback;
  if (config.include_debug_log) (result.review_info as ReviewInfo & { debug_log?: string[] }).debug_log = debugLog(config, input, outcome, notes);
  const written = await writeRowResult(knex, jobId, rowIndex, outcome, { artifacts });
  return { processed: written, succeeded: written && !result.error };
}

/**
 * Writes a row's result once: only while the row is `pending` and the job `running`, and moves
 * the job counters in the same transaction. When the job targets a catalog
 * (`config.catalog_target`), the result is staged on the job's activity in that transaction and
 * `result.staged_change_id` names the staged change; captured artifacts are recorded there too.
 * @returns true when this call wrote the result, false when it was already written or the job
 *   stopped running (cancelled jobs take no new results, so credits match the kept results)
 */
export async function writeRowResult(
  knex: Knex,
  jobId: string,
  rowIndex: number,
  outcome: { result: EnrichmentResult; evidence: unknown; usage: EngineUsage | null },
  extras: { artifacts?: ArtifactRecord[] } = {},
): Promise<boolean> {
  const succeeded = !outcome.result.error;
  return knex.transaction(async (trx) => {
    const job = await trx('enrichment_jobs').where({ id: jobId }).forUpdate().first('status', 'organization_id', 'config');
    if (!job || job.status !== 'running') return false;
    const row = await trx('enrichment_rows').where({ job_id: jobId, row_index: rowIndex, status: 'pending' }).forUpdate().first('input');
    if (!row) return false;
    const result = outcome.result;
    const target = job.config?.catalog_target as CatalogTarget | undefined;
    if (target) {
      result.staged_change_id = await stageRowResult(trx, { id: jobId, organization_id: job.organization_id }, target, rowIndex, row.input, result, job.config.staged_status ?? 'pending');
    }
    if (extras.artifacts?.length) await recordArtifacts(trx, { id: jobId, organization_id: job.organization_id }, rowIndex, extras.artifacts);
    await trx('enrichment_rows')
      .where({ job_id: jobId, row_index: rowIndex, status: 'pending' })
      .update({
        status: succeeded ? 'succeeded' : 'failed',
        result: JSON.stringify(result),
        evidence: outcome.evidence === null || outcome.evidence === undefined ? null : JSON.stringify(outcome.evidence),
        usage: outcome.usage === null ? null : JSON.stringify(outcome.usage),
        error: result.error ?? null,
        completed_at: trx.fn.now(),
      });
    await trx('enrichment_jobs').where({ id: jobId }).update({
      completed_items: trx.raw('completed_items + 1'),
      successful: trx.raw('successful + ?', [succeeded ? 1 : 0]),
      updated_at: trx.fn.now(),
    });
    return true;
  });
}

/**
 * Finishes a job: `completed` (or `failed` with `error`) unless it was cancelled meanwhile, in
 * which case it stays `cancelled`; `credits_used` becomes the number of successful items this
 * job processed (1 per successful item, derived from the rows, so calling this twice never
 * charges twice; rows carried from an earlier job are not charged again);
 * `service_usage` sums the rows' usage. Idempotent.
 */
export async function finalizeJob(knex: Knex, jobId: string, outcome: 'completed' | 'failed' | 'cancelled', error?: string): Promise<JobProgress> {
  return knex.transaction(async (trx) => {
    const job = await trx('enrichment_jobs').where({ id: jobId }).forUpdate().first();
    if (!job) throw new Error(`Job ${jobId} not found`);
    const [agg] = await trx('enrichment_rows').where({ job_id: jobId }).select(
      trx.raw("count(*) filter (where status <> 'pending') as completed"),
      trx.raw("count(*) filter (where status = 'succeeded') as successful"),
      trx.raw("count(*) filter (where status = 'succeeded' and carried_from_job_id is null) as charged"),
      trx.raw("coalesce(sum((usage->>'search_calls')::int), 0) as search_calls"),
      trx.raw("coalesce(sum((usage->>'pages_fetched')::int), 0) as pages_fetched"),
      trx.raw("coalesce(sum((usage->>'llm_calls')::int), 0) as llm_calls"),
      trx.raw("coalesce(sum((usage->>'llm_prompt_tokens')::int), 0) as llm_prompt_tokens"),
      trx.raw("coalesce(sum((usage->>'llm_completion_tokens')::int), 0) as llm_completion_tokens"),
    );
    const status = job.status === 'running' ? outcome : job.status;
    const successful = Number(agg.successful);
    // Rows carried from an earlier job (resume / re-extract) were charged there: not again.
    const charged = Number(agg.charged);
    await trx('enrichment_jobs').where({ id: jobId }).update({
      status,
      error: status === 'failed' ? (error ?? job.error ?? 'Job failed') : job.error,
      completed_items: Number(agg.completed),
      successful,
      credits_used: charged,
      service_usage: JSON.stringify({
        credits: charged,
        search_calls: Number(agg.search_calls),
        pages_fetched: Number(agg.pages_fetched),
        llm_calls: Number(agg.llm_calls),
        llm_prompt_tokens: Number(agg.llm_prompt_tokens),
        llm_completion_tokens: Number(agg.llm_completion_tokens),
      }),
      completed_at: job.completed_at ?? trx.fn.now(),
      updated_at: trx.fn.now(),
    });
    // A finished job that wrote to a catalog awaits review of its staged changes (decisions.md §5).
    const activityStatus = status === 'completed' && job.catalog_id ? 'pending_review' : status;
    await trx('review_activities').where({ id: jobId }).update({ status: activityStatus, updated_at: trx.fn.now() });
    return { status, total_items: job.total_items, completed_items: Number(agg.completed), successful };
  });
}

/** Current counters of a job from PostgreSQL. */
export async function jobProgress(knex: Knex, jobId: string): Promise<JobProgress> {
  const job = await knex('enrichment_jobs').where({ id: jobId }).first('status', 'total_items', 'completed_items', 'successful');
  if (!job) throw new Error(`Job ${jobId} not found`);
  return job;
}

/**
 * Status of one row (`pending`, `succeeded` or `failed`), or null when the job has no such row.
 * Lets a retried activity report what an earlier attempt already wrote (Temporal rule 4).
 */
export async function rowStatus(knex: Knex, jobId: string, rowIndex: number): Promise<'pending' | 'succeeded' | 'failed' | null> {
  const row = await knex('enrichment_rows').where({ job_id: jobId, row_index: rowIndex }).first('status');
  return row?.status ?? null;
}
