import { Type } from '@sinclair/typebox';
import { Nullable, POSITION_MAX, StringEnum, withDefault } from './common';

/** Ajv schemas of the snapshot routes (docs/api-reference.md "Snapshots"). */

const snapshotType = () => StringEnum(['manual', 'safety', 'pre_apply']);

/** Path of snapshot restore. */
export const snapshotParams = Type.Object({ catalog_id: Type.String(), snapshot_id: Type.String() });

/** `GET …/snapshots` query. */
export const listSnapshotsQuery = Type.Object({
  snapshot_type: Type.Optional(snapshotType()),
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 50)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
});

/** `POST …/snapshots` body. */
export const createSnapshotBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });

/** A snapshot record (docs/api-reference.md "Snapshots"). */
export const snapshotResponse = Type.Object({
  id: Type.Optional(Type.String()),
  catalog_id: Type.Optional(Type.String()),
  snapshot_type: Type.Optional(snapshotType()),
  reason: Type.Optional(Nullable(Type.String())),
  item_count: Type.Optional(Type.Integer()),
  schema_version: Type.Optional(Type.String()),
  created_at: Type.Optional(Type.String({ format: 'date-time' })),
  created_by: Type.Optional(Type.String()),
});

/** `GET …/snapshots` response. */
export const listSnapshotsResponse = Type.Object({ snapshots: Type.Optional(Type.Array(snapshotResponse)), total: Type.Optional(Type.Integer()) });

/** `POST …/snapshots/{snapshot_id}/restore` response (docs/api-reference.md "Snapshots"). */
export const restoreResponse = Type.Object({
  message: Type.Optional(Type.String()),
  snapshot_id: Type.Optional(Type.String()),
  safety_snapshot_id: Type.Optional(Type.String()),
  items_restored: Type.Optional(Type.Integer()),
  schema_version: Type.Optional(Type.String()),
  restore_id: Type.Optional(
    Type.String({ description: 'The restore run: its status at `GET …/snapshot-restores/{restore_id}`; absent inside a status answer' }),
  ),
});

/** Path of a restore's status (`GET …/snapshot-restores/{restore_id}`). */
export const restoreStatusParams = Type.Object({ catalog_id: Type.String(), restore_id: Type.String() });

/** `GET …/snapshot-restores/{restore_id}` response: where a restore run by its workflow is. */
export const restoreStatusResponse = Type.Object({
  restore_id: Type.String(),
  catalog_id: Type.String(),
  snapshot_id: Type.String(),
  status: StringEnum(['queued', 'restoring', 'completed', 'failed']),
  workflow_id: Type.String({ description: 'The Temporal workflow that runs it: `snapshot-restore-<restore_id>`' }),
  result: Nullable(restoreResponse),
  error: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
});
