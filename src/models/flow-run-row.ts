import { BaseModel } from './base';

/** One output row of one node of a run (written and read in pages, set-based). */
export class FlowRunRow extends BaseModel {
  static tableName = 'flow_run_rows';
  static idColumn = ['run_id', 'node_id', 'row_index'];
  static jsonAttributes = ['data'];
  run_id!: string;
  node_id!: string;
  row_index!: number;
  data!: Record<string, unknown>;
}
