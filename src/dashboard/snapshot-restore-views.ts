import type { Catalog } from '../models/catalog';
import type { SnapshotRestore } from '../models/snapshot-restore';
import { html } from './html';
import { snapshotsPath } from './snapshots-views';
import { catalogCrumb, layout, statusBadge, when, type PageSession } from './views';

/**
 * The progress page of a snapshot restore: the restore runs as the workflow
 * `snapshot-restore-<restore_id>` (src/services/catalog/snapshots/snapshot-restores.ts); while it is queued
 * or restoring, this page reloads itself every {@link RESTORE_REFRESH_SECONDS} (assets/dashboard.js
 * reads `dashboard-refresh-seconds`); once it completed, the route sends the browser to the
 * snapshots page naming the safety snapshot; a failed restore shows its error.
 */

/** Seconds between reloads of the page while the restore runs. */
export const RESTORE_REFRESH_SECONDS = 1;

/** The page's URL. */
export function restoreProgressPath(catalogId: string, restoreId: string): string {
  return `${snapshotsPath(catalogId)}/restores/${restoreId}`;
}

/** The progress page of a restore that is queued, restoring or failed. */
export function restoreProgressPage(catalog: Catalog, restore: SnapshotRestore, session: PageSession): string {
  const open = restore.status === 'queued' || restore.status === 'restoring';
  return layout(
    'Restoring a snapshot',
    html`<section class="card" aria-labelledby="restore-heading">
      <h1 id="restore-heading">Restore of snapshot <code>${restore.snapshot_id.slice(0, 8)}</code></h1>
      <p role="status" id="restore-status" data-status="${restore.status}">
        ${statusBadge(restore.status)}
        ${
          restore.status === 'queued'
            ? 'Waiting for a worker to take the restore.'
            : restore.status === 'restoring'
              ? html`Restoring since ${when(restore.started_at ?? restore.created_at)}: a safety snapshot of the catalog as it is now is taken first.`
              : html`The restore failed; the catalog is as it was before it.`
        }
      </p>
      ${restore.status === 'failed' ? html`<p class="notice fail" id="restore-error">${restore.error ?? 'unknown error'}</p>` : ''}
      ${open ? html`<p class="muted">This page refreshes every ${RESTORE_REFRESH_SECONDS} s until the restore is done.</p>` : ''}
      <p class="muted">Requested ${when(restore.created_at)} · workflow <code>snapshot-restore-${restore.id}</code></p>
      <p><a href="${snapshotsPath(catalog.id)}">Back to the snapshots</a></p>
    </section>`,
    session,
    [catalogCrumb(catalog), html`<a href="${snapshotsPath(catalog.id)}">Snapshots</a>`, html`<span>Restore</span>`],
    open ? { refreshSeconds: RESTORE_REFRESH_SECONDS } : {},
  );
}
