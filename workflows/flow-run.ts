/**
 * flowRunWorkflow: one run of a stored flow (docs/api-review.md "Flow runs"), started
 * by the API (temporal/client.ts `startFlowRun`) under `flow-run-<run_id>` with search
 * attributes OrganizationId, CatalogId and JobKind=flow-run.
 *
 * The nodes run in order; each reads its input rows page by page from PostgreSQL and writes its
 * output rows there (never into this history):
 *
 *   input ─▶ custom_code (runFlowNode: the Python sandbox) ─▶ enrich (startEnrichNode, the child
 *   enrichmentJobWorkflow `enrichment-<job_id>`, finishEnrichNode) ─▶ stage (runFlowNode: one
 *   review activity) ─▶ finishFlowRun(completed)
 *
 * - A node already completed (an earlier execution of this run) is skipped: a rerun from a failed
 *   node, or a run whose worker died, never runs a finished node again.
 * - A node activity retries on infrastructure errors (worker killed, database down) and resumes
 *   at its next input page (flow_run_nodes.pages_done is committed with each page's rows).
 * - A node that fails for good (FlowNodeFailed: the code raised, a sandbox limit; or its retries
 *   are spent) makes the run `failed` with the node and error, and the workflow fails.
 * - Cancellation (API `cancel_existing`): the run is marked `cancelled`, the workflow cancelled.
 *
 * Continue-as-new: never (a handful of events per node).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { FlowActivities } from '../activities/flows';
import {
  CATALOG_ID,
  ENRICHMENT_JOB_KIND,
  enrichmentWorkflowId,
  FLOW_NODE_FAILED,
  FlowRunArgs,
  FlowRunPlanNode,
  FlowRunProgress,
  JOB_KIND,
  ORGANIZATION_ID,
} from '../src/contracts/workflows';
import { flowRunProgressQuery } from './definitions';
import type { enrichmentJobWorkflow } from './enrichment-job';
import { BOOKKEEPING_RETRY, tunedRetry } from '../src/contracts/retry-policies';

/**
 * Runs the nodes of `args.run_id` not yet completed, in order (see the file comment).
 * @throws ApplicationFailure `FlowNodeFailed` (non-retryable) once a node failed and the run is marked failed;
 *   CancelledFailure when cancelled (the run is marked cancelled first)
 */
export async function flowRunWorkflow(args: FlowRunArgs): Promise<FlowRunProgress> {
  const heartbeatTimeout = `${Math.max(1, args.heartbeat_timeout_s ?? 60)} seconds` as const;
  const { runFlowNode, startEnrichNode, finishEnrichNode } = proxyActivities<FlowActivities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout,
    retry: tunedRetry(args, [FLOW_NODE_FAILED]),
  });
  const { loadFlowRunPlan, finishFlowRun } = proxyActivities<FlowActivities>({
    startToCloseTimeout: '1 minute',
    retry: BOOKKEEPING_RETRY,
  });

  const plan = await loadFlowRunPlan(args.run_id);
  const progress: FlowRunProgress = {
    status: 'running',
    current_node: null,
    nodes_done: plan.nodes.filter((n) => n.completed).length,
    total_nodes: plan.nodes.length,
  };
  setHandler(flowRunProgressQuery, () => progress);

  const runNode = async (node: FlowRunPlanNode): Promise<void> => {
    if (node.type !== 'enrich') {
      await runFlowNode(args.run_id, node.id);
      return;
    }
    const job = await startEnrichNode(args.run_id, node.id);
    if (!job.finished) {
      await executeChild<typeof enrichmentJobWorkflow>('enrichmentJobWorkflow', {
        workflowId: enrichmentWorkflowId(job.job_id),
        args: [{ job_id: job.job_id, ...args.enrichment }],
        typedSearchAttributes: [
          { key: ORGANIZATION_ID, value: job.organization_id },
          { key: JOB_KIND, value: ENRICHMENT_JOB_KIND },
          ...(plan.catalog_id ? [{ key: CATALOG_ID, value: plan.catalog_id }] : []),
        ],
        staticSummary: `Enrichment job ${job.job_id} of flow run ${args.run_id}: ${job.total_items} items`,
      });
    }
    await finishEnrichNode(args.run_id, node.id, job.job_id);
  };

  for (const node of plan.nodes) {
    if (node.completed) continue;
    progress.current_node = node.id;
    try {
      await runNode(node);
    } catch (err) {
      if (isCancellation(err)) {
        await CancellationScope.nonCancellable(() => finishFlowRun(args.run_id, { status: 'cancelled' }));
        progress.status = 'cancelled';
        throw err;
      }
      const error = failureMessage(err);
      await finishFlowRun(args.run_id, { status: 'failed', node_id: node.id, error });
      Object.assign(progress, { status: 'failed', error });
      throw ApplicationFailure.nonRetryable(`node ${node.id} (${node.type}) failed: ${error}`, FLOW_NODE_FAILED);
    }
    progress.nodes_done += 1;
  }
  await finishFlowRun(args.run_id, { status: 'completed' });
  progress.status = 'completed';
  progress.current_node = null;
  return progress;
}

/** The innermost message of an activity or child workflow failure (what the node's error says). */
function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) return err.cause?.message ?? err.message;
  return err instanceof Error ? err.message : String(err);
}
