import type { Knex } from 'knex';
import { ConflictError, ServiceUnavailableError, ValidationDetail, ValidationError } from '../lib/errors';
import { newId } from '../lib/ids';
import { logger } from '../lib/logger';
import type { EnrichmentJob } from '../models/enrichment-job';
import type { OutputField } from '../enrichment/types';
import { presentJob, presentJobListEntry } from '../presenters/enrichment-job';
import type { JobRunner } from './job-runner';
import { loadOwned } from './ownership';
import type { Scope } from './scope';
import { jobsCreated } from '../lib/metrics';

/** What the job service needs. */
export interface JobServiceDeps {
  knex: Knex;
  jobRunner: JobRunner;
}

/** A validated `POST /public/enrich` body (src/schemas/enrich.ts), defaults applied. */
export type EnrichRequest = Record<string, any> & {
  items?: Array<Record<string, unknown>>;
  output_schema?: OutputField[];
  async_mode: boolean;
  max_rows?: number;
  catalog_id?: string;
};

/**
 * Request options accepted by the schema whose behaviour this server version does not provide
 * yet. They are refused with 422 `not_implemented` instead of being silently ignored.
 */
const NOT_YET: Array<[string, (v: unknown) => boolean]> = [
  ['template_id', (v) => v !== undefined],
  ['attribute_sets', (v) => v !== undefined],
  ['source_hint_sets', (v) => v !== undefined],
  ['source_catalog_id', (v) => v !== undefined],
  ['source_activity_id', (v) => v !== undefined],
  ['reextract_from_activity_id', (v) => v !== undefined],
  ['global_feedback', (v) => v !== undefined],
  ['item_feedback', (v) => v !== undefined],
  ['source_row_indices', (v) => v !== undefined],
  ['webhook_url', (v) => v !== undefined],
  ['capture_source_artifacts', (v) => v === true],
  ['host_media', (v) => v === true],
  ['strict_hosted_media', (v) => v === true],
  ['knowledge_base_enabled', (v) => v === true],
  ['knowledge_base_sources', (v) => v !== undefined],
  ['image_processing', (v) => v !== undefined],
];

/** Rows are inserted in chunks of this many (keeps each INSERT's parameter count small). */
const INSERT_CHUNK = 500;

/** Output fields from a catalog's current JSON Schema (used when the request names `catalog_id` only). */
function fieldsFromCatalogSchema(definition: { properties?: Record<string, any> } | null): OutputField[] {
  return Object.entries(definition?.properties ?? {})
    .filter(([, p]) => ['string', 'number', 'integer', 'boolean', 'array'].includes(p?.type))
    .map(([name, p]) => ({
      name,
      type: p.type,
      description: p.description ?? name,
      ...(p.unit ? { unit: p.unit } : {}),
      ...(Array.isArray(p.enum) ? { enum: p.enum } : {}),
      ...(p.type === 'array' ? { array_element_type: p.items?.format === 'uri' ? 'image_url' : p.items?.type === 'number' ? 'number' : 'string' } : {}),
    }));
}

/** Checks rules the JSON Schema cannot say; throws one 422 listing all problems. */
function checkRequest(req: EnrichRequest, outputSchema: OutputField[] | undefined): void {
  const details: ValidationDetail[] = [];
  for (const [key, used] of NOT_YET) {
    if (used(req[key])) details.push({ loc: ['body', key], msg: `${key} is not supported by this server version yet`, type: 'not_implemented' });
  }
  if (!req.items || req.items.length === 0) details.push({ loc: ['body', 'items'], msg: 'Field required: at least one item', type: 'missing' });
  if (!outputSchema || outputSchema.length === 0) details.push({ loc: ['body', 'output_schema'], msg: 'Field required unless catalog_id supplies a schema', type: 'missing' });
  const seen = new Set<string>();
  (outputSchema ?? []).forEach((f, i) => {
    if (seen.has(f.name)) details.push({ loc: ['body', 'output_schema', i, 'name'], msg: `Duplicate field name ${f.name}`, type: 'value_error' });
    seen.add(f.name);
    if (f.type === 'array' && !f.array_element_type) f.array_element_type = 'string';
    if (f.type !== 'array' && (f.array_element_type || f.items_enum)) details.push({ loc: ['body', 'output_schema', i], msg: 'array_element_type and items_enum apply only to type array', type: 'value_error' });
  });
  if (details.length) throw new ValidationError(details);
}

/**
 * Creates an enrichment job (interface-spec.md POST /public/enrich): stores the review activity
 * (type `enrichment`), the job and every item (decisions.md §4), starts the durable workflow,
 * and for `async_mode: false` waits for it and returns the results.
 * @throws ValidationError (422), NotFoundError/ForbiddenError for `catalog_id`,
 *   ServiceUnavailableError (503) when the workflow cannot be started (the job is marked failed)
 */
