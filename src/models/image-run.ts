import { BaseModel } from './base';

/** Status of an image run: `processing` while it runs, then `completed` (with result URLs) or `failed` (with an error). */
export type ImageRunStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** An image processing run on the organization's hosted media (src/services/enrichment/jobs/image-runs.ts). */
export class ImageRun extends BaseModel {
  static tableName = 'image_runs';
  static jsonAttributes = ['input', 'result_urls'];
  id!: string;
  organization_id!: string;
  tool!: string;
  status!: ImageRunStatus;
  input!: Record<string, unknown>;
  num_options!: number;
  catalog_id!: string | null;
  item_id!: string | null;
  result_urls!: string[];
  error!: string | null;
  created_at!: Date;
  updated_at!: Date;
  completed_at!: Date | null;
}
