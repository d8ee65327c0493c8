import { BaseModel } from './base';

/** Safety controls of a template (each optional; docs/api-enrichment.md "Enrichment templates"). */
export interface TemplateSafety {
  /** Sources must lie within these domains; a request may narrow the list, not widen it. */
  allowed_domains?: string[];
  /** Always excluded; a request may add more (union). */
  blocked_domains?: string[];
  /** `false` forbids web research whatever the request says (false wins). */
  web_search?: boolean;
  /** Upper bound of processed rows: the smaller of this and the request's `max_rows` wins. */
  max_rows?: number;
}

/**
 * An organization's enrichment template: `defaults` fill the fields a request omits, `safety`
 * controls a request can only narrow (src/services/enrichment/jobs/templates.ts).
 */
export class EnrichmentTemplate extends BaseModel {
  static tableName = 'enrichment_templates';
  static jsonAttributes = ['defaults', 'safety'];
  id!: string;
  organization_id!: string;
  name!: string;
  description!: string | null;
  defaults!: Record<string, unknown>;
  safety!: TemplateSafety;
  created_at!: Date;
  updated_at!: Date;
}
