import type { Knex } from 'knex';
import type { Config } from '../../../config';
import { ConflictError, ServiceUnavailableError, ValidationError } from '../../../lib/errors';
import { newId } from '../../../lib/ids';
import { logger } from '../../../lib/logger';
import { EnrichmentJob } from '../../../models/enrichment-job';
import { EnrichmentRow } from '../../../models/enrichment-row';
import { ReviewActivity } from '../../../models/review-activity';
import type { KnowledgeBaseDocument } from '../../../enrichment/types';
import type { AuditDecision } from '../../../enrichment/result-audit';
import type { EnrichJobConfig, EnrichRequest } from '../../../schemas/enrich';
import { auditSummary, auditWanted } from '../rows/audit-options';
import { copyJobExamples, saveJobExamples } from '../rows/examples';
import type { EnrichmentStorage } from '../rows/artifacts';
import { hostKnowledgeBase, saveJobDocuments } from '../rows/knowledge-base';
import {
  copyRowsForReextract,
  copyRowsForResume,
  insertInlineItems,
  insertItemsFromCatalog,
  insertItemsFromFile,
  insertItemsFromFlowNode,
  rowRules,
} from './job-rows';
import { type ItemSelection, JobPlan, planJob } from './request';
import { settleModelOptions } from './model-options';
import { copyStagedChanges } from '../rows/staging';
import { assertWorkerPolling, type JobRunner } from '../../job-runner';
import { loadOwned } from '../../access/ownership';
import type { Scope } from '../../access/scope';
import { jobsCreated } from '../../../lib/metrics';
import { assertJobQuota } from './quotas';
import { assertWebhookUrl, webhookStatus, WebhookStatus } from '../webhooks';
import { enrichmentWorkflowId } from '../../../contracts/workflows';
import { newestFirstPage } from '../../../models/newest-first';
import { noResearchSourceNotice, organizationHasResearchSource } from '../../research-archives/sources';
import { noteItemUrlsOff } from '../rows/item-pages';

/** What the job service needs. */
export interface JobServiceDeps {
  knex: Knex;
  jobRunner: JobRunner;
  /**
   * `allowHttpWebhooks`: loopback http webhook URLs are accepted (development); default false.
   * `limits`: concurrent-job and monthly-credit quotas (./quotas.ts); none when absent.
   * `llm`: the model, when one is configured (the options that need one: ./model-options.ts).
   */
  config?: {
    allowHttpWebhooks?: boolean;
    limits?: Config['limits'];
    llm?: Config['llm'];
    /**
     * The research sources of the deployment (src/services/research-archives/sources.ts): a job
     * of an organization with none reads its items' own data, with a notice. Not checked when absent.
     */
    search?: Config['search'];
    researchArchives?: string[];
    /** `fetch.itemUrls`: the pages items name are fetched (FETCH_ITEM_URLS); default true when absent. */
    fetch?: Pick<Config['fetch'], 'itemUrls'>;
  };
}

/** How often a synchronous request re-checks that a worker still polls while it waits (ms). */
const SYNC_WORKER_CHECK_MS = 10_000;

/**
 * Waits for a synchronous job's workflow to close, checking every {@link SYNC_WORKER_CHECK_MS}
 * that a worker still polls.
 * @throws ServiceUnavailableError (503) naming the job when no worker polls any more (it runs on when one is back)
 */
async function waitForSyncJob(jobRunner: JobRunner, jobId: string, workflowId: string): Promise<void> {
  const closed = jobRunner.waitForClose(workflowId).then(() => true);
  for (;;) {
    const done = await Promise.race([closed, new Promise<false>((r) => setTimeout(() => r(false), SYNC_WORKER_CHECK_MS).unref())]);
    if (done) return;
    await assertWorkerPolling(jobRunner, `job ${jobId} is stored and runs when a worker polls again (GET /api/public/enrich/${jobId})`);
  }
}

