/**
 * Flows and runs on the wire (docs/api-review.md "Flows", "Flow runs" and
 * "Flows"; docs/api-review.md "Flow runs"). Called only by routes.
 */
import { iso } from '../lib/time';
import type { Flow } from '../models/flow';
import type { FlowRun } from '../models/flow-run';
import { flowUrl } from '../services/flows/flows';
import { pollUrl, PolledRun, StartedRun } from '../services/flows/runs';
import { reviewUrl } from '../services/review/review-activities';

/** A flow as listed: `{id, name, description, total_nodes, created_at, updated_at, workflow_url}`. */
export function presentFlowEntry(flow: Flow, publicUrl: string): Record<string, unknown> {
  return {
    id: flow.id,
    name: flow.name,
    description: flow.description,
    total_nodes: flow.nodes.length,
    created_at: iso(flow.created_at),
    updated_at: iso(flow.updated_at),
    workflow_url: flowUrl(publicUrl, flow.id),
  };
}

/** The answer of save-workflow (docs/api-review.md "Save as workflow"): `{workflow_id, workflow_name, workflow_url, total_nodes}`. */
export function presentSavedFlow(flow: Flow, publicUrl: string): Record<string, unknown> {
  return { workflow_id: flow.id, workflow_name: flow.name, workflow_url: flowUrl(publicUrl, flow.id), total_nodes: flow.nodes.length };
}

/** `GET /public/workflows`: `{workflows, total, page, page_size}` (page = offset / limit + 1). */
export function presentFlowList(list: { flows: Flow[]; total: number }, q: { limit: number; offset: number }, publicUrl: string): Record<string, unknown> {
  return { workflows: list.flows.map((f) => presentFlowEntry(f, publicUrl)), total: list.total, page: Math.floor(q.offset / q.limit) + 1, page_size: q.limit };
}

/** A run as listed on its flow. */
export function presentRunEntry(run: FlowRun): Record<string, unknown> {
  return {
    workflow_run_id: run.id,
    status: run.status,
    progress: run.progress,
    input_count: run.input_count,
    created_at: iso(run.created_at),
    completed_at: iso(run.completed_at),
    poll_url: pollUrl(run.id),
  };
}

/** `GET /public/workflows/{id}`: the flow, its nodes and its latest runs. */
export function presentFlowDetail(flow: Flow, runs: FlowRun[], publicUrl: string): Record<string, unknown> {
  return {
    ...presentFlowEntry(flow, publicUrl),
    catalog_id: flow.catalog_id,
    source_activity_id: flow.source_activity_id,
    nodes: flow.nodes,
    attachments: flow.attachments,
    recent_runs: runs.map(presentRunEntry),
  };
}

/** The answer of execute (docs/api-review.md "Flows"). */
export function presentStartedRun({ run, flow }: StartedRun, publicUrl: string): Record<string, unknown> {
  return {
    workflow_run_id: run.id,
    workflow_id: flow.id,
    workflow_name: flow.name,
    status: 'running',
    created_at: iso(run.created_at),
    poll_url: pollUrl(run.id),
    workflow_url: flowUrl(publicUrl, flow.id),
    total_nodes: run.nodes.length,
    message: `Run started on ${run.input_count} row${run.input_count === 1 ? '' : 's'}; poll ${pollUrl(run.id)}`,
  };
}

/** The run object: status, progress, updates; `results` and `node_results` pages once completed. */
export function presentRun(p: PolledRun, publicUrl: string): Record<string, unknown> {
  const { run, flow } = p;
  return {
    workflow_run_id: run.id,
    workflow_id: flow.id,
    workflow_name: flow.name,
    workflow_url: flowUrl(publicUrl, flow.id),
    status: run.status,
    progress: run.progress,
    current_step: run.current_step,
    message: run.message,
    created_at: iso(run.created_at),
    updated_at: iso(run.updated_at),
    completed_at: iso(run.completed_at),
    updates: run.updates,
    results: p.results,
    node_results: p.node_results,
    nodes: p.nodes.map((n) => ({
      id: n.node_id,
      type: n.node_type,
      status: n.status,
      output_count: n.output_count,
      executions: n.executions,
      ...(n.job_id ? { job_id: n.job_id } : {}),
      ...(p.notices[n.node_id] ? { notices: p.notices[n.node_id] } : {}),
    })),
    failed_node_id: run.failed_node_id,
    error: run.error,
    activity_id: run.activity_id,
    review_url: run.activity_id ? reviewUrl(publicUrl, run.catalog_id, run.activity_id) : null,
  };
}