export async function createEnrichmentJob(deps: JobServiceDeps, scope: Scope, req: EnrichRequest): Promise<Record<string, unknown>> {
  const { knex } = deps;
  let outputSchema = req.output_schema;
  if (req.catalog_id) {
    const catalog = await loadOwned<{ organization_id: string; current_schema_version: string }>(knex, 'catalogs', req.catalog_id, scope, 'Catalog not found');
    if (!outputSchema?.length) {
      const schema = await knex('catalog_schemas').where({ catalog_id: req.catalog_id, version: catalog.current_schema_version }).first('schema_definition');
      outputSchema = fieldsFromCatalogSchema(schema?.schema_definition ?? null);
    }
  }
  checkRequest(req, outputSchema);
  const items = req.items!;
  const { items: _items, ...rest } = req;
  const config = { ...rest, output_schema: outputSchema };
  const jobId = newId();
  const totalItems = Math.min(items.length, req.max_rows ?? Number.POSITIVE_INFINITY);
  const workflowId = `enrichment-${jobId}`;

  await knex.transaction(async (trx) => {
    await trx('review_activities').insert({
      id: jobId, organization_id: scope.organizationId, catalog_id: req.catalog_id ?? null, type: 'enrichment', status: 'running',
      description: req.prompt ? String(req.prompt).slice(0, 500) : `Enrichment of ${totalItems} items`, metadata: { job_id: jobId },
    });
    await trx('enrichment_jobs').insert({
      id: jobId, organization_id: scope.organizationId, catalog_id: req.catalog_id ?? null, status: 'running', config,
      total_rows: items.length, total_items: totalItems, workflow_id: workflowId,
    });
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      await trx('enrichment_rows').insert(items.slice(i, i + INSERT_CHUNK).map((input, k) => ({ job_id: jobId, row_index: i + k, input })));
    }
  });
  jobsCreated.inc({ mode: req.async_mode ? 'async' : 'sync' });

  try {
    await deps.jobRunner.startEnrichment({ id: jobId, organization_id: scope.organizationId, catalog_id: req.catalog_id ?? null, workflow_id: workflowId, total_items: totalItems });
  } catch (err) {
    logger.error({ err, job_id: jobId }, 'could not start enrichment workflow');
    await knex('enrichment_jobs').where({ id: jobId }).update({ status: 'failed', error: 'The job could not be started; retry later', completed_at: knex.fn.now(), updated_at: knex.fn.now() });
    await knex('review_activities').where({ id: jobId }).update({ status: 'failed', updated_at: knex.fn.now() });
    throw new ServiceUnavailableError('Workflow service unavailable; the job was not started');
  }

  if (req.async_mode) {
    const job = (await knex('enrichment_jobs').where({ id: jobId }).first()) as EnrichmentJob;
    return presentJob(job, { results: [], page: 1, page_size: 0, total_pages: 0 });
  }
  await deps.jobRunner.waitForClose(workflowId);
  return getEnrichmentJob(deps, scope, jobId, 1, Math.max(1, Math.min(1000, totalItems)));
}

/**
 * Polls a job (decisions.md §4, G17): counters and one page of results of the rows processed so
 * far, in row order. Partial results appear while the job runs.
 * @throws NotFoundError `Job not found` (404), ForbiddenError (403) for another organization's job
 */
export async function getEnrichmentJob(deps: Pick<JobServiceDeps, 'knex'>, scope: Scope, jobId: string, page: number, pageSize: number): Promise<Record<string, unknown>> {
  const job = await loadOwned<EnrichmentJob>(deps.knex, 'enrichment_jobs', jobId, scope, 'Job not found');
  const rows = await deps.knex('enrichment_rows')
    .where({ job_id: jobId }).whereNot({ status: 'pending' }).where('row_index', '<', job.total_items)
    .orderBy('row_index').offset((page - 1) * pageSize).limit(pageSize)
    .select('result');
  return presentJob(job, {
    results: rows.map((r) => r.result),
    page,
    page_size: pageSize,
    total_pages: Math.ceil(job.completed_items / pageSize),
  });
}

/**
 * Lists the organization's jobs, newest first (decisions.md §4, G18).
 * @returns `{jobs, total, limit, offset}`
 */
export async function listEnrichmentJobs(deps: Pick<JobServiceDeps, 'knex'>, scope: Scope, q: { status?: string; limit: number; offset: number }): Promise<Record<string, unknown>> {
  const base = deps.knex('enrichment_jobs').where({ organization_id: scope.organizationId }).modify((b) => { if (q.status) b.where({ status: q.status }); });
  const [{ count }] = await base.clone().count({ count: '*' });
  const jobs = await base.clone().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(q.offset).limit(q.limit);
  return { jobs: jobs.map(presentJobListEntry), total: Number(count), limit: q.limit, offset: q.offset };
}

/**
 * Cancels a job (interface-spec.md, state table): a running job becomes `cancelled` at once (no
 * new result is written after this), its workflow is cancelled and finalises credits for the
 * items already done; cancelling a cancelled job succeeds again.
 * @throws ConflictError (409) for a completed or failed job; NotFoundError / ForbiddenError
 */
export async function cancelEnrichmentJob(deps: JobServiceDeps, scope: Scope, jobId: string): Promise<Record<string, unknown>> {
  const job = await loadOwned<EnrichmentJob>(deps.knex, 'enrichment_jobs', jobId, scope, 'Job not found');
  if (job.status === 'running') {
    const updated = await deps.knex('enrichment_jobs').where({ id: jobId, status: 'running' }).update({ status: 'cancelled', updated_at: deps.knex.fn.now() });
    if (updated) {
      await deps.knex('review_activities').where({ id: jobId }).update({ status: 'cancelled', updated_at: deps.knex.fn.now() });
      await deps.jobRunner.cancel(job.workflow_id);
    }
  }
  const now = (await deps.knex('enrichment_jobs').where({ id: jobId }).first()) as EnrichmentJob;
  if (now.status !== 'cancelled') throw new ConflictError(`Job is already ${now.status} and cannot be cancelled`);
  return { ...presentJobListEntry(now), message: 'Job cancelled; results of processed items are kept' };
}
