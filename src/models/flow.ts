import { BaseModel } from './base';

/** Node types of a flow (docs/api-review.md "Flows"). */
export type FlowNodeType = 'input' | 'custom_code' | 'enrich' | 'stage';

/**
 * One node of a flow (docs/api-review.md "Flows"): `{id, type, config}`. Config by type:
 * - `input`: `{}` (the rows given to execute);
 * - `custom_code`: `{python_code, timeout_seconds (1–1800), memory_mib?}` (src/sandbox);
 * - `enrich`: `{request}`, the saved enrichment request without items (src/services/flows/nodes/enrich.ts);
 * - `stage`: `{catalog_id}`, the catalog whose review activity takes the rows.
 */
export interface FlowNode {
  id: string;
  type: FlowNodeType;
  config: Record<string, unknown>;
  /** Attachments of the save request that belong to this node (metadata only). */
  attachments?: Array<Record<string, unknown>>;
}

/** A stored flow of an organization (docs/api-review.md "Flows"; docs/api-review.md "Save as workflow"). */
export class Flow extends BaseModel {
  static tableName = 'flows';
  static jsonAttributes = ['nodes', 'attachments'];
  id!: string;
  organization_id!: string;
  /** The catalog its `stage` node stages into (null once that catalog is deleted). */
  catalog_id!: string | null;
  name!: string;
  description!: string | null;
  nodes!: FlowNode[];
  attachments!: Array<Record<string, unknown>>;
  /** The review activity it was saved from. */
  source_activity_id!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
