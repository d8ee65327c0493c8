import type { ResolvedAppDeps } from '../deps';
import { presentFlowDetail, presentFlowList, presentRun, presentSavedFlow, presentStartedRun } from '../presenters/flows';
import {
  ExecuteFlowBody,
  ExecuteFlowResponse,
  FlowDetailResponse,
  FlowListQuery,
  FlowListResponse,
  FlowParams,
  RunParams,
  RunQuery,
  RunResponse,
  SavedFlowResponse,
  SaveFlowBody,
  SaveFlowParams,
} from '../schemas/flows';
import { listFlows, loadFlow, saveFlowFromReviewActivity } from '../services/flows/flows';
import { pythonFlowsCapability } from '../services/capabilities';
import { executeFlow, getFlowRun, recentRuns } from '../services/flows/runs';
import { defineRoute, RouteDef } from './registry';

/** When a flow route answers 503 because of a capability (src/services/capabilities.ts). */
const PYTHON_FLOWS_OFF =
  'The flow has a custom_code node and the capability python_flows is off (bubblewrap or python3 missing): detail names it and why; nothing was stored or started (GET /readyz lists the capabilities)';

/**
 * Flows (docs/api-review.md "Flows" and "Save as workflow"):
 * save an activity as a flow, list flows, read one with its latest runs, execute one (the
 * Temporal workflow `flow-run-<run_id>`), poll a run.
 */
export function flowRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['workflows'];
  const publicUrl = deps.config.publicUrl;
  return [
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/activities/:activity_id/save-workflow',
      tags: ['activities', 'workflows'],
      summary: 'Save a custom transform (input → custom_code → stage) or an enrichment job (input → enrich → stage) as a reusable flow',
      params: SaveFlowParams,
      body: SaveFlowBody,
      response: SavedFlowResponse,
      errors: { 503: PYTHON_FLOWS_OFF },
      handler: async ({ scope, params, body }) =>
        presentSavedFlow(
          await saveFlowFromReviewActivity(deps.knex, scope, params.catalog_id, params.activity_id, body, pythonFlowsCapability(deps.config)),
          publicUrl,
        ),
    }),
    defineRoute({
      method: 'get',
      path: '/public/workflows',
      tags,
      summary: "The organization's flows, newest first",
      query: FlowListQuery,
      response: FlowListResponse,
      handler: async ({ scope, query }) => presentFlowList(await listFlows(deps.knex, scope, query), query, publicUrl),
    }),
    defineRoute({
      method: 'get',
      path: '/public/workflows/runs/:workflow_run_id',
      tags,
      summary: 'Poll a run: progress and updates while running; paginated results and node_results when completed',
      params: RunParams,
      query: RunQuery,
      response: RunResponse,
      handler: async ({ scope, params, query }) =>
        presentRun(await getFlowRun(deps.knex, scope, params.workflow_run_id, query.page, query.page_size), publicUrl),
    }),
    defineRoute({
      method: 'get',
      path: '/public/workflows/:workflow_id',
      tags,
      summary: 'A flow: its nodes (with their code and config) and its latest 20 runs',
      params: FlowParams,
      response: FlowDetailResponse,
      handler: async ({ scope, params }) =>
        presentFlowDetail(await loadFlow(deps.knex, scope, params.workflow_id), await recentRuns(deps.knex, scope, params.workflow_id), publicUrl),
    }),
    defineRoute({
      method: 'post',
      path: '/public/workflows/:workflow_id/execute',
      tags,
      summary: 'Run a flow on input rows (durable workflow flow-run-<run_id>); cancel_existing cancels its running runs first',
      params: FlowParams,
      body: ExecuteFlowBody,
      response: ExecuteFlowResponse,
      errors: { 503: `${PYTHON_FLOWS_OFF}; or the workflow service is unavailable (the run is stored as failed)` },
      // With an Idempotency-Key the run's id derives from it: a retry after a crash finds the run.
      handler: async ({ scope, params, body, idempotentId }) =>
        presentStartedRun(
          await executeFlow({ ...deps, pythonFlows: pythonFlowsCapability(deps.config) }, scope, params.workflow_id, body, idempotentId),
          publicUrl,
        ),
    }),
  ];
}
