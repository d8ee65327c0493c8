import type { ResolvedAppDeps } from '../deps';
import { presentRestore, presentSnapshot } from '../presenters/snapshot';
import { catalogParams } from '../schemas/items';
import { createSnapshotBody, listSnapshotsQuery, listSnapshotsResponse, restoreResponse, snapshotParams, snapshotResponse } from '../schemas/snapshots';
import { createSnapshot, listSnapshots, restoreSnapshot } from '../services/catalog/snapshots';
import { defineRoute, RouteDef } from './registry';

/** Snapshot routes (interface-spec.md, Snapshots; decisions.md §3, G11). */
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
      handler: async ({ scope, params, body }) => presentSnapshot(await createSnapshot(deps.knex, scope, params.catalog_id, body.reason ?? null)),
    }),
    defineRoute({
      method: 'post',
      path: `${base}/:snapshot_id/restore`,
      tags,
      summary: 'Restore a snapshot (a safety snapshot is taken first)',
      params: snapshotParams,
      response: restoreResponse,
      handler: async ({ scope, params }) => presentRestore(await restoreSnapshot(deps, scope, params.catalog_id, params.snapshot_id)),
    }),
  ];
}
