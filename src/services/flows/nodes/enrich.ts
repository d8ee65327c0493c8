/**
 * The `enrich` node (docs/api-review.md "Flows": "the enrichment engine with a saved config"): the node's
 * input rows become an enrichment job with the saved recipe (src/services/enrichment/jobs/request.ts
 * `enrichmentRecipe`), run by flowRunWorkflow as its child `enrichment-<job_id>`, so the job has
 * everything jobs have (durable rows, credits charged once per successful item, its own poll
 * URL). Its results become the node's output: each row is its input with the enriched fields
 * over it and `__enrichment`: the row's result without its data (sources, explanations,
 * `all_sources`, `review_info`, category and taxonomy attributes, low-confidence candidates),
 * from which the stage node stages the same provenance a job stages
 * (src/services/enrichment/rows/staging.ts `stagedProvenance`).
 */
import type { Knex } from 'knex';
import { EnrichmentJob } from '../../../models/enrichment-job';
import { FlowRunNode } from '../../../models/flow-run-node';
import type { EnrichJobConfig } from '../../../schemas/enrich';
import type { Scope } from '../../access/scope';
import { storeFlowNodeJob, type ResearchSettings } from '../../enrichment/jobs/jobs';
import type { EnrichNodeJob } from '../../../contracts/workflows';
import { beginNode, completeNode, continueNode, NodeFailure } from '../execution';

/** The scope a run's jobs act in: its organization, as the system (no API key or user). */
function runScope(organizationId: string): Scope {
  return { organizationId, principal: { kind: 'api_key', id: 'flow-run', organizationIds: [organizationId] } };
}

/**
 * Begins an `enrich` node and returns its job: the one an earlier attempt stored (locked with
 * the node row, so there is only ever one), else a new job over the input node's rows. A job
 * that failed or was cancelled (a rerun) is continued by a new job that carries its succeeded
 * rows (never charged twice) and processes the rest. With `research` (the deployment's research
 * settings) and no research source for the organization, the job reads its rows' own data and
 * carries the notice an API job carries.
 * @throws RunNotRunningError when the run is not running
 */
export async function startEnrichNode(knex: Knex, runId: string, nodeId: string, research?: ResearchSettings): Promise<EnrichNodeJob> {
  const ctx = await beginNode(knex, runId, nodeId);
  return knex.transaction(async (trx) => {
    const node = await FlowRunNode.query(trx).findById([runId, nodeId]).forUpdate().throwIfNotFound();
    const previous = node.job_id ? await EnrichmentJob.query(trx).findById(node.job_id) : undefined;
    if (previous && (previous.status === 'running' || previous.status === 'completed'))
      return { job_id: previous.id, finished: previous.status === 'completed', organization_id: previous.organization_id, total_items: previous.total_items };
    const recipe = (ctx.run.nodes.find((n) => n.id === nodeId)?.config.request ?? {}) as EnrichJobConfig;
    const job = await storeFlowNodeJob(
      trx,
      runScope(ctx.run.organization_id),
      recipe,
      { runId, inputNodeId: ctx.input.node_id, resumeFrom: previous ?? null },
      research,
    );
    await FlowRunNode.query(trx).findById([runId, nodeId]).patch({ job_id: job.id });
    return { job_id: job.id, finished: false, organization_id: job.organization_id, total_items: job.total_items };
  });
}

/**
 * Ends an `enrich` node once its job closed: copies the job's results into the node's output in
 * one statement (set-based, bounded memory) and marks the node completed.
 * @returns the node's output row count
 * @throws NodeFailure when the job failed or was cancelled (its error is the node's)
 */
export async function finishEnrichNode(knex: Knex, runId: string, nodeId: string, jobId: string): Promise<number> {
  const ctx = await continueNode(knex, runId, nodeId);
  const job = await EnrichmentJob.query(knex).findById(jobId).throwIfNotFound();
  if (job.status !== 'completed') throw new NodeFailure(`Enrichment job ${jobId} ${job.status}${job.error ? `: ${job.error}` : ''}`);
  const count = await knex.transaction(async (trx) => {
    await trx('flow_run_rows').where({ run_id: runId, node_id: nodeId }).delete();
    const { rowCount } = await trx.raw(
      `INSERT INTO flow_run_rows (run_id, node_id, row_index, data)
       SELECT ?, ?, r.row_index,
         CASE WHEN r.result IS NULL OR r.result->>'error' IS NOT NULL THEN r.input || jsonb_build_object('__error', coalesce(r.result->>'error', r.error, 'not processed'))
              ELSE r.input || ((r.result->'after_data') - 'sources' - 'source_explanations')
                   || jsonb_build_object('__enrichment', jsonb_set(r.result - 'staged_change_id', '{after_data}', jsonb_build_object(
                        'sources', coalesce(r.result->'after_data'->'sources', '{}'::jsonb),
                        'source_explanations', coalesce(r.result->'after_data'->'source_explanations', '{}'::jsonb)))) END
       FROM enrichment_rows r WHERE r.job_id = ? AND r.row_index < ?`,
      [runId, nodeId, jobId, job.total_items],
    );
    return rowCount ?? 0;
  });
  await completeNode(knex, ctx, count);
  return count;
}
