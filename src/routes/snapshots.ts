import type { ResolvedAppDeps } from '../deps';
import { presentRestore, presentRestoreStatus, presentSnapshot } from '../presenters/snapshots';
import { catalogParams } from '../schemas/items';
import {
  createSnapshotBody,
  listSnapshotsQuery,
  listSnapshotsResponse,
  restoreResponse,
  restoreStatusParams,
  restoreStatusResponse,
  snapshotParams,
  snapshotResponse,
} from '../schemas/snapshots';
import { getSnapshotRestore, requestSnapshotRestore, waitForSnapshotRestore } from '../services/catalog/snapshots/snapshot-restores';
import { createSnapshot, listSnapshots } from '../services/catalog/snapshots/snapshots';
import { defineRoute, RouteDef } from './registry';

/** Snapshot routes (docs/api-reference.md "Snapshots"). */
export function snapshotRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['snapshots'];
  const base = '/public/catalogs/:catalog_id/snapshots';
  return [
    defineRoute({
      method: 'get',
      path: base,
      tags,
      summary: 'List snapshots (newest first)',
      params: catalogParams,
      query: listSnapshotsQuery,
      response: listSnapshotsResponse,
      handler: async ({ scope, params, query }) => {
        const { snapshots, total } = await listSnapshots(deps.knex, scope, params.catalog_id, query);
        return { snapshots: snapshots.map(presentSnapshot), total };
      },
    }),
    defineRoute({
      method: 'post',
      path: base,
      tags,
      summary: 'Take a manual snapshot',
      params: catalogParams,
      body: createSnapshotBody,
      response: snapshotResponse,
      atomic: true,
      handler: async ({ scope, params, body, db }) => presentSnapshot(await createSnapshot(db, scope, params.catalog_id, body.reason ?? null)),
    }),
    defineRoute({
      method: 'post',
      path: `${base}/:snapshot_id/restore`,
      tags,
      // Runs as the workflow snapshot-restore-<restore_id>; the answer waits for its
      // result (answers the result). A retried request while it runs joins the same restore.
      summary: 'Restore a snapshot (a safety snapshot is taken first); runs as a workflow and answers its result',
      params: snapshotParams,
      response: restoreResponse,
      handler: async ({ scope, params }) => {
        const restore = await requestSnapshotRestore(deps, scope, params.catalog_id, params.snapshot_id);
        // The shape (docs/api-reference.md "Snapshots") plus the run's id: its row is at GET …/snapshot-restores/{restore_id}.
        return { ...presentRestore(await waitForSnapshotRestore(deps, restore)), restore_id: restore.id };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/snapshot-restores/:restore_id',
      tags,
      summary: 'Status of a snapshot restore (queued, restoring, completed with its result, or failed)',
      params: restoreStatusParams,
      response: restoreStatusResponse,
      handler: async ({ scope, params }) => presentRestoreStatus(await getSnapshotRestore(deps.knex, scope, params.catalog_id, params.restore_id)),
    }),
  ];
}
