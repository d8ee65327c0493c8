/**
 * Runs of stored flows (docs/api-review.md "Flows" and "Flow runs"):
 * execute (store the run, its nodes and its input rows, then start `flow-run-<run_id>`), poll
 * with paginated `results` and `node_results`, the organization's recent runs of a flow, and the
 * operators' rerun of a failed run from its failed node (`npm run ops -- rerun`).
 */
import type { Knex } from 'knex';
import { ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { EnrichmentJob } from '../../models/enrichment-job';
import { Flow } from '../../models/flow';
import { FlowRun } from '../../models/flow-run';
import { FlowRunNode } from '../../models/flow-run-node';
import { ReviewActivity } from '../../models/review-activity';
import { loadOwned } from '../access/ownership';
import type { Scope } from '../access/scope';
import type { JobRunner } from '../job-runner';
import { flowRunWorkflowId } from '../../contracts/workflows';
import type { Capability } from '../capabilities';
import { assertCodeNodesRunnable, loadFlow } from './flows';
import { deleteNodeRows, FlowRow, NODE_PAGE_SIZE, readNodeRows, writeNodeRows } from './rows';

/** What executing and rerunning need. */
export interface FlowRunDeps {
  knex: Knex;
  jobRunner: Pick<JobRunner, 'startFlowRun' | 'cancel'>;
  /**
   * The `python_flows` capability (src/services/capabilities.ts): when given and off, a flow with
   * a custom_code node is refused before anything is stored or started. The API passes it.
   */
  pythonFlows?: Capability;
}

/** `poll_url` of a run (docs/api-review.md "Flow runs"): `/api/public/workflows/runs/{run_id}`. */
export function pollUrl(runId: string): string {
  return `/api/public/workflows/runs/${runId}`;
}

/** The body of `POST /public/workflows/{id}/execute`, as validated. */
export interface ExecuteFlowInput {
  input: FlowRow[];
  cancel_existing?: boolean;
}

/** A started run and its flow. */
export interface StartedRun {
  run: FlowRun;
  flow: Flow;
}

/**
 * Cancels the flow's running runs (`cancel_existing`, docs/api-review.md "Flow runs":
 * "the older runs become cancelled"): each is marked `cancelled` and its workflow asked to stop.
 */
async function cancelRunningRuns(deps: FlowRunDeps, flowId: string): Promise<void> {
  const running = await FlowRun.query(deps.knex).where({ flow_id: flowId, status: 'running' });
  for (const run of running) {
    await FlowRun.query(deps.knex)
      .findById(run.id)
      .where({ status: 'running' })
      .patch({ status: 'cancelled', message: 'Cancelled by a newer run (cancel_existing)', completed_at: deps.knex.fn.now(), updated_at: deps.knex.fn.now() });
    await deps.jobRunner.cancel(run.workflow_id);
  }
}

/**
 * Stores a run of `flow` over `input` in `trx`: the run (with the flow's nodes as they are now),
 * one row per node (the `input` node completed with the input as its output) and the input rows.
 */
async function storeRun(trx: Knex.Transaction, flow: Flow, input: FlowRow[], id: string): Promise<FlowRun> {
  const run = await FlowRun.query(trx).insertAndFetch({
    id,
    flow_id: flow.id,
    organization_id: flow.organization_id,
    catalog_id: flow.catalog_id,
    status: 'running',
    nodes: flow.nodes,
    input_count: input.length,
    // The input node is done as the run is stored.
    progress: 1 / flow.nodes.length,
    current_step: flow.nodes[1]?.id ?? null,
    message: `Started on ${input.length} row${input.length === 1 ? '' : 's'}`,
    workflow_id: flowRunWorkflowId(id),
  });
  await FlowRunNode.query(trx).insert(
    flow.nodes.map((n, position) => ({
      run_id: id,
      node_id: n.id,
      position,
      node_type: n.type,
      ...(n.type === 'input' ? { status: 'completed' as const, output_count: input.length, executions: 1, completed_at: new Date() } : {}),
    })),
  );
  const inputNode = flow.nodes.find((n) => n.type === 'input');
  for (let i = 0; inputNode && i < input.length; i += NODE_PAGE_SIZE) await writeNodeRows(trx, id, inputNode.id, i, input.slice(i, i + NODE_PAGE_SIZE));
  return run;
}

/**
 * `POST /public/workflows/{id}/execute`: stores a run and starts `flow-run-<run_id>`; with
 * `cancel_existing` the flow's running runs are cancelled first.
 * @param idempotentId the run's id when the request carries an `Idempotency-Key` (derived from
 *   its claim, src/services/access/idempotency.ts idempotentResourceId; else a new id). When that
 *   run exists, the request's
 *   first attempt stored it and died before its answer was stored: nothing is cancelled or stored
 *   again, the run is started if it never was (an idempotent start), and it is answered.
 * @throws NotFoundError / ForbiddenError for the flow; CapabilityOffError (503) when it has a
 *   custom_code node and `deps.pythonFlows` is off (nothing stored); ValidationError (422) for an
 *   empty input; ServiceUnavailableError (503) when the workflow cannot be started (the run is marked failed)
 */
export async function executeFlow(deps: FlowRunDeps, scope: Scope, flowId: string, body: ExecuteFlowInput, idempotentId?: string): Promise<StartedRun> {
  const flow = await loadFlow(deps.knex, scope, flowId);
  assertCodeNodesRunnable(flow.nodes, deps.pythonFlows, 'this flow');
  const earlier = idempotentId ? await FlowRun.query(deps.knex).findById(idempotentId).where('flow_id', flow.id) : undefined;
  if (earlier) {
    await startRun(deps, flow, earlier, false);
    return { run: earlier, flow };
  }
  if (body.input.length === 0) throw ValidationError.at(['body', 'input'], 'Give at least one input row', 'missing');
  if (body.cancel_existing) await cancelRunningRuns(deps, flow.id);
  const run = await deps.knex.transaction((trx) => storeRun(trx, flow, body.input, idempotentId ?? newId()));
  await startRun(deps, flow, run, false);
  return { run, flow };
}

/** Starts (or, for a rerun, starts again) the workflow of a stored run. @throws ServiceUnavailableError (503), the run marked failed */
async function startRun(deps: FlowRunDeps, flow: Flow, run: FlowRun, rerun: boolean): Promise<void> {
  try {
    await deps.jobRunner.startFlowRun(
      {
        id: run.id,
        organization_id: run.organization_id,
        catalog_id: run.catalog_id,
        flow_id: flow.id,
        flow_name: flow.name,
        workflow_id: run.workflow_id,
        input_count: run.input_count,
        total_nodes: run.nodes.length,
      },
      { rerun },
    );
  } catch (err) {
    logger.error({ err, run_id: run.id }, 'could not start flow run workflow');
    await FlowRun.query(deps.knex)
      .findById(run.id)
      .patch({ status: 'failed', error: 'The run could not be started; retry later', completed_at: deps.knex.fn.now(), updated_at: deps.knex.fn.now() });
    throw new ServiceUnavailableError('Workflow service unavailable; the run was not started');
  }
}

/** One page of a node's output (docs/api-review.md "Flow runs": `{data, total, page, page_size, has_more}`). */
export interface RowsPage {
  data: FlowRow[];
  total: number;
  page: number;
  page_size: number;
  has_more: boolean;
}

/** A polled run: the run, its flow, its nodes and, when completed, its pages of results. */
export interface PolledRun {
  run: FlowRun;
  flow: Flow;
  nodes: FlowRunNode[];
  /** Output of the last node (completed runs only). */
  results: RowsPage | null;
  /** Output of every node, by node id (completed runs; a failed run shows the nodes that completed). */
  node_results: Record<string, RowsPage & { node_type: string }> | null;
  /** The notices of each `enrich` node's job that has some (its `recorded_noops`), by node id. */
  notices: Record<string, string[]>;
}

/** The notices of the runs' enrich node jobs, by node id (the same a job's poll shows). */
async function enrichNotices(knex: Knex, nodes: FlowRunNode[]): Promise<Record<string, string[]>> {
  const byJob = new Map(nodes.filter((n) => n.job_id).map((n) => [n.job_id as string, n.node_id]));
  if (!byJob.size) return {};
  const jobs = await EnrichmentJob.query(knex)
    .whereIn('id', [...byJob.keys()])
    .select('id', 'config');
  const out: Record<string, string[]> = {};
  for (const job of jobs) {
    const notices = job.config?.recorded_noops;
    if (Array.isArray(notices) && notices.length) out[byJob.get(job.id)!] = notices;
  }
  return out;
}

/** Page `page` (1-based) of `pageSize` rows of a node's output. */
async function nodePage(knex: Knex, node: FlowRunNode, page: number, pageSize: number): Promise<RowsPage> {
  const data = await readNodeRows(knex, node.run_id, node.node_id, (page - 1) * pageSize, pageSize);
  return { data, total: node.output_count, page, page_size: pageSize, has_more: page * pageSize < node.output_count };
}

/**
 * `GET /public/workflows/runs/{run_id}`: the run; while running `results` and `node_results` are
 * null; when completed both hold page `page` of `pageSize` rows.
 * @throws NotFoundError `Workflow run not found` (404), ForbiddenError (403)
 */
export async function getFlowRun(knex: Knex, scope: Scope, runId: string, page: number, pageSize: number): Promise<PolledRun> {
  const run = await loadOwned<FlowRun>(knex, FlowRun, runId, scope, 'Workflow run not found');
  const flow = await loadFlow(knex, scope, run.flow_id);
  const nodes = await FlowRunNode.query(knex).where({ run_id: runId }).orderBy('position');
  const notices = await enrichNotices(knex, nodes);
  const shown = run.status === 'completed' ? nodes : run.status === 'failed' ? nodes.filter((n) => n.status === 'completed') : [];
  if (!shown.length) return { run, flow, nodes, results: null, node_results: null, notices };
  const nodeResults: NonNullable<PolledRun['node_results']> = {};
  for (const n of shown) nodeResults[n.node_id] = { node_type: n.node_type, ...(await nodePage(knex, n, page, pageSize)) };
  const last = nodes[nodes.length - 1];
  return { run, flow, nodes, results: run.status === 'completed' ? nodeResults[last.node_id] : null, node_results: nodeResults, notices };
}

/** The most recent runs of a flow, newest first (the flow's page and `GET /public/workflows/{id}`). */
export async function recentRuns(knex: Knex, scope: Scope, flowId: string, limit = 20): Promise<FlowRun[]> {
  await loadFlow(knex, scope, flowId);
  return FlowRun.query(knex)
    .where({ flow_id: flowId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
}

/** What a rerun reset. */
export interface RerunOutcome {
  run_id: string;
  workflow_id: string;
  from_node: string;
  /** Nodes set back to pending (their outputs deleted). */
  reset_nodes: string[];
}

/**
 * Reruns a failed run (the batch operator's `npm run ops -- rerun <run_id> [--from-node N]`):
 * the failed node (or `fromNode`) and every node after it are set back to pending with their
 * outputs deleted (a superseded review activity of the stage node is cancelled; an enrich node's
 * job is resumed, not charged again), the run becomes `running` again, and a new execution of `flow-run-<run_id>`
 * starts; nodes before stay completed and are not run again. Not scoped to an organization
 * (operators' tool).
 * @throws NotFoundError for an unknown run or node; ConflictError when the run is not failed (or
 *   cancelled), or `fromNode` comes after the failed node (an unfinished node would be skipped)
 */
export async function rerunFlowRun(deps: FlowRunDeps, runId: string, fromNode?: string): Promise<RerunOutcome> {
  const reset = await deps.knex.transaction(async (trx) => {
    const run = await FlowRun.query(trx).findById(runId).forUpdate();
    if (!run) throw new NotFoundError('Workflow run not found');
    if (run.status !== 'failed' && run.status !== 'cancelled') throw new ConflictError(`Run is ${run.status}: only a failed or cancelled run can be rerun`);
    const nodes = await FlowRunNode.query(trx).where({ run_id: runId }).orderBy('position');
    const firstOpen = nodes.find((n) => n.status !== 'completed');
    const from = fromNode ? nodes.find((n) => n.node_id === fromNode) : firstOpen;
    if (!from) throw new NotFoundError(fromNode ? `Node ${fromNode} not found in this run` : 'Every node of the run completed');
    if (from.node_type === 'input') throw new ConflictError('The input node holds the run input: rerun from a later node');
    if (firstOpen && from.position > firstOpen.position)
      throw new ConflictError(`Node ${firstOpen.node_id} did not complete: rerun from it or an earlier node`);
    const later = nodes.filter((n) => n.position >= from.position);
    const ids = later.map((n) => n.node_id);
    await deleteNodeRows(trx, runId, ids);
    // The review activity of a stage node being rerun is superseded by the one the rerun stages.
    const superseded = later.map((n) => n.activity_id).filter((id): id is string => id !== null);
    if (superseded.length)
      await ReviewActivity.query(trx)
        .whereIn('id', superseded)
        .whereIn('status', ['created', 'pending_review'])
        .patch({ status: 'cancelled', last_message: `Superseded by a rerun of flow run ${runId}`, updated_at: trx.fn.now() });
    // An enrich node keeps its job: the rerun resumes it (rows that succeeded are carried, never charged twice).
    await FlowRunNode.query(trx)
      .where({ run_id: runId })
      .whereIn('node_id', ids)
      .patch({ status: 'pending', pages_done: 0, output_count: 0, activity_id: null, error: null, completed_at: null });
    const restarted = await FlowRun.query(trx).patchAndFetchById(runId, {
      status: 'running',
      failed_node_id: null,
      error: null,
      completed_at: null,
      activity_id: null,
      current_step: from.node_id,
      message: `Rerun from node ${from.node_id}`,
      attempts: run.attempts + 1,
      updated_at: trx.fn.now(),
    });
    return { run: restarted, from: from.node_id, ids };
  });
  const flow = await Flow.query(deps.knex).findById(reset.run.flow_id).throwIfNotFound();
  await startRun(deps, flow, reset.run, true);
  return { run_id: runId, workflow_id: reset.run.workflow_id, from_node: reset.from, reset_nodes: reset.ids };
}
