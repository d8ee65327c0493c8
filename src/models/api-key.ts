import { BaseModel } from './base';

/** An API key of one organization, stored only as its SHA-256 (docs/api-reference.md "Authentication"). */
export class ApiKey extends BaseModel {
  static tableName = 'api_keys';
  id!: string;
  organization_id!: string;
  name!: string;
  key_hash!: string;
  /** First characters of the key, for operators to recognise it (never enough to use it). */
  key_prefix!: string;
  /**
   * The person the key acts for, with their role (a tool server's key); null for the
   * organization's keys, which act as admin.
   */
  person_id!: string | null;
  created_at!: Date;
  revoked_at!: Date | null;
}
