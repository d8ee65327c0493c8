/**
 * What the flows pages of the dashboard show (`workflow_url` =
 * `/dashboard/flows/{id}`), read through the flow services the API uses
 * (src/services/flows/flows.ts, runs.ts), so a page and `GET /api/public/workflows/...` never
 * disagree. Organization scoping is the services' (`scope`): another organization's flow or run
 * is a 403, an unknown one a 404.
 */
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError } from '../lib/errors';
import type { Catalog } from '../models/catalog';
import type { Flow } from '../models/flow';
import type { FlowRun } from '../models/flow-run';
import type { FlowRunNode } from '../models/flow-run-node';
import type { ReviewActivity } from '../models/review-activity';
import type { Scope } from '../services/access/scope';
import { loadCatalogOwned } from '../services/catalog/catalogs';
import { listFlows, loadFlow } from '../services/flows/flows';
import type { FlowRow } from '../services/flows/rows';
import { getFlowRun, recentRuns, type RowsPage } from '../services/flows/runs';
import { loadReviewActivity } from '../services/review/staged-changes';

/** Flows per page of the flow list. */
export const FLOW_LIST_PAGE_SIZE = 50;
/** Runs the flow page lists (newest first). */
export const FLOW_PAGE_RUNS = 20;
/** Output rows per page of a run's results table. */
export const RUN_RESULTS_PAGE_SIZE = 25;

/** The flow list's query: `?q=` (name or description) and `?page=`. */
export interface FlowListFilters {
  search?: string;
  page: number;
}

/** Everything the flow list renders. */
export interface FlowListPageData {
  flows: Flow[];
  total: number;
  totalPages: number;
}

/** Loads a page of the organization's flows, newest first (the service of `GET /public/workflows`). */
export async function loadFlowListPage(knex: Knex, scope: Scope, filters: FlowListFilters): Promise<FlowListPageData> {
  const { flows, total } = await listFlows(knex, scope, {
    search: filters.search,
    limit: FLOW_LIST_PAGE_SIZE,
    offset: (filters.page - 1) * FLOW_LIST_PAGE_SIZE,
  });
  return { flows, total, totalPages: Math.ceil(total / FLOW_LIST_PAGE_SIZE) };
}

/** Everything the flow page renders. */
export interface FlowPageData {
  flow: Flow;
  runs: FlowRun[];
  /** Catalogs the flow's `stage` nodes stage into, by id (absent: deleted since). */
  catalogs: Record<string, Catalog>;
  /** The review activity the flow was saved from (null: none, or deleted since). */
  sourceActivity: ReviewActivity | null;
}

/** `load()`'s value, or null when the thing is gone (404) or no longer ours (403): a page links what still exists. */
async function orNull<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof NotFoundError || err instanceof ForbiddenError) return null;
    throw err;
  }
}

/**
 * Loads the flow page: the flow, its {@link FLOW_PAGE_RUNS} newest runs, the catalogs its stage
 * nodes stage into and the activity it was saved from.
 * @throws NotFoundError (404) for an unknown flow; ForbiddenError (403) for another organization's
 */
export async function loadFlowPage(knex: Knex, scope: Scope, flowId: string): Promise<FlowPageData> {
  const flow = await loadFlow(knex, scope, flowId);
  const catalogIds = [...new Set(flow.nodes.filter((n) => n.type === 'stage').map((n) => String(n.config.catalog_id ?? flow.catalog_id ?? '')))].filter(
    Boolean,
  );
  const [runs, catalogs, sourceActivity] = await Promise.all([
    recentRuns(knex, scope, flowId, FLOW_PAGE_RUNS),
    Promise.all(catalogIds.map((id) => orNull(() => loadCatalogOwned(knex, scope, id)))),
    flow.source_activity_id ? orNull(() => loadReviewActivity(knex, scope, flow.source_activity_id ?? '')) : Promise.resolve(null),
  ]);
  return { flow, runs, catalogs: Object.fromEntries(catalogs.filter((c): c is Catalog => c !== null).map((c) => [c.id, c])), sourceActivity };
}

/** The run page's query: `?node=` (whose output the table shows) and `?page=`. */
export interface RunPageFilters {
  node?: string;
  page: number;
}

/** Everything the run page renders. */
export interface RunPageData {
  flow: Flow;
  run: FlowRun;
  nodes: FlowRunNode[];
  /** Nodes whose output can be shown (every node of a completed run; the completed ones of a failed run), in order. */
  outputNodes: string[];
  /** The node whose output the table shows (null: no output to show yet). */
  selectedNode: string | null;
  /** The page of that node's output. */
  rows: RowsPage | null;
  /** Columns of the table ({@link rowColumns}). */
  columns: string[];
}

/**
 * Columns of a page of rows: the union of the rows' keys sorted by name (rows are stored as JSONB,
 * which keeps no key order), keys starting with `__` (flow metadata) after the others.
 */
export function rowColumns(rows: FlowRow[]): string[] {
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))].sort();
  return [...keys.filter((k) => !k.startsWith('__')), ...keys.filter((k) => k.startsWith('__'))];
}

/**
 * Loads the run page through the poll service (`GET /public/workflows/runs/{id}`, page
 * `filters.page` of {@link RUN_RESULTS_PAGE_SIZE} rows): the run, its nodes and one page of the
 * output of `filters.node` (default: the last node with an output, i.e. `results` of a completed
 * run). A node without an output (pending, failed) is selected with no rows.
 * @throws NotFoundError (404) for an unknown run or a run of another flow than `flowId`;
 *   ForbiddenError (403) for another organization's
 */
export async function loadRunPage(knex: Knex, scope: Scope, flowId: string, runId: string, filters: RunPageFilters): Promise<RunPageData> {
  const polled = await getFlowRun(knex, scope, runId, filters.page, RUN_RESULTS_PAGE_SIZE);
  if (polled.run.flow_id !== flowId) throw new NotFoundError('Workflow run not found');
  const outputNodes = Object.keys(polled.node_results ?? {});
  const known = filters.node !== undefined && polled.nodes.some((n) => n.node_id === filters.node);
  const selectedNode = known ? (filters.node ?? null) : (outputNodes[outputNodes.length - 1] ?? null);
  const rows = selectedNode ? (polled.node_results?.[selectedNode] ?? null) : null;
  return { flow: polled.flow, run: polled.run, nodes: polled.nodes, outputNodes, selectedNode, rows, columns: rowColumns(rows?.data ?? []) };
}
