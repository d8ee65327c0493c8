/**
 * Flow-run activities (docs/api-review.md "Flow runs"): thin adapters over src/services/flows for
 * flowRunWorkflow. Each node activity heartbeats while it works and resumes at the node's next
 * input page when retried (src/services/flows/execution.ts). Failures no retry can mend (the
 * code raised or hit a sandbox limit, the catalog is gone, the job failed) are non-retryable
 * `FlowNodeFailed`; anything else (a killed worker, the database away) is retried.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { logger } from '../src/lib/logger';
import type { ServiceCaches } from '../src/services/service-caches';
import { finishFlowRun, loadFlowRunPlan, NodeFailure, RunNotRunningError, beginNode, RunOutcome } from '../src/services/flows/execution';
import { runCustomCodeNode, PythonSessionFactory } from '../src/services/flows/nodes/custom-code';
import type { ResearchSettings } from '../src/services/enrichment/jobs/jobs';
import { finishEnrichNode, startEnrichNode } from '../src/services/flows/nodes/enrich';
import { runStageNode } from '../src/services/flows/nodes/stage';
import { SandboxError } from '../src/sandbox/python-sandbox';
import { EnrichNodeJob, FLOW_NODE_FAILED, FlowRunPlan } from '../src/contracts/workflows';
import { whileHeartbeating } from './heartbeat';

/**
 * What the flow activities need: the database, the catalog caches (item validators), the public
 * URL, the Python sandbox, and the deployment's research settings (an enrich node's job of an
 * organization with no research source reads its rows' own data, with a notice; unchecked when absent).
 */
export interface FlowActivityDeps {
  knex: Knex;
  caches: Pick<ServiceCaches, 'catalog'>;
  publicUrl: string;
  python: PythonSessionFactory;
  research?: ResearchSettings;
}

/** The activity functions registered on the worker; flowRunWorkflow proxies them by these names. */
export interface FlowActivities {
  /** The run's nodes in order, with those completed. */
  loadFlowRunPlan(runId: string): Promise<FlowRunPlan>;
  /** Runs an `input`, `custom_code` or `stage` node to completion. @returns the node's output row count */
  runFlowNode(runId: string, nodeId: string): Promise<number>;
  /** Begins an `enrich` node: its enrichment job (stored, not started). */
  startEnrichNode(runId: string, nodeId: string): Promise<EnrichNodeJob>;
  /** Ends an `enrich` node after its job closed: the job's results become the node's output. */
  finishEnrichNode(runId: string, nodeId: string, jobId: string): Promise<number>;
  /** Records how the run ended (idempotent). */
  finishFlowRun(runId: string, outcome: RunOutcome): Promise<void>;
}

/** Failures no retry can mend become non-retryable FlowNodeFailed; the rest are rethrown (retried). */
function asNodeFailure(err: unknown): unknown {
  if (err instanceof NodeFailure || err instanceof RunNotRunningError || err instanceof SandboxError) {
    return ApplicationFailure.nonRetryable((err as Error).message, FLOW_NODE_FAILED);
  }
  return err;
}

/**
 * Builds the flow activities.
 * @returns an object of async functions to pass (with the others) to `Worker.create`
 */
export function createFlowActivities(deps: FlowActivityDeps): FlowActivities {
  const { knex } = deps;
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw asNodeFailure(err);
    }
  };
  return {
    loadFlowRunPlan: (runId) => loadFlowRunPlan(knex, runId),
    async runFlowNode(runId, nodeId) {
      const ctx = Context.current();
      let pages = 0;
      return whileHeartbeating(
        ctx,
        () => ({ pages }),
        () =>
          guarded(async () => {
            const node = await beginNode(knex, runId, nodeId);
            const beat = (page: number) => {
              pages = page;
              ctx.heartbeat({ pages });
            };
            const started = Date.now();
            let count: number;
            if (node.node.node_type === 'custom_code') count = await runCustomCodeNode(knex, deps.python, node, beat);
            else if (node.node.node_type === 'stage') count = await runStageNode({ knex, caches: deps.caches, publicUrl: deps.publicUrl }, node, beat);
            else throw new NodeFailure(`A ${node.node.node_type} node does not run as runFlowNode`);
            logger.info(
              { run_id: runId, node_id: nodeId, type: node.node.node_type, rows: count, attempt: ctx.info.attempt, ms: Date.now() - started },
              'flow node completed',
            );
            return count;
          }),
      );
    },
    startEnrichNode: (runId, nodeId) => guarded(() => startEnrichNode(knex, runId, nodeId, deps.research)),
    finishEnrichNode: (runId, nodeId, jobId) => guarded(() => finishEnrichNode(knex, runId, nodeId, jobId)),
    async finishFlowRun(runId, outcome) {
      await finishFlowRun(knex, runId, outcome);
      logger.info({ run_id: runId, ...outcome }, `flow run ${outcome.status}`);
    },
  };
}