/**
 * The settings that say which research sources a deployment has and whether it fetches the pages
 * items name (src/services/research-archives/sources.ts; `fetch` absent: FETCH_ITEM_URLS' default).
 */
export type ResearchSettings = Pick<Config, 'search' | 'researchArchives'> & { fetch?: Pick<Config['fetch'], 'itemUrls'> };

/** Whether `research` fetches the pages items name (FETCH_ITEM_URLS, default true). */
function fetchesItemUrls(research: Partial<ResearchSettings> | undefined): boolean {
  return research?.fetch?.itemUrls ?? true;
}

/**
 * With no research source for the organization (src/services/research-archives/sources.ts), a
 * job that asked for web search reads its items' own data (`web_search: false`) and says so in
 * its notices; while the deployment fetches item URLs, rows whose items name a page still read
 * that page (`item_pages_only`, ../rows/item-pages.ts). Otherwise `config` is unchanged. Jobs of the
 * API and of a flow's enrich node alike (docs/research.md).
 * @returns whether the job asked for web research (not `web_search: false`, not re-extraction)
 */
async function withResearchSource(
  knex: Knex,
  research: Partial<ResearchSettings> | undefined,
  organizationId: string,
  config: EnrichJobConfig,
): Promise<boolean> {
  if (config.web_search === false || config.reextract_from_activity_id) return false;
  if (!research?.search || !research.researchArchives) return true;
  if (await organizationHasResearchSource(knex, { search: research.search, researchArchives: research.researchArchives }, organizationId)) return true;
  const itemUrls = fetchesItemUrls(research);
  config.web_search = false;
  if (itemUrls) config.item_pages_only = true;
  config.recorded_noops = [...(config.recorded_noops ?? []), noResearchSourceNotice(itemUrls)];
  return true;
}

/** A validated `POST /public/enrich` body (src/schemas/enrich.ts); defaults are applied by the service. */
export type { EnrichRequest };

/**
 * A job with one page of its results (what a poll returns, presented by
 * src/presenters/enrich.ts presentJobPage): results in row order, `total_pages` over the
 * processed rows; `audit` when the job audits its results, `webhook` when it asked for one.
 */
export interface JobPage {
  job: EnrichmentJob;
  results: unknown[];
  page: number;
  page_size: number;
  total_pages: number;
  audit?: Record<AuditDecision, number>;
  webhook?: WebhookStatus;
}

/** One page of the organization's jobs, newest first (`GET /public/enrich/jobs`). */
export interface JobList {
  jobs: EnrichmentJob[];
  total: number;
  limit: number;
  offset: number;
}

/** Inserts the job's rows from its item source; returns the row count and rows carried. */
async function insertRows(trx: Knex.Transaction, jobId: string, plan: JobPlan): Promise<{ rows: number; carried: number; processable: number }> {
  const check = rowRules(plan.config.attribute_sets, plan.config.source_hint_sets);
  const items = plan.items;
  switch (items.kind) {
    case 'inline': {
      const rows = await insertInlineItems(trx, jobId, items.items, check);
      return { rows, carried: 0, processable: rows };
    }
    case 'file': {
      const rows = await insertItemsFromFile(trx, jobId, items.file, check, items.fileName);
      if (rows === 0) throw ValidationError.at(['body', 'items_file'], 'items_file holds no items', 'missing');
      return { rows, carried: 0, processable: rows };
    }
    case 'catalog': {
      const rows = await insertItemsFromCatalog(trx, jobId, items.catalogId, items.where);
      if (rows === 0)
        throw ValidationError.at(
          ['body', 'source_catalog_id'],
          items.where ? 'No item matches the selection' : 'The source catalog has no items',
          'value_error',
        );
      return { rows, carried: 0, processable: rows };
    }
    case 'resume': {
      const { rows, carried } = await copyRowsForResume(trx, jobId, items.from.id);
      return { rows, carried, processable: rows };
    }
    case 'reextract': {
      const { rows, carried } = await copyRowsForReextract(trx, jobId, items.from.id, items.from.total_items, items.indices);
      return { rows, carried, processable: items.from.total_items };
    }
    case 'flow': {
      const rows = await insertItemsFromFlowNode(trx, jobId, items.runId, items.nodeId);
      return { rows, carried: 0, processable: rows };
    }
  }
}

