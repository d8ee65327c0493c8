import type { GridCatalog } from '../services/catalog/grid/item-grid';
import { BULK_ACTIONS } from '../services/review/bulk-edit';
import { estimatedCredits } from './fill-gaps-views';
import { html } from './html';
import { itemsPath } from './item-grid-views';
import type { ReviewActivity } from '../models/review-activity';
import { catalogCrumb, DASHBOARD_BASE, layout, type PageSession } from './views';

/**
 * The bulk actions page of the catalog console: what a bulk action will act on
 * (the grid's filter and its exact count) and the form that creates the bulk action's review
 * activity. Everything printed goes through the `html` template (escaped); no script.
 */

/** What the bulk actions page shows. */
export interface BulkPageData {
  grid: GridCatalog;
  /** The grid's query string (no paging). */
  query: string;
  /** Items matching it. */
  matching: number;
}

/** `/dashboard/catalogs/{id}/items/bulk`. */
export function bulkPath(catalogId: string): string {
  return `${itemsPath(catalogId)}/bulk`;
}

const ACTION_LABELS: Record<(typeof BULK_ACTIONS)[number], string> = {
  set: 'Set a value',
  clear: 'Clear a value',
  append: 'Append a value',
  move: 'Move to a taxonomy node',
  delete: 'Delete the items',
};

/** The bulk actions page. */
export function bulkPage(d: BulkPageData, session: PageSession): string {
  const cid = d.grid.catalog.id;
  const gridQuery = new URLSearchParams(d.query);
  gridQuery.delete('ids');
  const gridHref = gridQuery.size ? `${itemsPath(cid)}?${gridQuery.toString()}` : itemsPath(cid);
  const filter = [...new URLSearchParams(d.query)].filter(([k]) => k !== 'cols');
  const selected = filter.some(([k]) => k === 'ids');
  const rest = filter.filter(([k]) => k !== 'ids');
  const nodes = Object.values(d.grid.taxonomy?.nodes ?? {});
  return layout(
    `Bulk actions · ${d.grid.catalog.name}`,
    html`<h1>Bulk actions</h1>
      <p id="bulk-scope">
        On <strong id="bulk-count">${d.matching}</strong> item${d.matching === 1 ? '' : 's'}: ${selected ? 'the selected items matching' : 'all matching'}
        ${rest.length ? html`the filter <code>${rest.map(([k, v]) => `${k}=${v}`).join(' & ')}</code>` : 'the whole catalog (no filter)'} ·
        <a href="${gridHref}">back to the grid</a>
      </p>
      <p class="muted">
        A bulk action stages one change per item in a review activity (staged in the background, page by page): preview every change there, approve, and apply.
        The apply takes a pre-apply snapshot that undoes it. Changes a reviewer already decided elsewhere are never touched.
      </p>
      <form method="post" action="${bulkPath(cid)}" class="profile-form" id="bulk-form">
        <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
        <input type="hidden" name="query" value="${d.query}" />
        <label for="bulk-action">Action</label>
        <select id="bulk-action" name="action">
          ${BULK_ACTIONS.map((a) => html`<option value="${a}">${ACTION_LABELS[a]}</option>`)}
        </select>
        <label for="bulk-field">Field <span class="muted">(set, clear, append)</span></label>
        <select id="bulk-field" name="field">
          ${Object.keys(d.grid.types).map((f) => html`<option value="${f}">${f}</option>`)}
        </select>
        <label for="bulk-value">Value <span class="muted">(set, append)</span></label>
        <input id="bulk-value" name="value" type="text" maxlength="2000" />
        ${
          nodes.length
            ? html`<label for="bulk-node">Taxonomy node <span class="muted">(move)</span></label>
                <select id="bulk-node" name="node">
                  ${nodes.map((n) => html`<option value="${n.id}">${n.name}</option>`)}
                </select>`
            : ''
        }
        <button type="submit" class="btn primary" id="bulk-submit" ${d.matching ? '' : 'disabled'}>
          Preview the changes on ${d.matching} item${d.matching === 1 ? '' : 's'}
        </button>
      </form>
      <form method="post" action="${bulkPath(cid)}/enrich" class="profile-form" id="bulk-enrich-form">
        <h2>Enrich or classify</h2>
        <p class="muted">
          An enrichment job on these items (at most 100,000), its results staged for review. Cost: at most
          <strong id="bulk-enrich-credits">${estimatedCredits(d.matching).credits}</strong> credits.
        </p>
        <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
        <input type="hidden" name="query" value="${d.query}" />
        <fieldset>
          <legend>Fields to enrich (the output schema)</legend>
          ${Object.keys(d.grid.types).map((f) => html`<label class="check"><input type="checkbox" name="field" value="${f}" /> ${f}</label>`)}
        </fieldset>
        ${nodes.length ? html`<label class="check"><input type="checkbox" name="classify" value="1" id="bulk-classify" /> Classify into the taxonomy</label>` : ''}
        <button type="submit" class="btn primary" id="bulk-enrich-submit" ${d.matching ? '' : 'disabled'}>Start the enrichment job</button>
      </form>`,
    session,
    [catalogCrumb(d.grid.catalog), html`<a href="${gridHref}">Items</a>`, html`<span>Bulk actions</span>`],
  );
}

/** The staging page of a bulk action while its workflow stages (reloaded every second by the page script). */
export function bulkStagingPage(grid: GridCatalog, activity: ReviewActivity, staged: number, session: PageSession): string {
  const matching = (activity.input_data as { bulk_action?: { matching?: number } } | null)?.bulk_action?.matching ?? 0;
  return layout(
    `Staging · ${grid.catalog.name}`,
    html`<h1>${activity.description ?? 'Bulk action'}</h1>
      <p id="bulk-staging" role="status">Staging the changes: ${staged} of ${matching}.</p>
      <progress id="bulk-staging-bar" max="${matching}" value="${staged}" aria-label="Changes staged"></progress>
      <p class="muted">This page opens the review page when every change is staged.</p>
      <p><a href="${DASHBOARD_BASE}/catalogs/${grid.catalog.id}/activities/${activity.id}">Review page</a></p>`,
    session,
    [catalogCrumb(grid.catalog), html`<span>Bulk actions</span>`],
    { refreshSeconds: 1 },
  );
}
