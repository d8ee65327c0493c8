/**
 * Snapshot restores as durable workflows (docs/api-reference.md "Snapshots"; docs/workflows.md "snapshotRestoreWorkflow"). A restore is a row of `snapshot_restores` and the workflow
 * `snapshot-restore-<restore_id>` (workflows/snapshot-restore.ts) whose activity runs
 * {@link runSnapshotRestore}:
 *
 * - {@link requestSnapshotRestore} (API and console) checks the restore can run, records it
 *   `queued` (or joins the open restore of the same snapshot: a retried request restores once)
 *   and starts its workflow (an idempotent start);
 * - {@link runSnapshotRestore} (the activity) marks it `restoring`, then restores in ONE
 *   transaction that first locks the restore row and finds it not completed, and records the
 *   result as `completed` in that same transaction: a worker killed mid-restore rolls the whole
 *   attempt back and the retry restores once; a retry after the commit answers the stored result;
 * - the API's synchronous route waits with {@link waitForSnapshotRestore}; the console's page
 *   polls {@link getSnapshotRestore}.
 */
import type { Knex } from 'knex';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../../lib/errors';
import { isUuid, newId } from '../../../lib/ids';
import { CatalogSchema } from '../../../models/catalog-schema';
import { SnapshotRestore } from '../../../models/snapshot-restore';
import type { Scope } from '../../access/scope';
import { assertWorkerPolling, type JobRunner } from '../../job-runner';
import { loadCatalogOwned } from '../catalogs';
import { loadSnapshot, restoreSnapshotIn, type RestoreDeps, type RestoreResult } from './snapshots';
import type { SnapshotRestoreResult } from '../../../contracts/workflows';
import { assertRole } from '../../access/roles';

export { SnapshotRestore };

/** Statuses of a restore that is still to finish. */
const OPEN = ['queued', 'restoring'] as const;

/** How often {@link waitForSnapshotRestore} re-checks that a worker polls (ms). */
const WORKER_CHECK_MS = 10_000;

/** What starting a restore needs: the database and the runner that starts its workflow. */
export interface RestoreRequestDeps {
  knex: Knex;
  jobRunner: Pick<JobRunner, 'startSnapshotRestore' | 'taskQueuePollers'>;
}

/**
 * Starts (or joins) the restore of a snapshot: checks the catalog, the snapshot and its schema
 * version, records a `queued` restore unless one of the same snapshot is open (then that one is
 * answered: a retried request does not restore twice), and starts the workflow
 * `snapshot-restore-<restore_id>` (a start of a started workflow is a success).
 * @returns the restore row (queued, restoring, or, when it finished meanwhile, completed)
 * @throws NotFoundError (404), ForbiddenError (403); ConflictError (409) when the snapshot's schema
 *   version no longer exists; ServiceUnavailableError (503) when the runner starts no restores;
 *   the client's error when Temporal is unreachable (the restore stays queued; a retry starts it)
 */
export async function requestSnapshotRestore(deps: RestoreRequestDeps, scope: Scope, catalogId: string, snapshotId: string): Promise<SnapshotRestore> {
  assertRole(scope, 'reviewer');
  const start = deps.jobRunner.startSnapshotRestore;
  const restore = await deps.knex.transaction(async (trx) => {
    await loadCatalogOwned(trx, scope, catalogId);
    const snapshot = await loadSnapshot(trx, scope, catalogId, snapshotId);
    const version = await CatalogSchema.query(trx).select('id').where({ catalog_id: catalogId, version: snapshot.schema_version }).first();
    if (!version) throw new ConflictError(`Schema version ${snapshot.schema_version} of this snapshot no longer exists`);
    // Checked after the request itself, so that a wrong id is a 404 wherever the service runs.
    if (!start) throw new ServiceUnavailableError('Snapshot restores run as Temporal workflows and this service has no Temporal client');
    // The partial unique index admits one open restore per snapshot: a concurrent or retried
    // request inserts nothing and joins the open one. (A restore that closes between the two
    // statements leaves neither: insert again.)
    for (let i = 0; i < 3; i++) {
      const id = newId();
      await trx.raw(
        `INSERT INTO snapshot_restores (id, organization_id, catalog_id, snapshot_id, requested_by_kind, requested_by_id)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (snapshot_id) WHERE status IN ('queued', 'restoring') DO NOTHING`,
        [id, scope.organizationId, catalogId, snapshot.id, scope.principal.kind, scope.principal.id],
      );
      const row =
        (await SnapshotRestore.query(trx).findById(id)) ?? (await SnapshotRestore.query(trx).where('snapshot_id', snapshot.id).whereIn('status', OPEN).first());
      if (row) return row;
    }
    throw new ConflictError('Another restore of this snapshot is starting: try again');
  });
  await start!.call(deps.jobRunner, { id: restore.id, organization_id: restore.organization_id, catalog_id: catalogId, snapshot_id: restore.snapshot_id });
  return restore;
}

