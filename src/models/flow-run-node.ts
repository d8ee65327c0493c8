import type { FlowNodeType } from './flow';
import { BaseModel } from './base';

/** States of one node of a run. */
export type FlowRunNodeStatus = 'pending' | 'running' | 'completed' | 'failed';

/**
 * One node of a run: its progress (input pages done, output rows written, both committed with
 * the page's rows, so a retry resumes at the next page), and what it created.
 */
export class FlowRunNode extends BaseModel {
  static tableName = 'flow_run_nodes';
  static idColumn = ['run_id', 'node_id'];
  run_id!: string;
  node_id!: string;
  position!: number;
  node_type!: FlowNodeType;
  status!: FlowRunNodeStatus;
  pages_done!: number;
  output_count!: number;
  /** Times the node started (1 unless a worker died or an operator reran it). */
  executions!: number;
  /** The enrichment job of an `enrich` node. */
  job_id!: string | null;
  /** The review activity of a `stage` node. */
  activity_id!: string | null;
  error!: string | null;
  started_at!: Date | null;
  completed_at!: Date | null;
}
