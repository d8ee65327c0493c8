import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { engineItem } from './engine-item';
import { jobTextExamples, type JobTextExamples } from './examples';
import { jobDocuments } from './knowledge-base';
import type { FetchedPage } from '../../enrichment/research/types';
import type { EngineUsage, EnrichInput, EnrichmentEngine, EnrichmentResult, Evidence, OutputField, ReviewInfo, TaxonomyInput } from '../../enrichment/types';
import type { EnrichmentJob } from '../../models/enrichment-job';
import type { EnrichJobConfig, OutputFieldInput } from '../../schemas/enrich';
import { errorFields } from '../../lib/errors';
import { ArtifactRecord, artifactLinks, hostResultMedia, recordArtifacts, storeArtifacts } from './artifacts';
import { CatalogTarget, stageRowResults } from './staging';
import { auditWanted, stagedStatusFor } from './audit';
import { auditResult, AuditJudgment } from '../../enrichment/audit';

/**
 * The row-level work of an enrichment job, used by the Temporal activities (which stay thin
 * adapters, architecture.md). Every write is idempotent on (job_id, row_index): a row moves from
 * `pending` to `succeeded`/`failed` once, and the job's counters move in the same transaction,
 * so a retried activity or a replay after a worker crash never duplicates a result or a credit
 * (architecture.md, Temporal rule 4).
 *
 * Per-row cost (bench/row-cost.ts, archive engine ~4.5 ms/item on an idle 2-core machine): a
 * row's research evidence was ~57 KB of JSON (3 parsed pages with up to 20,000 characters of
 * text each; 24 KB per row after compression) written in the row's transaction, which held the
 * job row locked from its first statement, so on a busy machine (slow WAL writes) concurrent
 * rows queued behind each other's writes. Now the parsed pages are stored once per organization
 * by content hash (1.2 KB per row stays on the row; re-extraction resolves the references), the
 * job row is locked only by the counter update just before commit. {@link writeRowResults} can
 * write several rows in one transaction with one counter update; grouping a batch's writes that
 * way measured ~30% more rows/s, but is not used yet (a retried batch must not re-enrich rows).
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
  const parts = [config.global_feedback, rowIndex === undefined ? undefined : config.item_feedback?.[String(rowIndex)]].filter((x) => typeof x === 'string' && x.trim());
  return parts.length ? parts.join('\n') : undefined;
}

/**
 * Builds the engine input of one row from the job's stored config: the job's options, the
 * catalog's `known_values`, the row's attribute-set fields and source hints, and re-extraction
 * feedback.
 */
