import type { AppDeps } from '../app';
import { enrichRequestSchema, jobIdParams, jobResponseSchema, listJobsQuery, pollQuery } from '../schemas/enrich';
import { cancelEnrichmentJob, createEnrichmentJob, EnrichRequest, getEnrichmentJob, listEnrichmentJobs } from '../services/enrichment-jobs';
import type { RouteDef } from './registry';

/** Enrichment routes (interface-spec.md, Enrichment; decisions.md §4). */
export function enrichRoutes(deps: AppDeps): RouteDef[] {
  const tags = ['enrichment'];
  return [
    {
      method: 'post', path: '/public/enrich', tags, summary: 'Create an enrichment job (sync or async)',
      body: enrichRequestSchema, response: jobResponseSchema,
      handler: ({ scope, body }) => createEnrichmentJob(deps, scope, body as EnrichRequest),
    },
    {
      method: 'get', path: '/public/enrich/jobs', tags, summary: 'List enrichment jobs',
      query: listJobsQuery,
      handler: ({ scope, query }) => listEnrichmentJobs(deps, scope, query),
    },
    {
      method: 'get', path: '/public/enrich/:job_id', tags, summary: 'Poll a job: status, counters and a page of results',
      params: jobIdParams, query: pollQuery, response: jobResponseSchema,
      handler: ({ scope, params, query }) => getEnrichmentJob(deps, scope, params.job_id, query.page, query.page_size),
    },
    {
      method: 'post', path: '/public/enrich/:job_id/cancel', tags, summary: 'Cancel a running job (keeps finished results)',
      params: jobIdParams,
      handler: ({ scope, params }) => cancelEnrichmentJob(deps, scope, params.job_id),
    },
  ];
}
