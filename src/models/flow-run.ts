import type { FlowNode } from './flow';
import { BaseModel } from './base';

/** Run states (docs/api-review.md "Flow runs"). */
export type FlowRunStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** One execution of a flow: the Temporal workflow `flow-run-<id>` (docs/api-review.md "Flow runs"). */
export class FlowRun extends BaseModel {
  static tableName = 'flow_runs';
  static jsonAttributes = ['nodes', 'updates'];
  id!: string;
  flow_id!: string;
  organization_id!: string;
  catalog_id!: string | null;
  status!: FlowRunStatus;
  /** The flow's nodes when the run started. */
  nodes!: FlowNode[];
  input_count!: number;
  /** 0–1: finished nodes plus the fraction of the current one, over all nodes. */
  progress!: number;
  current_step!: string | null;
  message!: string | null;
  /** `print` output of the run's code and node milestones, oldest first (capped). */
  updates!: string[];
  failed_node_id!: string | null;
  error!: string | null;
  /** The review activity the `stage` node left. */
  activity_id!: string | null;
  workflow_id!: string;
  /** Executions of the workflow: 1, plus one per rerun. */
  attempts!: number;
  created_at!: Date;
  updated_at!: Date;
  completed_at!: Date | null;
}