/**
 * A restore of the catalog, for the API and the console's progress page.
 * @throws NotFoundError (404) for an unknown restore or one of another catalog; ForbiddenError (403)
 */
export async function getSnapshotRestore(knex: Knex, scope: Scope, catalogId: string, restoreId: string): Promise<SnapshotRestore> {
  await loadCatalogOwned(knex, scope, catalogId);
  const row = isUuid(restoreId) ? await SnapshotRestore.query(knex).findById(restoreId) : undefined;
  if (!row || row.catalog_id !== catalogId) throw new NotFoundError('Restore not found');
  return row;
}

/**
 * Waits until a restore is completed or failed (the synchronous `POST …/restore`), reading
 * its row and checking every {@link WORKER_CHECK_MS} that a worker polls the task queue.
 * @returns the restore result
 * @throws ConflictError (409) when it failed as not applicable (catalog, snapshot or schema
 *   version gone meanwhile); ServiceUnavailableError (503) when every attempt failed, or when no
 *   worker polls (the restore stays queued and runs when one is back)
 */
export async function waitForSnapshotRestore(deps: RestoreRequestDeps, restore: SnapshotRestore, pollMs = 100): Promise<RestoreResult> {
  let checked = Date.now();
  let delay = Math.min(pollMs, 20);
  for (;;) {
    const row = (await SnapshotRestore.query(deps.knex).findById(restore.id)) as SnapshotRestore;
    if (row.status === 'completed' && row.result) {
      const { snapshot_id, safety_snapshot_id, items_restored, schema_version } = row.result;
      return { snapshot_id, safety_snapshot_id, items_restored, schema_version };
    }
    if (row.status === 'failed') {
      const message = `Restore ${row.id} failed: ${row.error ?? 'unknown error'}`;
      throw row.failure === 'not_applicable' ? new ConflictError(message) : new ServiceUnavailableError(message);
    }
    if (Date.now() - checked >= WORKER_CHECK_MS) {
      checked = Date.now();
      await assertWorkerPolling(deps.jobRunner as JobRunner, `restore ${row.id} is queued and runs when a worker polls again`);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(pollMs, delay * 2);
  }
}

/**
 * The restore activity's work (workflows/snapshot-restore.ts): marks the restore `restoring`
 * (committed at once, what pages show), then in one transaction locks the restore row, restores
 * the snapshot ({@link restoreSnapshotIn}: safety snapshot first) and records it `completed` with
 * the result. Idempotent: a retry after the commit (or a second attempt that waited on the row
 * lock) returns the stored result; an attempt killed before the commit left nothing.
 * @returns the result, with `words_pending` when the word index was left behind (the workflow
 *   catches it up)
 * @throws NotFoundError / ForbiddenError / ConflictError when the restore cannot run (the
 *   activity fails it as not applicable); the database's error otherwise (retried)
 */
export async function runSnapshotRestore(
  deps: { knex: Knex } & Pick<RestoreDeps, 'searchWordsDeferMinItems'>,
  restoreId: string,
): Promise<SnapshotRestoreResult> {
  await SnapshotRestore.query(deps.knex)
    .findById(restoreId)
    .whereIn('status', OPEN)
    .patch({ status: 'restoring', started_at: deps.knex.raw('coalesce(started_at, now())'), attempts: deps.knex.raw('attempts + 1') } as never);
  return deps.knex.transaction(async (trx) => {
    const row = await SnapshotRestore.query(trx).findById(restoreId).forUpdate();
    if (!row) throw new NotFoundError(`Restore ${restoreId} not found`);
    if (row.status === 'completed' && row.result) return row.result;
    if (row.status === 'failed') throw new ConflictError(row.error ?? 'the restore failed');
    const scope: Scope = {
      organizationId: row.organization_id,
      principal: { kind: row.requested_by_kind, id: row.requested_by_id, organizationIds: [row.organization_id] },
    };
    const done = await restoreSnapshotIn(trx, deps, scope, row.catalog_id, row.snapshot_id);
    const result: SnapshotRestoreResult = { ...done.result, ...(done.behind ? { words_pending: true } : {}) };
    await SnapshotRestore.query(trx)
      .findById(restoreId)
      .patch({ status: 'completed', result, finished_at: trx.fn.now() } as never);
    return result;
  });
}

/**
 * Records a failed restore (`status` failed with the error and why); idempotent, and a no-op on a
 * restore that completed.
 */
export async function markSnapshotRestoreFailed(knex: Knex, restoreId: string, error: string, failure: 'not_applicable' | 'error'): Promise<void> {
  await SnapshotRestore.query(knex)
    .findById(restoreId)
    .whereIn('status', OPEN)
    .patch({ status: 'failed', error: error.slice(0, 2000), failure, finished_at: knex.fn.now() } as never);
}