/** The metadata of a job's review activity: the job and what it continues, its template and file. */
function activityMetadata(jobId: string, config: JobPlan['config']): Record<string, unknown> {
  return {
    job_id: jobId,
    ...(config.source_activity_id ? { source_activity_id: config.source_activity_id } : {}),
    ...(config.reextract_from_activity_id ? { reextract_from_activity_id: config.reextract_from_activity_id } : {}),
    ...(config.template ? { template_id: config.template.id } : {}),
    ...(config.file_name ? { file_name: config.file_name } : {}),
    ...(config.review_mode !== undefined ? { review_mode: config.review_mode } : {}),
  };
}

/**
 * Stores a planned job inside `trx` (the creating transaction of {@link createEnrichmentJob}):
 * its review activity, the job, its knowledge-base documents, its text examples (copied from
 * the job it continues, else sampled, stored after the rows whose texts they include), its
 * rows, the counters of the rows it carries, and the staged changes of those rows.
 * @returns the number of items the job processes (`total_items`)
 */
async function storeJob(
  trx: Knex.Transaction,
  scope: Scope,
  plan: JobPlan,
  documents: KnowledgeBaseDocument[],
  jobId: string,
  workflowId: string,
): Promise<number> {
  const { config, catalogId } = plan;
  await ReviewActivity.query(trx).insert({
    id: jobId,
    organization_id: scope.organizationId,
    catalog_id: catalogId,
    type: 'enrichment',
    status: 'running',
    description: config.prompt ? String(config.prompt).slice(0, 500) : 'Enrichment job',
    metadata: activityMetadata(jobId, config),
  });
  await EnrichmentJob.query(trx).insert({
    id: jobId,
    organization_id: scope.organizationId,
    catalog_id: catalogId,
    status: 'running',
    config,
    total_rows: 0,
    total_items: 0,
    workflow_id: workflowId,
  });
  await saveJobDocuments(trx, jobId, documents);
  const from = plan.items.kind === 'resume' || plan.items.kind === 'reextract' ? plan.items.from : null;
  // A resumed / re-extracted job learns from the very examples of the job it continues.
  if (from) await copyJobExamples(trx, from.id, jobId);
  const { rows, carried, processable } = await insertRows(trx, jobId, plan);
  // After the rows: the examples are stored with the texts of the job's own items.
  if (!from) await saveJobExamples(trx, jobId, plan.examples ?? []);
  const total = Math.min(processable, config.max_rows ?? Number.POSITIVE_INFINITY);
  const [agg] = await trx('enrichment_rows')
    .where({ job_id: jobId })
    .where('row_index', '<', total)
    .select(
      trx.raw("count(*) filter (where status <> 'pending')::int as completed"),
      trx.raw("count(*) filter (where status = 'succeeded')::int as successful"),
    );
  await EnrichmentJob.query(trx).findById(jobId).patch({
    total_rows: rows,
    total_items: total,
    completed_items: agg.completed,
    successful: agg.successful,
    carried_items: carried,
  });
  if (!config.prompt)
    await ReviewActivity.query(trx)
      .findById(jobId)
      .patch({ description: `Enrichment of ${total} items` });
  if (from && carried > 0 && config.catalog_target) await copyStagedChanges(trx, from.id, jobId);
  return total;
}

/** What a multipart request adds to the body: the uploaded items file and knowledge-base files. */
export interface EnrichUploadInput {
  itemsFile: { path: string; originalname: string };
  knowledgeBaseFiles: Array<{ path: string; originalname: string; mimetype: string }>;
  /** Where uploaded knowledge-base files are hosted (../rows/artifacts.ts; the router builds it once). */
  storage: EnrichmentStorage;
}

