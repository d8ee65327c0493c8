import { BaseModel } from './base';

/**
 * A rule of a readiness profile: the item's `field` must pass the grid filter
 * `op` with `value` (src/services/catalog/grid/item-grid-query.ts: `eq`, `contains`, `range` `a..b`,
 * `in` comma list, `notempty`).
 */
export interface ReadinessRule {
  field: string;
  op: 'notempty' | 'eq' | 'contains' | 'range' | 'in';
  value: string;
}

/** A named readiness profile of a catalog (e.g. "Marketplace A"): required fields plus rules. */
export class ReadinessProfile extends BaseModel {
  static tableName = 'readiness_profiles';
  static jsonAttributes = ['required_fields', 'rules'];
  id!: string;
  catalog_id!: string;
  name!: string;
  description!: string | null;
  /** Data fields that must be filled (not empty), on top of nothing else: a profile says all it needs. */
  required_fields!: string[];
  rules!: ReadinessRule[];
  /** The principal that created it (`api_key:<id>` / `user:<sub>`). */
  created_by!: string;
  created_at!: Date;
  updated_at!: Date;
}
