import type { Catalog } from '../models/catalog';
import type { CatalogSnapshot } from '../models/catalog-snapshot';
import type { RestoreResult } from '../services/catalog/snapshots/snapshots';
import type { SnapshotComparison } from '../services/catalog/snapshots/snapshot-compare';
import { diffCells } from './diff';
import { html, type SafeHtml } from './html';
import { badge, catalogCrumb, DASHBOARD_BASE, layout, record, when, type PageSession } from './views';

/**
 * The console's snapshots page: the catalog's snapshots (newest first), taking a
 * manual one, comparing one with now (counts and sample diffs), and restoring one after a
 * confirmation page; the page after a restore names the safety snapshot the restore took first.
 * Plain forms with the CSRF token (services: src/services/catalog/snapshots/snapshots.ts).
 */

/** What the page shows besides the list. */
export interface SnapshotsPageExtras {
  /** The comparison asked for with `?compare=<id>`. */
  comparison?: SnapshotComparison | null;
  /** The snapshot just taken. */
  created?: string | null;
  /** The restore just done. */
  restored?: RestoreResult | null;
  /** Display names of the snapshots' authors by actor id (`person:…`, `api_key:…`; services/access/people.ts `actorNames`). */
  actors?: Record<string, string>;
}

/** The snapshots page's URL. */
export function snapshotsPath(catalogId: string): string {
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/snapshots`;
}

function comparisonSection(catalog: Catalog, c: SnapshotComparison): SafeHtml {
  return html`<section class="card" id="comparison" aria-labelledby="comparison-heading">
    <h2 id="comparison-heading">Snapshot <code>${c.snapshot.id.slice(0, 8)}</code> compared with now</h2>
    <p class="muted">
      Taken ${when(c.snapshot.created_at)} (schema ${c.snapshot.schema_version}; now ${c.schema_version_now}). Before: the snapshot · After: the catalog now.
    </p>
    <div class="counts">
      <span class="count" data-kind="changed"><span class="n">${c.changed}</span><span>changed</span></span>
      <span class="count" data-kind="added"><span class="n">${c.added}</span><span>added since</span></span>
      <span class="count" data-kind="removed"><span class="n">${c.removed}</span><span>removed since</span></span>
      <span class="count" data-kind="unchanged"><span class="n">${c.unchanged}</span><span>unchanged</span></span>
    </div>
    ${
      c.samples.length
        ? html`<table class="list diff samples">
            <caption class="visually-hidden">
              Sample differences
            </caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Field</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              ${c.samples.map((s) => {
                const then = record(s.then);
                const now = record(s.now);
                const keys = [...new Set([...Object.keys(then), ...Object.keys(now)])].filter((k) => JSON.stringify(then[k]) !== JSON.stringify(now[k])).sort();
                const link =
                  s.kind === 'removed'
                    ? html`<code>${s.id.slice(0, 8)}</code>`
                    : html`<a href="${DASHBOARD_BASE}/catalogs/${catalog.id}/items/${s.id}"><code>${s.id.slice(0, 8)}</code></a>`;
                return keys.map((k, i) => {
                  const cells = diffCells(then[k], now[k]);
                  return html`<tr data-item-id="${s.id}" data-kind="${s.kind}" data-field="${k}">
                    <td>${i === 0 ? html`${link} ${badge(s.kind, `kind-${s.kind}`)}` : ''}</td>
                    <td><code>${k}</code></td>
                    <td class="before">${cells.before}</td>
                    <td class="after">${cells.after}</td>
                  </tr>`;
                });
              })}
            </tbody>
          </table>`
        : html`<p class="muted">No item differs.</p>`
    }
  </section>`;
}

function notices(catalog: Catalog, extras: SnapshotsPageExtras): SafeHtml | string {
  if (extras.restored)
    return html`<p class="notice ok" role="status" id="snapshot-notice">
      Restored snapshot <code>${extras.restored.snapshot_id}</code>: ${extras.restored.items_restored} item(s), schema ${extras.restored.schema_version}. The
      state it replaced is kept in the safety snapshot <code id="safety-snapshot">${extras.restored.safety_snapshot_id}</code> (<a
        href="${snapshotsPath(catalog.id)}?compare=${extras.restored.safety_snapshot_id}"
        >compare it with now</a
      >; restore it to undo).
    </p>`;
  if (extras.created) return html`<p class="notice ok" role="status" id="snapshot-notice">Snapshot <code>${extras.created}</code> taken.</p>`;
  return '';
}

/** The snapshots page. */
export function snapshotsPage(catalog: Catalog, snapshots: CatalogSnapshot[], total: number, extras: SnapshotsPageExtras, session: PageSession): string {
  return layout(
    `Snapshots · ${catalog.name}`,
    html`<h1>Snapshots</h1>
      <p class="muted">
        A snapshot holds the catalog's items, schema version, taxonomy, context and quality prompt. Restoring one brings all of them back, after an automatic
        safety snapshot of the state it replaces.
      </p>
      ${notices(catalog, extras)}
      <section class="card" aria-labelledby="take-heading">
        <h2 id="take-heading">Take a snapshot</h2>
        <form method="post" action="${snapshotsPath(catalog.id)}" class="filters">
          <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
          <label class="grow" for="snapshot-reason">Reason <input id="snapshot-reason" name="reason" type="text" maxlength="500" /></label>
          <button type="submit" class="btn primary">Take snapshot</button>
        </form>
      </section>
      ${extras.comparison ? comparisonSection(catalog, extras.comparison) : ''}
      <section class="card" aria-labelledby="list-heading">
        <h2 id="list-heading">Snapshots <span class="muted">(${total}${total > snapshots.length ? `, newest ${snapshots.length} shown` : ''})</span></h2>
        ${
          snapshots.length
            ? html`<table class="list snapshots">
                <thead>
                  <tr>
                    <th scope="col">Snapshot</th>
                    <th scope="col">Type</th>
                    <th scope="col">Reason</th>
                    <th scope="col" class="num">Items</th>
                    <th scope="col">Schema</th>
                    <th scope="col">Taken</th>
                    <th scope="col">By</th>
                    <th scope="col"><span class="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${snapshots.map(
                    (s) =>
                      html`<tr data-snapshot-id="${s.id}" data-type="${s.snapshot_type}">
                        <td><code title="${s.id}">${s.id.slice(0, 8)}</code></td>
                        <td>${badge(s.snapshot_type.replace(/_/g, '-'), 'type')}</td>
                        <td>${s.reason ?? ''}</td>
                        <td class="num">${s.item_count}</td>
                        <td>${s.schema_version}</td>
                        <td>${when(s.created_at)}</td>
                        <td class="created-by" title="${s.created_by}">${extras.actors?.[s.created_by] ?? s.created_by}</td>
                        <td class="actions">
                          <a class="btn small" href="${snapshotsPath(catalog.id)}?compare=${s.id}#comparison">Compare with now</a>
                          <a class="btn small reject" href="${snapshotsPath(catalog.id)}/${s.id}/restore">Restore…</a>
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted">No snapshots yet.</p>`
        }
      </section>`,
    session,
    [catalogCrumb(catalog), html`<span>Snapshots</span>`],
  );
}

/** The confirmation page of a restore. */
export function restoreConfirmPage(catalog: Catalog, snapshot: CatalogSnapshot, session: PageSession): string {
  return layout(
    'Restore a snapshot',
    html`<section class="card login">
      <h1>Restore snapshot <code>${snapshot.id.slice(0, 8)}</code>?</h1>
      <p>
        The catalog <strong>${catalog.name}</strong> goes back to this snapshot of ${when(snapshot.created_at)} (${snapshot.item_count} items, schema
        ${snapshot.schema_version}${snapshot.reason ? `, “${snapshot.reason}”` : ''}). A safety snapshot of the catalog as it is now is taken first, so the
        restore can itself be undone.
      </p>
      <form method="post" action="${snapshotsPath(catalog.id)}/${snapshot.id}/restore">
        <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
        <button type="submit" class="btn primary" id="confirm-restore">Restore</button>
        <a class="btn ghost" href="${snapshotsPath(catalog.id)}">Cancel</a>
      </form>
    </section>`,
    session,
    [catalogCrumb(catalog), html`<a href="${snapshotsPath(catalog.id)}">Snapshots</a>`, html`<span>Restore</span>`],
  );
}