/**
 * Creates an enrichment job (docs/api-enrichment.md "Enrichment jobs" POST /public/enrich): resolves the request
 * (src/services/enrichment/jobs/request.ts: template, catalog schema/taxonomy/known values and text
 * examples, resume, re-extraction), stores the review activity (type `enrichment`), the job,
 * its text examples (sampled, or copied from the job it continues) and its rows from the
 * item source (inline, streamed `items_file`, source catalog, earlier job) in ONE transaction,
 * starts the durable workflow, and for `async_mode: false` waits for it and returns the results.
 * @param upload the multipart files, when the request came as `multipart/form-data`
 * @param selection with `source_catalog_id`: only these items of it (the console's grid
 *   selection: fill the gaps, bulk enrich and classify; src/services/enrichment/jobs/fill-gaps.ts)
 * @param idempotentId the job's id when the request carries an `Idempotency-Key` (derived from
 *   its claim, src/services/access/idempotency.ts idempotentResourceId; else a new id): when that
 *   job exists already, the request's first attempt created it and died before its answer was stored, so
 *   nothing is created or charged again: the job's workflow is started if it was not (an
 *   idempotent start) and the job is answered
 * @throws ValidationError (422), NotFoundError (404) / ForbiddenError (403) for referenced
 *   catalogs, templates and activities, ConflictError (409) for a running source job,
 *   ServiceUnavailableError (503) when the workflow cannot be started (the job is marked failed),
 *   and for a synchronous request when no worker polls the task queue (before the job is stored, or
 *   while waiting: the job then runs when a worker is back)
 */
export async function createEnrichmentJob(
  deps: JobServiceDeps,
  scope: Scope,
  req: EnrichRequest,
  upload?: EnrichUploadInput,
  selection?: ItemSelection,
  idempotentId?: string,
): Promise<JobPage> {
  const { knex } = deps;
  const earlier = idempotentId ? await EnrichmentJob.query(knex).findById(idempotentId).where('organization_id', scope.organizationId) : undefined;
  if (earlier) return answerEarlierAttempt(deps, scope, earlier);
  const jobId = idempotentId ?? newId();
  // docs/api-enrichment.md "Enrichment jobs": HTTPS only; loopback http only when config allowHttpWebhooks (src/services/enrichment/webhooks.ts).
  assertWebhookUrl(req.webhook_url, deps.config?.allowHttpWebhooks ?? false);
  await assertJobQuota(knex, scope, deps.config?.limits);
  const plan = await planJob(
    knex,
    scope,
    req,
    upload && { file: upload.itemsFile.path, fileName: upload.itemsFile.originalname, knowledgeFiles: upload.knowledgeBaseFiles.length > 0 },
    selection,
  );
  await settleModelOptions(knex, req, plan.config, Boolean(deps.config?.llm));
  const documents = upload ? await hostKnowledgeBase(knex, upload.storage, scope, plan.config, upload.knowledgeBaseFiles) : [];
  const config = plan.config;
  if (!config.async_mode) await assertWorkerPolling(deps.jobRunner, 'a synchronous request cannot be answered');
  const researches = await withResearchSource(knex, deps.config, scope.organizationId, config);
  const catalogId = plan.catalogId;
  const workflowId = enrichmentWorkflowId(jobId);

  const totalItems = await knex.transaction(async (trx) => {
    const total = await storeJob(trx, scope, plan, documents, jobId, workflowId);
    await noteItemUrlsOff(trx, fetchesItemUrls(deps.config), researches, jobId, config);
    return total;
  });
  jobsCreated.inc({ mode: config.async_mode ? 'async' : 'sync' });
  await startStoredJob(deps, { id: jobId, organization_id: scope.organizationId, catalog_id: catalogId, workflow_id: workflowId, total_items: totalItems });
  return answerCreated(deps, scope, jobId, workflowId, totalItems, config.async_mode === true);
}

