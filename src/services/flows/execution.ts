/**
 * The run side of flows, used by the flow-run activities (activities/flows.ts): the plan a
 * workflow reads, the start and end of a node, the page loop every row-by-row node shares, the
 * run's progress, `updates` and final state (docs/api-review.md "Flow runs").
 *
 * Progress = (completed nodes + the current node's pages done / its pages) / all nodes, 0–1.
 * Each page of a node commits its output rows together with the node's counters (`pages_done`,
 * `output_count`), so a retried node resumes at its next page and never writes a page twice.
 */
import type { Knex } from 'knex';
import { FlowRun } from '../../models/flow-run';
import { FlowRunNode } from '../../models/flow-run-node';
import type { FlowRunPlan } from '../../contracts/workflows';
import { FlowRow, NODE_PAGE_SIZE, readNodeRows, writeNodeRows } from './rows';

/** Most `updates` lines a run keeps (the newest). */
export const MAX_RUN_UPDATES = 1000;
/** Longest `updates` line kept (characters). */
const MAX_UPDATE_CHARS = 2000;

/** Raised when a node finds its run no longer running (cancelled by `cancel_existing`): the node stops at once. */
export class RunNotRunningError extends Error {
  constructor(readonly status: string) {
    super(`The run is ${status}`);
    this.name = 'RunNotRunningError';
  }
}

/**
 * A node failure no retry can mend (the catalog is gone, the review activity was closed, the
 * enrichment job failed): the activity layer reports it as a non-retryable FlowNodeFailed.
 */
export class NodeFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeFailure';
  }
}

/** The nodes of a run in order, with what is completed (what flowRunWorkflow reads first). @throws Error for an unknown run */
export async function loadFlowRunPlan(knex: Knex, runId: string): Promise<FlowRunPlan> {
  const run = await FlowRun.query(knex).findById(runId).throwIfNotFound();
  const nodes = await FlowRunNode.query(knex).where({ run_id: runId }).orderBy('position');
  return {
    organization_id: run.organization_id,
    catalog_id: run.catalog_id,
    nodes: nodes.map((n) => ({ id: n.node_id, type: n.node_type, completed: n.status === 'completed' })),
  };
}

/** A node being executed: the run, the node row and the node whose output is its input. */
export interface NodeContext {
  run: FlowRun;
  node: FlowRunNode;
  /** The previous node (its output is this node's input). */
  input: FlowRunNode;
  /** Nodes of the run (for progress). */
  totalNodes: number;
}

/**
 * A node of a running run with its input node, read (and the run row locked) in `trx`.
 * @throws RunNotRunningError when the run is not running; Error for an unknown run or node, or the input node
 */
async function nodeContext(trx: Knex.Transaction, runId: string, nodeId: string): Promise<NodeContext> {
  const run = await FlowRun.query(trx).findById(runId).forUpdate().throwIfNotFound();
  if (run.status !== 'running') throw new RunNotRunningError(run.status);
  const nodes = await FlowRunNode.query(trx).where({ run_id: runId }).orderBy('position');
  const i = nodes.findIndex((n) => n.node_id === nodeId);
  if (i < 1) throw new Error(`node ${nodeId} is not a non-input node of run ${runId}`);
  return { run, node: nodes[i], input: nodes[i - 1], totalNodes: nodes.length };
}

/**
 * Starts (or resumes) a node: marks it running, counts the execution, and points the run's
 * `current_step` at it.
 * @throws RunNotRunningError when the run is not running; Error for an unknown run or node, or the input node
 */
export async function beginNode(knex: Knex, runId: string, nodeId: string): Promise<NodeContext> {
  return knex.transaction(async (trx) => {
    const ctx = await nodeContext(trx, runId, nodeId);
    const node = await FlowRunNode.query(trx).patchAndFetchById([runId, nodeId], {
      status: 'running',
      executions: ctx.node.executions + 1,
      started_at: ctx.node.started_at ?? new Date(),
    });
    await FlowRun.query(trx)
      .findById(runId)
      .patch({ current_step: nodeId, message: `Running ${node.node_type} node ${nodeId}`, updated_at: trx.fn.now() });
    return { ...ctx, node };
  });
}

/**
 * A node being continued by a later step of the same execution (an enrich node's end after its
 * child job): its context, without counting another execution.
 * @throws as {@link beginNode}
 */
export function continueNode(knex: Knex, runId: string, nodeId: string): Promise<NodeContext> {
  return knex.transaction((trx) => nodeContext(trx, runId, nodeId));
}

/** Run progress 0–1: the nodes before the current one done, plus `fraction` (0–1) of the current one. */
function progressOf(ctx: NodeContext, fraction: number): number {
  return Math.min(1, (ctx.node.position + Math.max(0, Math.min(1, fraction))) / ctx.totalNodes);
}

/** Appends lines to a run's `updates`, keeping the newest {@link MAX_RUN_UPDATES}. */
export async function appendUpdates(db: Knex | Knex.Transaction, runId: string, lines: string[]): Promise<void> {
  if (!lines.length) return;
  await db.raw(
    `UPDATE flow_runs SET updates = (
       SELECT coalesce(jsonb_agg(e ORDER BY o), '[]'::jsonb) FROM (
         SELECT e, o FROM jsonb_array_elements(updates || ?::jsonb) WITH ORDINALITY AS t(e, o) ORDER BY o DESC LIMIT ?
       ) s), updated_at = now()
     WHERE id = ?`,
    [JSON.stringify(lines.map((l) => l.slice(0, MAX_UPDATE_CHARS))), MAX_RUN_UPDATES, runId],
  );
}

