import { BaseModel } from './base';

/** An organization: the tenant that owns catalogs, jobs and API keys (decisions.md §1). */
export class Organization extends BaseModel {
  static tableName = 'organizations';
  id!: string;
  name!: string;
  /** Secret for Standard-Webhooks signatures of this organization's webhooks (decisions.md §4). */
  webhook_secret!: string;
  created_at!: Date;
}