/**
 * Starts a stored job's workflow (an idempotent start: a run already open or closed counts as
 * started). When Temporal refuses, the job and its activity are marked failed.
 * @throws ServiceUnavailableError (503) when the workflow cannot be started
 */
async function startStoredJob(
  deps: JobServiceDeps,
  job: { id: string; organization_id: string; catalog_id: string | null; workflow_id: string; total_items: number },
): Promise<void> {
  const { knex } = deps;
  try {
    await deps.jobRunner.startEnrichment(job);
  } catch (err) {
    logger.error({ err, job_id: job.id }, 'could not start enrichment workflow');
    await EnrichmentJob.query(knex)
      .findById(job.id)
      .patch({ status: 'failed', error: 'The job could not be started; retry later', completed_at: knex.fn.now(), updated_at: knex.fn.now() });
    await ReviewActivity.query(knex).findById(job.id).patch({ status: 'failed', updated_at: knex.fn.now() });
    throw new ServiceUnavailableError('Workflow service unavailable; the job was not started');
  }
}

/** The answer to a created (or found) job: the job at once when asynchronous, else its results once it has run. */
async function answerCreated(deps: JobServiceDeps, scope: Scope, jobId: string, workflowId: string, totalItems: number, asyncMode: boolean): Promise<JobPage> {
  if (asyncMode) {
    const job = await EnrichmentJob.query(deps.knex).findById(jobId).throwIfNotFound();
    return { job, results: [], page: 1, page_size: 0, total_pages: 0 };
  }
  await waitForSyncJob(deps.jobRunner, jobId, workflowId);
  return getEnrichmentJob(deps, scope, jobId, 1, Math.max(1, Math.min(1000, totalItems)));
}

/**
 * The answer to a retry whose first attempt created its job (same Idempotency-Key claim; see
 * {@link createEnrichmentJob} `jobId`): the job is started if it never was (an idempotent
 * start) and answered. Nothing is planned, stored or charged again.
 */
async function answerEarlierAttempt(deps: JobServiceDeps, scope: Scope, job: EnrichmentJob): Promise<JobPage> {
  const workflowId = job.workflow_id;
  await startStoredJob(deps, {
    id: job.id,
    organization_id: job.organization_id,
    catalog_id: job.catalog_id,
    workflow_id: workflowId,
    total_items: job.total_items,
  });
  return answerCreated(deps, scope, job.id, workflowId, job.total_items, job.config.async_mode === true);
}

/**
 * Stores (does not start) the enrichment job of a flow run's `enrich` node, inside the node's
 * transaction (src/services/flows/nodes/enrich.ts): its review activity, the job with the node's
 * saved recipe, and its rows copied from the output of `source.inputNodeId`, or, when
 * `source.resumeFrom` is an earlier job of the node that failed or was cancelled, from that job
 * as a resume does (succeeded rows carried, never charged again). The flow workflow runs it as a
 * child workflow under its `workflow_id`. With `research` (the deployment's research settings)
 * and no research source for the organization, the job reads its items' own data and carries the
 * same notice as an API job.
 * @returns the stored job
 */
export async function storeFlowNodeJob(
  trx: Knex.Transaction,
  scope: Scope,
  recipe: EnrichJobConfig,
  source: { runId: string; inputNodeId: string; resumeFrom: EnrichmentJob | null },
  research?: ResearchSettings,
): Promise<EnrichmentJob> {
  const jobId = newId();
  const from = source.resumeFrom;
  const plan: JobPlan = from
    ? { config: { ...recipe, async_mode: true, source_activity_id: from.id }, items: { kind: 'resume', from }, catalogId: null }
    : { config: { ...recipe, async_mode: true }, items: { kind: 'flow', runId: source.runId, nodeId: source.inputNodeId }, catalogId: null };
  const researches = await withResearchSource(trx, research, scope.organizationId, plan.config);
  await storeJob(trx, scope, plan, [], jobId, enrichmentWorkflowId(jobId));
  await noteItemUrlsOff(trx, fetchesItemUrls(research), researches, jobId, plan.config);
  return EnrichmentJob.query(trx).findById(jobId).throwIfNotFound();
}

