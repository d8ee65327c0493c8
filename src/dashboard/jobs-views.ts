import { IMPORT_CANCEL_KEEPS } from '../services/sheets/import';
import { OPERATION_KINDS, OPERATION_STATUSES, etaSeconds, type Operation, type OperationKind, type OperationStatus } from '../services/operations/operations';
import { html, type SafeHtml } from './html';
import { badge, DASHBOARD_BASE, layout, statusBadge, when, type PageSession } from './views';

/**
 * The jobs page: every enrichment job, import, apply, restore and export of the
 * organization with status, progress, ETA and errors (a CSV per row), filterable by kind and
 * status, paged; a running enrichment job or import has a Cancel button (the page script,
 * assets/jobs.js, posts the button's `data-cancel-url` — `POST /api/public/enrich/{id}/cancel`
 * or `POST /api/public/catalogs/{catalog_id}/items/import/{id}/cancel` — with the CSRF token);
 * a running apply or restore says why it has none and how it is undone. While a
 * listed operation runs the page script reloads the page every few seconds (not while a cancel
 * is being sent).
 */

/** The jobs page's filters, as in its query string. */
export interface JobsFilters {
  kind?: OperationKind;
  status?: OperationStatus;
  page: number;
}

/** Seconds between reloads of a page that lists running operations. */
const JOBS_REFRESH_SECONDS = 3;

/** The URL of the jobs page under `filters`. */
export function jobsUrl(filters: Partial<JobsFilters>): string {
  const q = new URLSearchParams();
  if (filters.kind) q.set('kind', filters.kind);
  if (filters.status) q.set('status', filters.status);
  if (filters.page && filters.page > 1) q.set('page', String(filters.page));
  const s = q.toString();
  return `${DASHBOARD_BASE}/jobs${s ? `?${s}` : ''}`;
}