/** What one page of a node produced: its output rows and lines for the run's `updates`. */
export interface PageOutput {
  rows: FlowRow[];
  updates?: string[];
}

/**
 * The page loop of a row-by-row node: reads the input node's output {@link NODE_PAGE_SIZE} rows
 * at a time from the node's `pages_done` on, hands each page to `compute` (outside any
 * transaction: user code may run for minutes), then commits in one transaction what `commit`
 * adds (e.g. staged changes), the output rows, the node's counters, progress and updates.
 * `beat` is called after every page (the activity's heartbeat).
 * @returns the node's output row count
 * @throws RunNotRunningError when the run stops running between pages; whatever `compute` or `commit` throw
 */
export async function forEachInputPage<O extends PageOutput>(
  knex: Knex,
  ctx: NodeContext,
  compute: (rows: FlowRow[], page: number) => Promise<O>,
  commit: (trx: Knex.Transaction, out: O, page: number) => Promise<void> = async () => undefined,
  beat: (page: number) => void = () => undefined,
): Promise<number> {
  const { run, input } = ctx;
  const pages = Math.max(1, Math.ceil(input.output_count / NODE_PAGE_SIZE));
  let { pages_done: page, output_count: written } = ctx.node;
  for (;;) {
    const rows = await readNodeRows(knex, run.id, input.node_id, page * NODE_PAGE_SIZE, NODE_PAGE_SIZE);
    if (!rows.length) break;
    const out = await compute(rows, page);
    await knex.transaction(async (trx) => {
      const current = await FlowRun.query(trx).findById(run.id).forUpdate().throwIfNotFound();
      if (current.status !== 'running') throw new RunNotRunningError(current.status);
      await commit(trx, out, page);
      await writeNodeRows(trx, run.id, ctx.node.node_id, written, out.rows);
      await FlowRunNode.query(trx)
        .findById([run.id, ctx.node.node_id])
        .patch({ pages_done: page + 1, output_count: written + out.rows.length });
      await FlowRun.query(trx)
        .findById(run.id)
        .patch({ progress: progressOf(ctx, (page + 1) / pages), message: `${ctx.node.node_id}: page ${page + 1} of ${pages}`, updated_at: trx.fn.now() });
      await appendUpdates(trx, run.id, out.updates ?? []);
    });
    written += out.rows.length;
    page += 1;
    beat(page);
  }
  return written;
}

/** Marks a node completed with its output count, and moves the run's progress past it. */
export async function completeNode(knex: Knex, ctx: NodeContext, outputCount: number): Promise<void> {
  await knex.transaction(async (trx) => {
    await FlowRunNode.query(trx).findById([ctx.run.id, ctx.node.node_id]).patch({ status: 'completed', output_count: outputCount, completed_at: new Date() });
    await FlowRun.query(trx)
      .findById(ctx.run.id)
      .patch({ progress: progressOf(ctx, 1), message: `${ctx.node.node_id}: ${outputCount} row${outputCount === 1 ? '' : 's'} out`, updated_at: trx.fn.now() });
    await appendUpdates(trx, ctx.run.id, [`[${ctx.node.node_id}] completed: ${outputCount} row${outputCount === 1 ? '' : 's'}`]);
  });
}

/** How a run ended, as flowRunWorkflow reports it. */
export type RunOutcome = { status: 'completed' } | { status: 'cancelled' } | { status: 'failed'; node_id: string; error: string };

/**
 * Records the end of a run (idempotent; only a `running` run changes): completed (progress 1),
 * cancelled, or failed with the failed node and its error (the node marked failed too).
 */
export async function finishFlowRun(knex: Knex, runId: string, outcome: RunOutcome): Promise<void> {
  await knex.transaction(async (trx) => {
    const run = await FlowRun.query(trx).findById(runId).forUpdate().throwIfNotFound();
    if (run.status !== 'running') return;
    const now = trx.fn.now();
    if (outcome.status === 'completed') {
      await FlowRun.query(trx)
        .findById(runId)
        .patch({ status: 'completed', progress: 1, current_step: null, message: 'Completed', completed_at: now, updated_at: now });
      return;
    }
    if (outcome.status === 'cancelled') {
      await FlowRun.query(trx).findById(runId).patch({ status: 'cancelled', message: 'Cancelled', completed_at: now, updated_at: now });
      return;
    }
    await FlowRunNode.query(trx)
      .findById([runId, outcome.node_id])
      .patch({ status: 'failed', error: outcome.error.slice(0, 10_000) });
    await FlowRun.query(trx)
      .findById(runId)
      .patch({
        status: 'failed',
        failed_node_id: outcome.node_id,
        error: outcome.error.slice(0, 10_000),
        current_step: outcome.node_id,
        message: `Node ${outcome.node_id} failed`,
        completed_at: now,
        updated_at: now,
      });
    await appendUpdates(trx, runId, [`[${outcome.node_id}] failed: ${outcome.error}`]);
  });
}