/**
 * Polls a job (docs/api-enrichment.md "Polling and listing jobs"): counters and one page of results of the rows processed so
 * far, in row order. Partial results appear while the job runs.
 * @throws NotFoundError `Job not found` (404), ForbiddenError (403) for another organization's job
 */
export async function getEnrichmentJob(deps: Pick<JobServiceDeps, 'knex'>, scope: Scope, jobId: string, page: number, pageSize: number): Promise<JobPage> {
  const job = await loadOwned<EnrichmentJob>(deps.knex, EnrichmentJob, jobId, scope, 'Job not found');
  const rows = await EnrichmentRow.query(deps.knex)
    .where({ job_id: jobId })
    .whereNot({ status: 'pending' })
    .where('row_index', '<', job.total_items)
    .orderBy('row_index')
    .offset((page - 1) * pageSize)
    .limit(pageSize)
    .select('result');
  const out: JobPage = {
    job,
    results: rows.map((r) => r.result),
    page,
    page_size: pageSize,
    total_pages: Math.ceil(job.completed_items / pageSize),
  };
  if (auditWanted(job.config)) out.audit = await auditSummary(deps.knex, jobId, job.total_items);
  // Webhook delivery state (docs/api-enrichment.md "Webhooks": every attempt visible on the job).
  const webhook = await webhookStatus(deps.knex, job);
  if (webhook) out.webhook = webhook;
  return out;
}

/**
 * Lists the organization's jobs, newest first (docs/api-enrichment.md "Polling and listing jobs").
 * @returns `{jobs, total, limit, offset}`
 */
export async function listEnrichmentJobs(
  deps: Pick<JobServiceDeps, 'knex'>,
  scope: Scope,
  q: { status?: string; limit: number; offset: number },
): Promise<JobList> {
  const base = EnrichmentJob.query(deps.knex)
    .where({ organization_id: scope.organizationId })
    .modify((b) => {
      if (q.status) b.where({ status: q.status });
    });
  const { rows: jobs, total } = await newestFirstPage(base, q);
  return { jobs, total, limit: q.limit, offset: q.offset };
}

/**
 * Cancels a job (docs/api-reference.md "Limits"): a running job becomes `cancelled` at once (no
 * new result is written after this), its workflow is cancelled and finalises credits for the
 * items already done; cancelling a cancelled job succeeds again.
 * @returns the job as it now stands (status `cancelled`)
 * @throws ConflictError (409) for a completed or failed job; NotFoundError / ForbiddenError
 */
export async function cancelEnrichmentJob(deps: JobServiceDeps, scope: Scope, jobId: string): Promise<EnrichmentJob> {
  const job = await loadOwned<EnrichmentJob>(deps.knex, EnrichmentJob, jobId, scope, 'Job not found');
  if (job.status === 'running') {
    const updated = await EnrichmentJob.query(deps.knex).where({ id: jobId, status: 'running' }).patch({ status: 'cancelled', updated_at: deps.knex.fn.now() });
    if (updated) {
      await ReviewActivity.query(deps.knex).findById(jobId).patch({ status: 'cancelled', updated_at: deps.knex.fn.now() });
      await deps.jobRunner.cancel(job.workflow_id);
    }
  }
  const now = await EnrichmentJob.query(deps.knex).findById(jobId).throwIfNotFound();
  if (now.status !== 'cancelled') throw new ConflictError(`Job is already ${now.status} and cannot be cancelled`);
  return now;
}