/** A duration in seconds as `1 h 5 min`, `3 min 20 s` or `12 s`. */
function duration(seconds: number): string {
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${seconds} s`;
}

/** How an operation's kind reads on a page. */
function kindLabel(op: Operation): string {
  if (op.kind === 'import') return op.dry_run ? 'import (dry run)' : 'import';
  return op.kind;
}

/**
 * Where an operation's row links: an enrichment job's or apply's review page, an import's report,
 * a restore's progress page; an export links to the catalog's grid (the file itself was streamed).
 */
export function operationLink(op: Operation): string | null {
  if (!op.catalog_id) return null;
  const catalog = `${DASHBOARD_BASE}/catalogs/${op.catalog_id}`;
  if (op.kind === 'enrichment' || op.kind === 'apply') return `${catalog}/activities/${op.id}`;
  if (op.kind === 'import') return `${catalog}/import?import_id=${op.id}`;
  if (op.kind === 'restore') return `${catalog}/snapshots/restores/${op.id}`;
  return `${catalog}/items`;
}

/** The operation's name on a page: its kind and short id, or the import's or export's file. */
function operationName(op: Operation): string {
  if ((op.kind === 'import' || op.kind === 'export') && op.detail) return `${op.kind === 'export' ? 'export ' : ''}${op.detail}`;
  return `${op.kind} ${op.id.slice(0, 8)}`;
}

/** Progress text: `done / total (pct %)`, or nothing for operations without units. */
function progressCell(op: Operation): SafeHtml | string {
  if (op.total === null || op.done === null) return '';
  const pct = op.total ? Math.floor((op.done / op.total) * 100) : 100;
  return html`<progress max="${op.total || 1}" value="${op.done}" aria-label="${`${operationName(op)}: ${op.done} of ${op.total}`}"></progress>
    <span class="progress-text">${op.done} / ${op.total} (${pct}%)</span>`;
}

/** What Cancel keeps, said by the button and its confirmation (docs/api-enrichment.md "Enrichment jobs", enrichment job states). */
const CANCEL_KEEPS =
  'Cancel stops the job: items not enriched yet are not processed; results already produced stay (and their staged changes stay reviewable); credits are charged for those items only.';

/** Why a running apply or restore has no Cancel, and how it is undone. */
const NOT_CANCELLABLE: Partial<Record<OperationKind, string>> = {
  apply: 'An apply is one transaction: it cannot be cancelled. Once it has run, restoring its pre_apply snapshot undoes it.',
  restore: 'A restore is one transaction: it cannot be cancelled. Once it has run, restoring its safety snapshot undoes it.',
};

/** The API route that cancels a running operation, with what cancel keeps; null when it cannot be cancelled. */
function cancelOf(op: Operation): { url: string; keeps: string } | null {
  if (op.status !== 'running') return null;
  if (op.kind === 'enrichment') return { url: `/api/public/enrich/${op.id}/cancel`, keeps: CANCEL_KEEPS };
  if (op.kind === 'import' && op.catalog_id) return { url: `/api/public/catalogs/${op.catalog_id}/items/import/${op.id}/cancel`, keeps: IMPORT_CANCEL_KEEPS };
  return null;
}

/** The row's actions: errors CSV; Cancel (running enrichment jobs and imports), or why a running apply or restore has none. */
function actionsCell(op: Operation): SafeHtml {
  const cancel = cancelOf(op);
  const why = op.status === 'running' ? NOT_CANCELLABLE[op.kind] : undefined;
  return html`${
    op.errors > 0
      ? html`<a class="btn small" href="${DASHBOARD_BASE}/jobs/${op.kind}/${op.id}/errors.csv" download
          >Errors CSV<span class="visually-hidden"> of ${operationName(op)}</span></a
        >`
      : ''
  }
  ${
    cancel
      ? html`<button
          type="button"
          class="btn small reject"
          data-cancel-url="${cancel.url}"
          data-confirm="${`Cancel ${operationName(op)}? ${cancel.keeps}`}"
          title="${cancel.keeps}"
          aria-label="${`Cancel ${operationName(op)}`}"
        >
          Cancel
        </button>`
      : ''
  }${why ? html`<span class="muted small not-cancellable">${why}</span>` : ''}`;
}

/** One operation as a table row (the jobs page; `compact` for the home page: no actions). */
export function operationRow(op: Operation, now: number, compact = false): SafeHtml {
  const link = operationLink(op);
  const eta = etaSeconds(op, now);
  return html`<tr data-kind="${op.kind}" data-id="${op.id}" data-status="${op.status}">
    <td>${link ? html`<a href="${link}">${operationName(op)}</a>` : operationName(op)}</td>
    <td>${badge(kindLabel(op), 'type')}</td>
    <td>
      ${op.catalog_id ? html`<a href="${DASHBOARD_BASE}/catalogs/${op.catalog_id}">${op.catalog_name ?? op.catalog_id}</a>` : html`<span class="muted">none</span>`}
    </td>
    <td>${statusBadge(op.status)}</td>
    <td class="progress-cell">${progressCell(op)}</td>
    ${compact ? '' : html`<td>${eta === null ? '' : duration(eta)}</td>`}
    <td class="num">
      ${op.errors ? html`<span class="error-text">${op.errors}</span>` : '0'}${op.error ? html`<div class="error-text small">${op.error}</div>` : ''}
    </td>
    <td>${when(op.created_at)}</td>
    ${compact ? '' : html`<td class="actions">${actionsCell(op)}</td>`}
  </tr>`;
}

/** The table of operations (jobs page, or `compact` on the home page). */
export function operationTable(ops: Operation[], now: number, compact = false): SafeHtml {
  return html`<table class="list operations">
    <thead>
      <tr>
        <th scope="col">Operation</th>
        <th scope="col">Kind</th>
        <th scope="col">Catalog</th>
        <th scope="col">Status</th>
        <th scope="col">Progress</th>
        ${compact ? '' : html`<th scope="col">ETA</th>`}
        <th scope="col" class="num">Errors</th>
        <th scope="col">Started</th>
        ${compact ? '' : html`<th scope="col"><span class="visually-hidden">Actions</span></th>`}
      </tr>
    </thead>
    <tbody>
      ${ops.map((op) => operationRow(op, now, compact))}
    </tbody>
  </table>`;
}

function option(value: string, label: string, selected: string | undefined): SafeHtml {
  return html`<option value="${value}" ${value === (selected ?? '') ? html` selected` : ''}>${label}</option>`;
}

/** The jobs page (see the module comment). `now`: ms since the epoch, for the ETAs. */
export function jobsPage(ops: Operation[], total: number, pageSize: number, filters: JobsFilters, session: PageSession, now: number): string {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const running = ops.some((op) => op.status === 'running');
  return layout(
    'Jobs',
    html`<h1>Jobs</h1>
      <p class="muted">
        Enrichment jobs, imports, applies, restores and exports of this organization, newest first. A running enrichment job or import can be cancelled (what it
        keeps is said before it is sent); an apply or a restore is one transaction and runs to its end (its snapshot undoes it).
      </p>
      <form class="filters card" method="get" action="${DASHBOARD_BASE}/jobs">
        <label
          >Kind
          <select name="kind">
            ${option('', 'any', filters.kind)}${OPERATION_KINDS.map((k) => option(k, k, filters.kind))}
          </select></label
        >
        <label
          >Status
          <select name="status">
            ${option('', 'any', filters.status)}${OPERATION_STATUSES.map((s) => option(s, s, filters.status))}
          </select></label
        >
        <button type="submit" class="btn">Filter</button>
        <a class="btn ghost" href="${DASHBOARD_BASE}/jobs">Clear</a>
      </form>
      <div id="jobs-message" class="review-message" role="status" aria-live="polite"></div>
      <section class="card" id="jobs" data-refresh-seconds="${running ? JOBS_REFRESH_SECONDS : 0}">
        ${ops.length ? operationTable(ops, now) : html`<p class="muted">No operations match.</p>`}
        <nav class="pager" aria-label="Pages">
          ${filters.page > 1 ? html`<a class="btn small" rel="prev" href="${jobsUrl({ ...filters, page: filters.page - 1 })}">← Previous</a>` : ''}
          <span>Page ${filters.page} of ${pages} · ${total} operation(s)</span>
          ${filters.page < pages ? html`<a class="btn small" rel="next" href="${jobsUrl({ ...filters, page: filters.page + 1 })}">Next →</a>` : ''}
        </nav>
      </section>`,
    session,
    [html`<a href="${DASHBOARD_BASE}/jobs">Jobs</a>`],
    { scripts: ['jobs.js'] },
  );
}
