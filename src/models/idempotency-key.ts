import { BaseModel } from './base';

/** The remembered answer of one idempotent POST (migration 20261124094000; src/services/access/idempotency.ts). */
export class IdempotencyKey extends BaseModel {
  static tableName = 'idempotency_keys';
  static idColumn = ['organization_id', 'idempotency_key'];
  organization_id!: string;
  idempotency_key!: string;
  /** SHA-256 of method, route, parameters, query and body: the same key with another request is refused. */
  request_hash!: string;
  /** The first answer's status; null while that request runs. */
  status!: number | null;
  response!: unknown;
  /** While the first request runs: until when its claim holds (renewed by that request; a repeat takes over a lapsed one). */
  lease_until!: Date | null;
  created_at!: Date;
}
