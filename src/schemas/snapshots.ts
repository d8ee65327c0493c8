import type { JsonSchema } from '../lib/validation';

/** Ajv schemas of the snapshot routes (interface-spec.md, Snapshots; decisions.md §3, G11). */

/** Path of snapshot restore. */
export const snapshotParams: JsonSchema = { type: 'object', required: ['catalog_id', 'snapshot_id'], properties: { catalog_id: { type: 'string' }, snapshot_id: { type: 'string' } } };

/** `GET …/snapshots` query. */
export const listSnapshotsQuery: JsonSchema = {
  type: 'object',
  properties: {
    snapshot_type: { type: 'string', enum: ['manual', 'safety', 'pre_apply'] },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
};

/** `POST …/snapshots` body. */
export const createSnapshotBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: { type: 'string', maxLength: 2000 } },
};

/** A snapshot record (G11). */
export const snapshotResponse: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    catalog_id: { type: 'string' },
    snapshot_type: { type: 'string', enum: ['manual', 'safety', 'pre_apply'] },
    reason: { type: ['string', 'null'] },
    item_count: { type: 'integer' },
    schema_version: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    created_by: { type: 'string' },
  },
};

/** `GET …/snapshots` response. */
export const listSnapshotsResponse: JsonSchema = { type: 'object', properties: { snapshots: { type: 'array', items: snapshotResponse }, total: { type: 'integer' } } };

/** `POST …/snapshots/{snapshot_id}/restore` response (G11). */
export const restoreResponse: JsonSchema = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    snapshot_id: { type: 'string' },
    safety_snapshot_id: { type: 'string' },
    items_restored: { type: 'integer' },
    schema_version: { type: 'string' },
  },
};
