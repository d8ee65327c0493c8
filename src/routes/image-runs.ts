import type { AppDeps } from '../deps';
import { presentImageRun } from '../presenters/image-runs';
import { ImageRunBody, ImageRunListQuery, ImageRunListResponse, ImageRunParams, ImageRunResponse } from '../schemas/image-runs';
import { enrichmentStorage } from '../services/enrichment/rows/artifacts';
import { getImageRun, listImageRuns, runImageTool } from '../services/enrichment/jobs/image-runs';
import { defineRoute, RouteDef } from './registry';

/**
 * Image runs on the organization's hosted media (`service_image_*`):
 * `POST /public/image-runs` runs one tool and answers the run; `GET /public/image-runs/{run_id}`
 * and `GET /public/image-runs` read them back.
 */
export function imageRunRoutes(deps: AppDeps): RouteDef[] {
  // One blob store client per router, not per request.
  const storage = enrichmentStorage(deps.config);
  const tags = ['media'];
  return [
    defineRoute({
      method: 'post',
      path: '/public/image-runs',
      tags,
      summary: 'Run an image tool on hosted media (upscale, process; generative tools need a provider)',
      body: ImageRunBody,
      response: ImageRunResponse,
      // One transaction: a run that died while processing leaves no row, and its retry runs it again.
      atomic: true,
      handler: async ({ scope, body, db }) => presentImageRun(await runImageTool({ knex: db, storage: storage }, scope, body)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/image-runs/:run_id',
      tags,
      summary: 'An image run: status and result URLs',
      params: ImageRunParams,
      response: ImageRunResponse,
      handler: async ({ scope, params }) => presentImageRun(await getImageRun(deps.knex, scope, params.run_id)),
    }),
    defineRoute({
      method: 'get',
      path: '/public/image-runs',
      tags,
      summary: "The organization's image runs, newest first",
      query: ImageRunListQuery,
      response: ImageRunListResponse,
      handler: async ({ scope, query }) => {
        const { runs, total } = await listImageRuns(deps.knex, scope, query);
        return { runs: runs.map(presentImageRun), total };
      },
    }),
  ];
}
