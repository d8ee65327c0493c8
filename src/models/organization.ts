import { BaseModel } from './base';

/** An organization: the tenant that owns catalogs, jobs and API keys (docs/api-reference.md "Authentication"). */
export class Organization extends BaseModel {
  static tableName = 'organizations';
  id!: string;
  name!: string;
  /** Secret for Standard-Webhooks signatures of this organization's webhooks (docs/api-enrichment.md "Webhooks"). */
  webhook_secret!: string;
  /** The catalog whose defaults `use_master_catalog_defaults` inherits when a request names no `master_catalog_id` (docs/api-reference.md "Catalogs" POST /public/catalogs). */
  default_master_catalog_id!: string | null;
  created_at!: Date;
}