export function engineInput(config: EnrichJobConfig, item: Record<string, unknown>, rowIndex?: number): EnrichInput {
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

/** A stored evidence document whose parsed page lives in `enrichment_evidence_documents`. */
interface DocRef {
  doc_ref: string;
}

/**
 * Largest number of `(organization, sha256)` keys remembered as stored by this process; beyond
 * it the oldest are forgotten (a forgotten key only costs one `ON CONFLICT DO NOTHING` insert).
 */
const KNOWN_DOCS_MAX = 50_000;
/** Keys of documents this process has seen committed (insertion-ordered: oldest first). */
const knownDocs = new Set<string>();

function rememberDoc(key: string): void {
  knownDocs.add(key);
  if (knownDocs.size > KNOWN_DOCS_MAX) knownDocs.delete(knownDocs.values().next().value as string);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Splits a row's evidence into what the row keeps and the parsed pages to store once per
 * organization, content-addressed by the SHA-256 of their JSON (table
 * `enrichment_evidence_documents`, migration 20261121180000_evidence_documents): the returned
 * `evidence` is the same object with each `documents[i].doc` replaced by `doc_ref` (the hash);
 * `fresh` lists the pages this process has not seen committed yet, sorted by hash. Other
 * evidence shapes (engines whose documents carry no `doc` object) come back unchanged. No I/O.
 */
function splitEvidence(organizationId: string, evidence: unknown): { evidence: unknown; fresh: Array<[string, string]> } {
  if (!isPlainObject(evidence) || !Array.isArray(evidence.documents)) return { evidence, fresh: [] };
  const fresh = new Map<string, string>();
  let changed = false;
  const documents = evidence.documents.map((d) => {
    if (!isPlainObject(d) || !isPlainObject(d.doc)) return d;
    const json = JSON.stringify(d.doc);
    const sha256 = crypto.createHash('sha256').update(json).digest('hex');
    if (!knownDocs.has(`${organizationId}:${sha256}`)) fresh.set(sha256, json);
    changed = true;
    const { doc: _doc, ...rest } = d;
    return { ...rest, doc_ref: sha256 } satisfies Record<string, unknown> & DocRef;
  });
  if (!changed) return { evidence, fresh: [] };
  return { evidence: { ...evidence, documents }, fresh: [...fresh].sort(([a], [b]) => (a < b ? -1 : 1)) };
}

/**
 * Inserts parsed pages (`[sha256, json]`, sorted by hash so that concurrent writers of the same
 * new pages wait for each other in one order: no deadlock); pages already stored are skipped
 * (`ON CONFLICT DO NOTHING`: they are immutable, the key is their content).
 */
async function insertEvidenceDocuments(db: Knex | Knex.Transaction, organizationId: string, fresh: Array<[string, string]>): Promise<void> {
  if (!fresh.length) return;
  await db.raw(
    `INSERT INTO enrichment_evidence_documents (organization_id, sha256, doc)
     SELECT ?::uuid, h, d::jsonb FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS u(h, d, o) ORDER BY o
     ON CONFLICT DO NOTHING`,
    [organizationId, fresh.map(([h]) => h), fresh.map(([, d]) => d)],
  );
}

/**
 * The inverse of {@link splitEvidence} (which {@link writeRowResults} applies): a row's stored
 * evidence with every `doc_ref` replaced by its parsed page again, as the engine's `extract`
 * expects (re-extraction). Evidence stored
 * inline (rows written before content addressing) is returned unchanged. A reference whose
 * document is missing is left without `doc`, which the engine skips like an unreadable page.
 */
export async function loadEvidence(knex: Knex, organizationId: string, stored: unknown): Promise<unknown> {
  if (!isPlainObject(stored) || !Array.isArray(stored.documents)) return stored;
  const refs = [...new Set(stored.documents.filter((d): d is DocRef => isPlainObject(d) && typeof d.doc_ref === 'string').map((d) => d.doc_ref))];
  if (refs.length === 0) return stored;
  const found = await knex('enrichment_evidence_documents').where({ organization_id: organizationId }).whereIn('sha256', refs).select('sha256', 'doc');
  const docs = new Map(found.map((r) => [r.sha256 as string, r.doc as unknown]));
  return {
    ...stored,
    documents: stored.documents.map((d) => {
      if (!isPlainObject(d) || typeof d.doc_ref !== 'string') return d;
      const { doc_ref: ref, ...rest } = d;
      return docs.has(ref) ? { ...rest, doc: docs.get(ref) } : rest;
    }),
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
async function runEngine(engine: EnrichmentEngine, config: EnrichJobConfig, input: EnrichInput, evidence: unknown, capture: FetchedPage[] | null): Promise<RowOutcome> {
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
function debugLog(config: EnrichJobConfig, input: EnrichInput, outcome: RowOutcome, extra: string[]): string[] {
  const ev = (outcome.evidence ?? {}) as Partial<Evidence>;
  const docs = Array.isArray(ev.documents) ? ev.documents : [];
  return [
    `mode: ${config.reextract_from_activity_id ? 're-extract from stored evidence (no search, no fetch)' : 'research + extract'}`,
    `fields: ${input.output_schema.map((f) => f.name).join(', ')}`,
    ...(ev.queries ?? []).map((q) => `query: ${q}`),
    ...(ev.search_results ?? []).slice(0, 10).map((r) => `search result: ${r.url} (score ${r.score})`),
    ...docs.map((d: unknown) => `document read: ${(typeof d === 'object' && d !== null && 'url' in d ? d.url : undefined) ?? '?'}`),
    `usage: ${JSON.stringify(outcome.usage ?? EMPTY_USAGE)}`,
    ...extra,
  ];
}

/** A row as read for processing, with its job's state. */
interface LoadedRow {
  row_index: number;
  status: string;
  input: Record<string, unknown>;
  evidence: unknown;
  job_status: string;
  config: EnrichJobConfig;
  organization_id: string;
}

/**
 * Reads rows of a job with the job's status, config and organization. The job is read once,
 * not joined per row: its config (taxonomy, known values, …) can be large.
 */
async function loadRows(knex: Knex, jobId: string, rowIndexes: number[]): Promise<Map<number, LoadedRow>> {
  const job = await knex('enrichment_jobs').where({ id: jobId }).first('status', 'config', 'organization_id');
  if (!job) return new Map();
  const rows = await knex('enrichment_rows').where('job_id', jobId).whereIn('row_index', rowIndexes).select('row_index', 'status', 'input', 'evidence');
  return new Map(rows.map((r) => [r.row_index as number, { ...r, job_status: job.status, config: job.config, organization_id: job.organization_id } as LoadedRow]));
}

/** One computed row, ready for {@link writeRowResults}. */
export interface RowWrite {
  rowIndex: number;
  outcome: { result: EnrichmentResult; evidence: unknown; usage: EngineUsage | null };
  artifacts?: ArtifactRecord[];
}

/** What a job without catalog examples learns from: nothing. */
const NO_EXAMPLES: JobTextExamples = { examples: [], texts: [] };

/**
 * Runs the engine for a loaded pending row (research + extract, or extract only for
 * re-extraction jobs) and applies the job's post-processing (media hosting, source artifacts,
 * debug log). Writes nothing to the row.
 * @param knowledgeBase the job's knowledge-base documents when `config.knowledge_base_enabled`
 * @param learning the job's catalog text examples and item texts ({@link jobTextExamples}; the
 *   same arrays for every row of the job, so the engine trains its text model once), used when
 *   `web_search` is false
 */
async function computeRow(knex: Knex, engine: EnrichmentEngine, row: LoadedRow, knowledgeBase: unknown, learning: JobTextExamples = NO_EXAMPLES): Promise<RowWrite> {
  const config = row.config;
  const input = engineInput(config, row.input, row.row_index);
  if (config.knowledge_base_enabled) input.options.knowledge_base = knowledgeBase as EnrichInput['options']['knowledge_base'];
  if (learning.examples.length > 0 && !input.options.web_search) {
    input.options.text_examples = learning.examples;
    input.options.text_corpus = learning.texts;
  }
  const capture: FetchedPage[] | null = config.capture_source_artifacts ? [] : null;
  let outcome: RowOutcome;
  // The research with its parsed pages, as extraction saw it (the audit looks into it).
  let research: unknown = null;
  try {
    const stored = config.reextract_from_activity_id ? await loadEvidence(knex, row.organization_id, row.evidence) : null;
    outcome = await runEngine(engine, config, input, stored, capture);
    research = stored ?? outcome.evidence;
    // Keep the row's stored form (document references) rather than the hydrated pages.
    if (stored) outcome.evidence = row.evidence;
  } catch (err) {
    outcome = { result: errorResult(input.item, `Enrichment failed: ${errorFields(err).message ?? String(err)}`), evidence: null, usage: null };
  }
  const result = outcome.result;
  result.original_data = row.input;
  const notes: string[] = [];
  // Processed images are served from the service, so image_processing hosts them too.
  if ((config.host_media || config.image_processing?.enabled) && !result.error) {
    const media = await hostResultMedia(knex, engine.fetcher, row.organization_id, result, input.output_schema, Boolean(config.strict_hosted_media), config.image_processing);
    notes.push(`media hosted: ${media.hosted}, not hostable: ${media.failed}, images processed: ${media.processed}${config.strict_hosted_media ? ' (strict: failed fields cleared)' : ''}`);
  }
  let artifacts: ArtifactRecord[] = [];
  if (capture) {
    artifacts = await storeArtifacts(capture);
    (result as EnrichmentResult & { source_artifacts?: unknown }).source_artifacts = artifactLinks(artifacts);
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
  return { rowIndex: row.row_index, outcome, artifacts };
}

/**
 * Processes one row: skips it when already done or when the job is no longer running, otherwise
 * runs the engine (research + extract, or extract only for re-extraction jobs; `web_search:
 * false` jobs with the job's catalog text examples), applies the
 * job's post-processing (media hosting, source artifacts, debug log) and writes the result
 * idempotently, staging it on the job's activity when the job targets a catalog.
 * @returns `processed` false when nothing was written (already done, job cancelled/finished)
 */
export async function processRow(knex: Knex, engine: EnrichmentEngine, jobId: string, rowIndex: number): Promise<{ processed: boolean; succeeded: boolean }> {
  const row = (await loadRows(knex, jobId, [rowIndex])).get(rowIndex);
  if (!row || row.status !== 'pending' || row.job_status !== 'running') return { processed: false, succeeded: false };
  const kb = row.config.knowledge_base_enabled ? await jobDocuments(knex, jobId) : undefined;
  const learning = row.config.web_search === false ? await jobTextExamples(knex, jobId) : NO_EXAMPLES;
  const computed = await computeRow(knex, engine, row, kb, learning);
  const [written] = await writeRowResults(knex, jobId, [computed]);
  return { processed: written, succeeded: written && !computed.outcome.result.error };
}

/** Thrown inside {@link writeRowResults}'s transaction to roll it back when the job stopped running. */
class JobNotRunning extends Error {}

/**
 * Writes the results of several rows of one job in ONE transaction: each only while its row is
 * `pending`, all only while the job is `running`, and the job counters move once, by the rows
 * actually written, in the same transaction (exact and idempotent: a row counts only when this
 * transaction moved it out of `pending`). When the job targets a catalog
 * (`config.catalog_target`), each result is staged on the job's activity in that transaction and
 * `result.staged_change_id` names the staged change; captured artifacts are recorded there too.
 * The evidence's parsed pages are stored content-addressed in the same transaction
 * ({@link splitEvidence}, {@link insertEvidenceDocuments}).
 *
 * Locking: the rows are locked first (`FOR UPDATE` on the still-pending ones, in row order: a
 * concurrent attempt at the same rows waits, then finds them done); the job row only by the
 * final counter update, guarded by `status = 'running'`. A cancel or finalize that commits first
 * makes that update match nothing and the whole write rolls back; one that comes later waits for
 * this commit and counts the rows. So the job row is held for one statement and the commit, not
 * for the whole write, and concurrent batches of a job do not queue behind each other's writes.
 * Lock order is always documents (by hash) → rows (by index) → job (finalizeJob and cancel take
 * only the job row): no deadlock.
 * @returns per entry, true when this call wrote it (false: already written, or the job stopped)
 */
export async function writeRowResults(knex: Knex, jobId: string, writes: RowWrite[]): Promise<boolean[]> {
  if (!writes.length) return [];
  // organization_id and config never change after creation: read without locking.
  const job = await knex('enrichment_jobs').where({ id: jobId }).first('status', 'organization_id', 'config');
  if (!job || job.status !== 'running') return writes.map(() => false);
  const splits = writes.map((w) => (w.outcome.evidence === null || w.outcome.evidence === undefined ? null : splitEvidence(job.organization_id, w.outcome.evidence)));
  const fresh = [...new Map(splits.flatMap((sp) => sp?.fresh ?? [])).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  let written: boolean[];
  try {
    written = await knex.transaction(async (trx) => {
      await insertEvidenceDocuments(trx, job.organization_id, fresh);
      const locked = await trx('enrichment_rows')
        .where({ job_id: jobId, status: 'pending' }).whereIn('row_index', writes.map((w) => w.rowIndex))
        .orderBy('row_index').forUpdate().select('row_index', 'input');
      const inputs = new Map(locked.map((r) => [r.row_index as number, r.input as Record<string, unknown>]));
      const target = job.config?.catalog_target as CatalogTarget | undefined;
      // A row listed twice is written by its first entry only.
      const claimed = new Set<number>();
      const mine = writes.map((w) => {
        const ok = inputs.has(w.rowIndex) && !claimed.has(w.rowIndex);
        if (ok) claimed.add(w.rowIndex);
        return ok;
      });
      const staged = target
        ? await stageRowResults(trx, { id: jobId, organization_id: job.organization_id }, target, writes.filter((_, k) => mine[k]).map((w) => ({
          rowIndex: w.rowIndex, input: inputs.get(w.rowIndex)!, result: w.outcome.result, status: stagedStatusFor(job.config, w.outcome.result),
        })))
        : null;
      const values: Array<[number, string, string, string | null, string | null, string | null]> = [];
      for (const [k, w] of writes.entries()) {
        if (!mine[k]) continue;
        const result = w.outcome.result;
        if (staged) result.staged_change_id = staged.get(w.rowIndex);
        if (w.artifacts?.length) await recordArtifacts(trx, { id: jobId, organization_id: job.organization_id }, w.rowIndex, w.artifacts);
        const evidence = splits[k] ? splits[k]!.evidence : null;
        values.push([w.rowIndex, result.error ? 'failed' : 'succeeded', JSON.stringify(result), evidence === null ? null : JSON.stringify(evidence), w.outcome.usage === null ? null : JSON.stringify(w.outcome.usage), result.error ?? null]);
      }
      if (!values.length) return writes.map(() => false);
      await trx.raw(
        `UPDATE enrichment_rows r
         SET status = v.status, result = v.result::jsonb, evidence = v.evidence::jsonb, usage = v.usage::jsonb, error = v.error, completed_at = now()
         FROM unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS v(row_index, status, result, evidence, usage, error)
         WHERE r.job_id = ? AND r.row_index = v.row_index AND r.status = 'pending'`,
        [...[0, 1, 2, 3, 4, 5].map((c) => values.map((v) => v[c])), jobId] as unknown as readonly Knex.RawBinding[],
      );
      const succeeded = values.filter((v) => v[1] === 'succeeded').length;
      const counted = await trx('enrichment_jobs').where({ id: jobId, status: 'running' }).update({
        completed_items: trx.raw('completed_items + ?', [values.length]),
        successful: trx.raw('successful + ?', [succeeded]),
        updated_at: trx.fn.now(),
      });
      if (counted === 0) throw new JobNotRunning();
      return mine;
    });
  } catch (err) {
    if (err instanceof JobNotRunning) return writes.map(() => false);
    throw err;
  }
  // Committed: only now may this process skip these pages next time.
  fresh.forEach(([h]) => rememberDoc(`${job.organization_id}:${h}`));
  return written;
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

