import type { Context } from 'koa';
import type { AppDeps, ResolvedAppDeps } from '../deps';
import { AppError, ValidationError } from '../lib/errors';
import type { Validator } from '../lib/validation';
import { presentCatalog } from '../presenters/catalogs';
import { presentCancelledJob, presentJobList, presentJobPage } from '../presenters/enrich';
import { DEFAULT_UPLOAD_LIMITS, readEnrichUpload } from '../middleware/upload';
import {
  enrichMultipartSchema,
  enrichRequestSchema,
  jobIdParams,
  jobResponseSchema,
  listJobsQuery,
  pollQuery,
  requestJsonSchema,
  toCatalogBody,
} from '../schemas/enrich';
import { cancelEnrichmentJob, createEnrichmentJob, getEnrichmentJob, JobPage, listEnrichmentJobs } from '../services/enrichment/jobs/jobs';
import { jobToCatalog } from '../services/enrichment/jobs/to-catalog';
import { enrichmentStorage, type EnrichmentStorage } from '../services/enrichment/rows/artifacts';
import type { Scope } from '../services/access/scope';
import { defineRoute, RouteDef } from './registry';

/** Locs of request fields inside a multipart request live under `request_json` (the file fields stay where they are). */
function underRequestJson(err: unknown): unknown {
  if (!(err instanceof ValidationError)) return err;
  return new ValidationError(
    err.details.map((d) =>
      d.loc[0] === 'body' && !['items_file', 'knowledge_base_files', 'request_json', 'knowledge_base_metadata_json'].includes(String(d.loc[1]))
        ? { ...d, loc: ['body', 'request_json', ...d.loc.slice(1)] }
        : d,
    ),
  );
}

/**
 * The parsed `request_json` with the form field `knowledge_base_metadata_json` (existing clients send the metadata as its own field) as its `knowledge_base_metadata`.
 * @throws ValidationError (422) at `body.knowledge_base_metadata_json` when it is not a JSON object
 *   or request_json carries knowledge_base_metadata too
 */
function withKnowledgeBaseMetadata(parsed: object, metadataJson: string | undefined): object {
  if (metadataJson === undefined) return parsed;
  const loc = ['body', 'knowledge_base_metadata_json'];
  let metadata: unknown;
  try {
    metadata = JSON.parse(metadataJson);
  } catch (err) {
    throw ValidationError.at(loc, `knowledge_base_metadata_json is not valid JSON: ${(err as Error).message}`, 'json_invalid');
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw ValidationError.at(loc, 'knowledge_base_metadata_json must be a JSON object', 'type_error');
  if ('knowledge_base_metadata' in parsed) throw ValidationError.at(loc, 'Give knowledge_base_metadata once: in request_json or as this field', 'value_error');
  return { ...parsed, knowledge_base_metadata: metadata };
}

/**
 * `POST /public/enrich` as `multipart/form-data` (docs/api-enrichment.md "Enrichment jobs"): streams the files
 * to disk, validates `request_json` against the JSON body's schema without `items`, creates the
 * job from the streamed `items_file`, and always removes the uploaded files afterwards.
 * @throws ValidationError (422, locs under `body.request_json` / `body.items_file`), 413 over a limit
 */
async function createFromMultipart(
  deps: AppDeps,
  storage: EnrichmentStorage,
  scope: Scope,
  ctx: Context,
  validator: Validator,
  jobId: string | undefined,
): Promise<JobPage> {
  const upload = await readEnrichUpload(ctx, deps.config.dataDir, deps.uploadLimits ?? DEFAULT_UPLOAD_LIMITS);
  try {
    if (upload.requestJson === undefined) throw ValidationError.at(['body', 'request_json'], 'Field required: the request as JSON', 'missing');
    let parsed: unknown;
    try {
      parsed = JSON.parse(upload.requestJson);
    } catch (err) {
      throw ValidationError.at(['body', 'request_json'], `request_json is not valid JSON: ${(err as Error).message}`, 'json_invalid');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw ValidationError.at(['body', 'request_json'], 'request_json must be a JSON object', 'type_error');
    const req = validator.validate(requestJsonSchema, withKnowledgeBaseMetadata(parsed, upload.knowledgeBaseMetadataJson), 'body');
    return await createEnrichmentJob(
      deps,
      scope,
      req,
      { itemsFile: upload.itemsFile, knowledgeBaseFiles: upload.knowledgeBaseFiles, storage },
      undefined,
      jobId,
    );
  } catch (err) {
    if (err instanceof AppError) throw underRequestJson(err);
    throw err;
  } finally {
    await upload.cleanup();
  }
}

/** Enrichment routes (docs/api-enrichment.md "Enrichment jobs"). */
export function enrichRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['enrichment'];
  // Where uploaded knowledge-base files are hosted: one blob store client for the router.
  const storage = enrichmentStorage(deps.config);
  return [
    defineRoute({
      method: 'post',
      path: '/public/enrich',
      tags,
      summary: 'Create an enrichment job (sync or async; JSON body or multipart with items_file)',
      body: enrichRequestSchema,
      multipart: enrichMultipartSchema,
      response: jobResponseSchema,
      // With an Idempotency-Key the job's id derives from it: a retry after a crash finds the job.
      handler: async ({ scope, body, ctx, validator, idempotentId }) =>
        presentJobPage(
          await (ctx.is('multipart/form-data')
            ? createFromMultipart(deps, storage, scope, ctx, validator, idempotentId)
            : createEnrichmentJob(deps, scope, body, undefined, undefined, idempotentId)),
          deps.config.publicUrl,
        ),
    }),
    defineRoute({
      method: 'get',
      path: '/public/enrich/jobs',
      tags,
      summary: 'List enrichment jobs',
      query: listJobsQuery,
      handler: async ({ scope, query }) => presentJobList(await listEnrichmentJobs(deps, scope, query)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/enrich/:job_id',
      tags,
      summary: 'Poll a job: status, counters and a page of results',
      params: jobIdParams,
      query: pollQuery,
      response: jobResponseSchema,
      handler: async ({ scope, params, query }) =>
        presentJobPage(await getEnrichmentJob(deps, scope, params.job_id, query.page, query.page_size), deps.config.publicUrl),
    }),
    defineRoute({
      method: 'post',
      path: '/public/enrich/:job_id/cancel',
      tags,
      summary: 'Cancel a running job (keeps finished results)',
      params: jobIdParams,
      handler: async ({ scope, params }) => presentCancelledJob(await cancelEnrichmentJob(deps, scope, params.job_id)),
    }),
    defineRoute({
      method: 'post',
      path: '/public/enrich/:job_id/to-catalog',
      tags,
      summary: 'Create a catalog from a finished job (schema from its output schema, items from its after_data)',
      params: jobIdParams,
      body: toCatalogBody,
      atomic: true,
      handler: async ({ scope, params, body, db }) => {
        const { catalog, schema } = await jobToCatalog(db, deps.caches.catalog, scope, params.job_id, body);
        return presentCatalog(catalog, schema);
      },
    }),
  ];
}
