import type { Catalog } from '../models/catalog';
import type { ReviewActivity } from '../models/review-activity';
import type { StagedChange, StagedChangeStatus } from '../models/staged-change';
import type { ReviewActivityListEntry } from '../services/review/review-activities';
import { CONFIDENCE_LEVELS } from '../models/staged-change';
import type { ReviewActivityFilters, ReviewActivityPageData } from './data';
import { diffCells } from './diff';
import { html, safeUrl, type SafeHtml } from './html';
import { reviewActivityTitle, badge, catalogCrumb, DASHBOARD_BASE, layout, record, STATUS_ORDER, statusBadge, when, type PageSession } from './views';

/**
 * The review pages of the console (docs/console.md): a catalog's activities (the review queue) and an
 * activity's review page. Every value from the database or the request goes through
 * {@link html}, which escapes it; links to sources pass {@link safeUrl}. Buttons carry their
 * bulk-review request as JSON in `data-review` for the small script (assets/dashboard.js), which
 * sends it with the session's CSRF token.
 *
 * Vendor drafts (docs/review.md "Vendor drafts") stay out of these pages until submitted: the
 * reviewer shows them with the "Include drafts" toggle (`?drafts=1`, a link and a checkbox of
 * the filter form), and each one shown is marked as a draft and takes no review buttons (the
 * API refuses to review a draft).
 */

/**
 * The "Include drafts" toggle of a review page: a GET form with one labelled checkbox
 * (`drafts=1`) and its submit button, so it works without the page script and from the
 * keyboard. `hidden` carries the page's other query parameters along.
 */
function draftsToggle(action: string, included: boolean, hidden: Record<string, string> = {}): SafeHtml {
  return html`<form class="drafts-toggle" id="drafts-toggle" method="get" action="${action}">
    ${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <label><input type="checkbox" name="drafts" value="1" ${included ? html`checked` : ''} /> Include vendor drafts (not submitted yet)</label>
    <button type="submit" class="btn small">Show</button>
  </form>`;
}

/** The label a vendor draft (or an activity's drafts) carries when the console shows it: a badge that says "draft". */
function draftLabel(n?: number): SafeHtml {
  return badge(n === undefined ? 'draft · not submitted' : `${n} draft(s) · not submitted`, 'status-draft draft-label');
}

/**
 * The catalog page: its activities (newest first), each linking to its review page. Vendor
 * drafts are left out unless `includeDrafts` (the page's toggle); then each activity with drafts
 * says how many, and its link opens the review page with drafts shown.
 */
export function catalogPage(catalog: Catalog, activities: ReviewActivityListEntry[], total: number, includeDrafts: boolean, session: PageSession): string {
  const activityLink = (a: ReviewActivity) => `${DASHBOARD_BASE}/catalogs/${catalog.id}/activities/${a.id}${includeDrafts ? '?drafts=1' : ''}`;
  return layout(
    catalog.name,
    html`<h1>${catalog.name}</h1>
      <p class="muted">${catalog.item_count} items · catalog <code>${catalog.id}</code></p>
      <p class="catalog-links">
        <a href="${DASHBOARD_BASE}/catalogs/${catalog.id}/items">Items</a> · <a href="${DASHBOARD_BASE}/catalogs/${catalog.id}/completeness">Completeness</a> ·
        <a href="${DASHBOARD_BASE}/catalogs/${catalog.id}/snapshots">Snapshots</a> ·
        <a href="${DASHBOARD_BASE}/catalogs/${catalog.id}/schema">Schema and taxonomy</a> ·
        <a href="${DASHBOARD_BASE}/catalogs/${catalog.id}/feeds">Feeds</a>
      </p>
      <section class="card">
        <h2>Activities <span class="muted">(${total}${total > activities.length ? html`, newest ${activities.length} shown` : ''})</span></h2>
        ${draftsToggle(`${DASHBOARD_BASE}/catalogs/${catalog.id}`, includeDrafts)}
        ${
          activities.length
            ? html`<table class="list activities">
                <thead>
                  <tr>
                    <th>Activity</th>
                    <th>Type</th>
                    <th>Status</th>
                    <th class="num">Staged changes</th>
                    <th>Created</th>
                    <th>Updated</th>
                  </tr>
                </thead>
                <tbody>
                  ${activities.map(
                    ({ activity: a, stagedCount, draftCount }) =>
                      html`<tr data-activity-id="${a.id}">
                        <td><a href="${activityLink(a)}">${reviewActivityTitle(a)}</a></td>
                        <td>${a.type.replace(/_/g, ' ')}</td>
                        <td>${statusBadge(a.status)} ${includeDrafts && draftCount ? draftLabel(draftCount) : ''}</td>
                        <td class="num">${stagedCount}</td>
                        <td>${when(a.created_at)}</td>
                        <td>${when(a.updated_at)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted">No activities yet. Enrichment jobs that target this catalog and custom transforms appear here.</p>`
        }
      </section>`,
    session,
    [catalogCrumb(catalog)],
  );
}

/** The URL of the activity page with `filters` changed by `patch`. */
function pageUrl(catalogId: string, activityId: string, filters: ReviewActivityFilters, patch: Partial<ReviewActivityFilters>): string {
  const f = { ...filters, ...patch };
  const q = new URLSearchParams();
  if (f.status) q.set('status', f.status);
  if (f.include_drafts) q.set('drafts', '1');
  if (f.field) q.set('field', f.field);
  if (f.confidence) q.set('confidence', f.confidence);
  if (f.search_query) q.set('q', f.search_query);
  if (f.page > 1) q.set('page', String(f.page));
  const s = q.toString();
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/activities/${activityId}${s ? `?${s}` : ''}`;
}

/** The source URLs of one field: `source_data.sources[field]` and `review_info.sources[field]` (string, list, or `{url}` objects). */
function fieldSources(change: StagedChange, field: string): string[] {
  const urls: string[] = [];
  for (const holder of [record(change.source_data).sources, record(change.review_info).sources]) {
    const v = record(holder)[field];
    for (const s of Array.isArray(v) ? v : [v]) {
      const url = safeUrl(typeof s === 'object' && s !== null ? record(s).url : s);
      if (url && !urls.includes(url)) urls.push(url);
    }
  }
  return urls;
}

/**
 * A link to the page as it was seen when the value was read (its WARC record, served sandboxed by
 * `/dashboard/captures/{job_id}/{record_id}`), when the change's review info names one for `url`
 * (`review_info.source_captures`, docs/research.md); else nothing.
 */
function captureLink(change: StagedChange, url: string): ReturnType<typeof html> | string {
  const capture = record(record(change.review_info).source_captures)[url];
  if (typeof capture !== 'string' || !/^[0-9a-f-]{36}\/[0-9a-f-]{36}$/i.test(capture)) return '';
  return html` <a class="capture" href="${DASHBOARD_BASE}/captures/${capture}" target="_blank" rel="noopener noreferrer" title="The page as it was seen"
    >(captured)</a
  >`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

/** The fields a change shows: those whose after value differs from before (all after-fields of a new item). */
function changedFields(change: StagedChange): string[] {
  const before = record(change.before_data);
  const after = record(change.after_data);
  const keys = new Set([...Object.keys(after), ...(change.is_delete ? [] : Object.keys(before))]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

function reviewButton(label: string, body: Record<string, unknown>, kind: string, title: string, confirm?: string, disabled = false): SafeHtml {
  return html`<button
    type="button"
    class="btn small ${kind}"
    data-review="${JSON.stringify(body)}"
    title="${title}"
    ${confirm ? html`data-confirm="${confirm}"` : ''}
    ${disabled ? html`disabled` : ''}
  >
    ${label}
  </button>`;
}

/**
 * Whether an activity's changes still take reviews (docs/review.md: shells and activities pending
 * review; a completed one for the changes its apply left, which a further apply writes).
 */
function isOpen(a: ReviewActivity): boolean {
  return a.status === 'created' || a.status === 'pending_review' || a.status === 'completed';
}

/** A `category_id` value as the review shows it: the node's path with its id, or the value alone when no taxonomy knows it. */
function categoryLabel(value: unknown, paths: Record<string, string>): unknown {
  const path = typeof value === 'string' || typeof value === 'number' ? paths[String(value)] : undefined;
  return path ? `${path} (${String(value)})` : value;
}

/** The table rows of one staged change and its changed fields. Long on purpose: one HTML template, read top to bottom like the table. */
function changeRows(
  change: StagedChange,
  filters: ReviewActivityFilters,
  open: boolean,
  categoryPaths: Record<string, string> = {},
  actors: Record<string, string> = {},
): SafeHtml {
  const info = record(change.review_info);
  const confidence = record(info.field_confidence);
  const methods = record(info.field_methods);
  const explanations = record(record(change.source_data).source_explanations);
  const issues = Array.isArray(info.field_issues) ? info.field_issues.map(record) : [];
  const fields = changedFields(change);
  const ordered = filters.field && fields.includes(filters.field) ? [filters.field, ...fields.filter((f) => f !== filters.field)] : fields;
  const before = record(change.before_data);
  const after = record(change.after_data);
  const accepted = change.accepted_fields ? new Set(change.accepted_fields) : null;
  const overall = typeof info.confidence === 'string' ? info.confidence : null;
  const item = change.is_delete
    ? html`${badge('delete', 'kind-delete')} item <code>${(change.catalog_item_id ?? '').slice(0, 8)}</code>`
    : change.is_new_item
      ? badge('new item', 'kind-new')
      : html`item <code title="${change.catalog_item_id ?? ''}">${(change.catalog_item_id ?? '').slice(0, 8)}</code>`;
  // Errors are never approvable; a vendor draft is not reviewable until submitted (the API answers 409);
  // a completed or cancelled activity takes no more reviews.
  const draft = change.status === 'draft';
  const reviewable = open && change.status !== 'error' && !draft && !change.applied_at;
  const head = html`<tr class="change-head">
    <th colspan="6">
      <div class="change-head-row">
        <span class="row-index">#${change.row_index + 1}</span>
        ${item} ${draft ? draftLabel() : statusBadge(change.status)} ${change.applied_at ? badge('applied', 'status-completed') : ''}
        ${draft ? html`<span class="reason draft-note">The vendor has not submitted this change: it cannot be reviewed yet.</span>` : ''}
        ${overall ? badge(`${overall} confidence`, `conf-${overall}`) : ''}
        ${change.error_reason ? html`<span class="reason error-text">${change.error_reason}</span>` : ''}
        ${change.rejection_reason ? html`<span class="reason">Rejected: ${change.rejection_reason}</span>` : ''}
        ${change.decided_by ? html`<span class="decided-by muted">decided by ${actors[change.decided_by] ?? change.decided_by}</span>` : ''}
        <span class="spacer"></span>
        ${
          reviewable
            ? html`${reviewButton('Approve change', { action: 'approve', change_ids: [change.id] }, 'approve', 'Approve every field of this change')}
              ${reviewButton('Reject change', { action: 'reject', change_ids: [change.id] }, 'reject', 'Reject this whole change')}`
            : ''
        }
      </div>
    </th>
  </tr>`;
  const rows = ordered.map((field) => {
    // A category change reads as the node's path ("Home & Garden > Kitchen > Cookware"), not just its id.
    const cells =
      field === 'category_id'
        ? diffCells(categoryLabel(before[field], categoryPaths), categoryLabel(after[field], categoryPaths))
        : diffCells(before[field], after[field]);
    const urls = fieldSources(change, field);
    const c = typeof confidence[field] === 'string' ? String(confidence[field]) : null;
    const m = typeof methods[field] === 'string' ? String(methods[field]) : null;
    const explanation = typeof explanations[field] === 'string' ? String(explanations[field]) : '';
    const fieldIssues = issues.filter((i) => i.field === field).map((i) => String(i.message ?? ''));
    const isAccepted = accepted?.has(field) ?? false;
    const isDropped = accepted !== null && !isAccepted;
    return html`<tr class="field-row${filters.field === field ? ' focus' : ''}${isDropped ? ' dropped' : ''}" data-field="${field}">
      <td class="field-name"><code>${field}</code>${isAccepted ? badge('accepted', 'status-approved') : ''}</td>
      <td class="before">${cells.before}</td>
      <td class="after">${cells.after}</td>
      <td class="badges">${c ? badge(c, `conf-${c}`) : ''}${m ? badge(m, 'method') : ''}</td>
      <td class="sources">
        ${urls.slice(0, 4).map((u) => html`<a href="${u}" target="_blank" rel="noopener noreferrer nofollow" title="${u}">${hostOf(u)}</a>${captureLink(change, u)}`)}${
          explanation ? html`<div class="explanation">${explanation}</div>` : ''
        }${fieldIssues.map((msg) => html`<div class="issue">⚠ ${msg}</div>`)}
      </td>
      <td class="actions">
        ${
          reviewable
            ? html`${reviewButton('✓', { action: 'approve', change_ids: [change.id], field_names: [field] }, 'approve icon', `Approve only ${field}`)}${reviewButton(
                '✗',
                { action: 'reject', change_ids: [change.id], field_names: [field] },
                'reject icon',
                `Reject ${field}`,
              )}`
            : ''
        }
      </td>
    </tr>`;
  });
  const empty = change.is_delete
    ? html`<tr class="field-row">
        <td colspan="6" class="muted">Deletes the item.</td>
      </tr>`
    : html`<tr class="field-row">
        <td colspan="6" class="muted">No field differs from the catalog.</td>
      </tr>`;
  return html`<tbody class="change${draft ? ' draft' : ''}" data-change-id="${change.id}" data-status="${change.status}">
    ${head}${rows.length ? rows : empty}
  </tbody>`;
}

/** The restores of the activity's pre-apply snapshots (docs/review.md, "Apply"), newest first. */
function restoreList(d: ReviewActivityPageData): SafeHtml | string {
  if (!d.restores.length) return '';
  return html`<ul class="restores" id="apply-restores">
    ${d.restores.map(
      (r) =>
        html`<li>
          ${badge('restored', 'status-rejected')} Pre-apply snapshot <code>${r.snapshot_id}</code> restored ${when(r.restored_at)} by
          <span class="restored-by" title="${r.restored_by}">${d.actors[r.restored_by] ?? r.restored_by}</span>: the catalog is back as it was before that apply
          (safety snapshot <code>${r.safety_snapshot_id}</code> holds the state it replaced).
        </li>`,
    )}
  </ul>`;
}

function applyPanel(d: ReviewActivityPageData): SafeHtml {
  const a = d.activity;
  const result = record(a.apply_result);
  const progress = record(a.apply_progress);
  const snapshotId = typeof result.pre_apply_snapshot_id === 'string' ? result.pre_apply_snapshot_id : null;
  // apply_progress.phase (src/services/review/apply.ts): queued → applying → completed | failed.
  const running = a.status === 'pending_review' && (progress.phase === 'queued' || progress.phase === 'applying');
  const canApply = isOpen(a) && a.status !== 'created' && d.toApply > 0 && !running;
  const errors = Array.isArray(result.errors) ? result.errors.map(record) : [];
  return html`<section class="card apply" id="apply-panel" data-status="${a.status}">
    <h2>Apply</h2>
    <p class="muted">
      ${
        a.status === 'completed'
          ? html`Applied to the catalog. Restoring the <em>pre-apply</em> snapshot undoes it.
              ${d.toApply > 0 ? html`${d.toApply} approved change(s) reviewed since can be applied by a further apply.` : ''}`
          : isOpen(a)
            ? html`${d.toApply} approved or partially accepted change(s) will be written to the catalog in one transaction, after a
                <em>pre-apply</em> snapshot.`
            : html`This activity is ${a.status.replace(/_/g, ' ')}: nothing can be applied.`
      }
    </p>
    ${
      isOpen(a)
        ? html`<button type="button" class="btn primary" id="apply-button" ${canApply ? '' : html`disabled`}>
              ${a.status === 'completed' ? 'Apply the newly approved changes' : 'Apply approved changes'}
            </button>
            <label class="force"><input type="checkbox" id="apply-force" /> force (apply over items changed since)</label>`
        : ''
    }
    ${a.applied_by ? html`<p class="applied-by muted">Apply requested by ${d.actors[a.applied_by] ?? a.applied_by}</p>` : ''}
    <div id="apply-status" class="apply-status" aria-live="polite">
      ${
        running
          ? html`Applying: ${String(progress.phase)}`
          : progress.phase === 'failed' && a.status !== 'completed'
            ? html`<span class="fail">Apply failed: ${String(progress.error ?? 'unknown error')}. Nothing was applied.</span>`
            : ''
      }
    </div>
    <div id="apply-result" class="apply-result">
      ${
        a.apply_result
          ? html`<strong>Applied ${String(result.applied ?? 0)}</strong> · skipped conflicts ${String(result.skipped_conflicts ?? 0)} · failed
              ${String(result.failed ?? 0)}${
                snapshotId
                  ? html` · pre-apply snapshot
                      <a href="/api/public/catalogs/${d.catalog.id}/snapshots" title="Snapshots of this catalog (restore it to undo)"
                        ><code>${snapshotId}</code></a
                      >`
                  : ''
              }${
                errors.length
                  ? html`<ul class="apply-errors">
                      ${errors.map((e) => html`<li>#${Number(e.row_index) + 1}: ${String(e.reason ?? '')}</li>`)}
                    </ul>`
                  : ''
              }`
          : ''
      }
    </div>
    ${restoreList(d)}
  </section>`;
}

/** Which statuses the summary counts: `draft` only when the page shows drafts. */
function shownStatuses(filters: ReviewActivityFilters): StagedChangeStatus[] {
  return filters.include_drafts ? STATUS_ORDER : STATUS_ORDER.filter((s) => s !== 'draft');
}

/** The note on hidden vendor drafts, with the link that shows (or hides) them. */
function draftsNote(d: ReviewActivityPageData, filters: ReviewActivityFilters): SafeHtml | string {
  if (filters.include_drafts)
    return html`<p class="drafts-note" id="drafts-note">
      Showing ${d.draftCount} vendor draft(s) (not submitted yet: they cannot be reviewed).
      <a href="${pageUrl(d.catalog.id, d.activity.id, filters, { include_drafts: false, status: undefined, page: 1 })}">Hide drafts</a>
    </p>`;
  if (!d.draftCount) return '';
  return html`<p class="drafts-note" id="drafts-note">
    ${d.draftCount} vendor draft(s) hidden until submitted.
    <a href="${pageUrl(d.catalog.id, d.activity.id, filters, { include_drafts: true, page: 1 })}">Show drafts</a>
  </p>`;
}

function summaryPanel(d: ReviewActivityPageData, filters: ReviewActivityFilters): SafeHtml {
  const total = Object.values(d.byStatus).reduce((a, n) => a + n, 0);
  return html`<section class="card summary">
    <h2>Summary</h2>
    <div class="counts">
      <a class="count${filters.status ? '' : ' active'}" href="${pageUrl(d.catalog.id, d.activity.id, filters, { status: undefined, page: 1 })}"
        ><span class="n">${total}</span><span>all</span></a
      >
      ${shownStatuses(filters).map(
        (st) =>
          html`<a
            class="count status-${st}${filters.status === st ? ' active' : ''}"
            href="${pageUrl(d.catalog.id, d.activity.id, filters, { status: st, page: 1 })}"
            ><span class="n">${d.byStatus[st] ?? 0}</span><span>${st.replace(/_/g, ' ')}</span></a
          >`,
      )}
    </div>
    ${draftsNote(d, filters)}
    <div
      id="field-completion"
      class="field-completion"
      data-summary-url="/api/activities/${d.activity.id}/staged-changes/summary?include_drafts=${filters.include_drafts ? 'true' : 'false'}"
    >
      <p class="muted">Loading per-field completion…</p>
    </div>
  </section>`;
}

function option(value: string, label: string, selected: string | undefined): SafeHtml {
  return html`<option value="${value}" ${value === (selected ?? '') ? html` selected` : ''}>${label}</option>`;
}

function filterBar(d: ReviewActivityPageData, filters: ReviewActivityFilters): SafeHtml {
  const fields = d.fields;
  const filter: Record<string, string | boolean> = {};
  if (filters.status) filter.status = filters.status;
  if (filters.field) filter.field = filters.field;
  if (filters.confidence) filter.confidence = filters.confidence;
  if (filters.search_query) filter.search_query = filters.search_query;
  return html`<form class="filters card" method="get" action="${pageUrl(d.catalog.id, d.activity.id, { page: 1 }, {})}">
    <label
      >Status
      <select name="status">
        ${option('', 'any', filters.status)}${shownStatuses(filters).map((s) => option(s, s.replace(/_/g, ' '), filters.status))}
      </select></label
    >
    <label class="drafts-check"><input type="checkbox" name="drafts" value="1" ${filters.include_drafts ? html`checked` : ''} /> Include drafts</label>
    <label
      >Field
      <select name="field">
        ${option('', 'any', filters.field)}${fields.map((f) => option(f, f, filters.field))}
      </select></label
    >
    <label
      >Confidence
      <select name="confidence">
        ${option('', 'any', filters.confidence)}${CONFIDENCE_LEVELS.map((c) => option(c, c, filters.confidence))}
      </select></label
    >
    <label class="grow">Text <input type="search" name="q" value="${filters.search_query ?? ''}" placeholder="Search before / after values" /></label>
    <button type="submit" class="btn">Filter</button>
    <a class="btn ghost" href="${pageUrl(d.catalog.id, d.activity.id, { page: 1 }, {})}">Clear</a>
    <span class="spacer"></span>
    ${isOpen(d.activity) && filters.status !== 'draft' ? bulkButtons(d, filters, filter) : ''}
  </form>`;
}

/**
 * "Approve all" / "Reject all" over the filter, each saying how many changes it will change:
 * the undecided ones (docs/review.md, "Decisions stand": a reviewer's decision is never overridden by a bulk
 * action), or those of the status the filter names; its confirmation repeats the number. They
 * never touch a vendor draft, shown or not (the filter they send leaves `include_drafts` out),
 * and a page filtered to drafts has none.
 */
function bulkButtons(d: ReviewActivityPageData, filters: ReviewActivityFilters, filter: Record<string, string | boolean>): SafeHtml {
  const which = filters.status ? `${filters.status.replace(/_/g, ' ')}` : 'undecided';
  const button = (action: 'approve_all' | 'reject_all', verb: string, kind: string) => {
    const n = d.bulkCounts[action];
    return reviewButton(
      `${verb} ${n} ${which}`,
      { action, filter },
      `${kind} bulk`,
      `${verb} the ${n} ${which} change(s) matching the filter; changes already decided are left as they are`,
      `${verb} ${n} ${which} change(s) matching the filter? Changes already approved, rejected or partially accepted are left as they are.`,
      n === 0,
    );
  };
  return html`<span class="bulk-actions" id="bulk-actions">${button('approve_all', 'Approve', 'approve')} ${button('reject_all', 'Reject', 'reject')}</span>`;
}

function pager(d: ReviewActivityPageData, filters: ReviewActivityFilters): SafeHtml {
  const prev =
    filters.page > 1
      ? html`<a class="btn small" rel="prev" href="${pageUrl(d.catalog.id, d.activity.id, filters, { page: filters.page - 1 })}">← Previous</a>`
      : '';
  const next =
    filters.page < d.totalPages
      ? html`<a class="btn small" rel="next" href="${pageUrl(d.catalog.id, d.activity.id, filters, { page: filters.page + 1 })}">Next →</a>`
      : '';
  return html`<nav class="pager">${prev}<span>Page ${filters.page} of ${Math.max(d.totalPages, 1)} · ${d.total} change(s)</span>${next}</nav>`;
}

/** The activity page: summary, apply panel, filters, the page of staged changes with review buttons. */
export function reviewActivityPage(d: ReviewActivityPageData, filters: ReviewActivityFilters, session: PageSession): string {
  const a = d.activity;
  const message = a.last_message ?? (typeof record(a.input_data).activity_message === 'string' ? String(record(a.input_data).activity_message) : null);
  return layout(
    reviewActivityTitle(a),
    html`<div id="activity" data-activity-id="${a.id}" data-catalog-id="${d.catalog.id}">
      <div class="title-row">
        <h1>${reviewActivityTitle(a)}</h1>
        ${statusBadge(a.status)} ${badge(a.type.replace(/_/g, ' '), 'type')}
      </div>
      <p class="muted">
        ${d.stagedCount} staged change(s) · created ${when(a.created_at)} · updated ${when(a.updated_at)} · catalog
        <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}">${d.catalog.name}</a>
      </p>
      ${message ? html`<p class="message">${message}</p>` : ''}
      ${
        session.role === 'viewer' || session.role === 'editor'
          ? html`<p class="notice role-notice" role="note">
              You are signed in as ${session.role === 'viewer' ? 'a viewer' : 'an editor'}: you can read this review; approving, rejecting and applying need a
              reviewer.
            </p>`
          : ''
      }
      <div class="grid">${summaryPanel(d, filters)}${applyPanel(d)}</div>
      ${filterBar(d, filters)}
      <div id="review-message" class="review-message" aria-live="polite"></div>
      ${pager(d, filters)}
      <table class="changes">
        <colgroup>
          <col class="c-field" />
          <col class="c-before" />
          <col class="c-after" />
          <col class="c-badges" />
          <col class="c-sources" />
          <col class="c-actions" />
        </colgroup>
        <thead>
          <tr>
            <th>Field</th>
            <th>Before</th>
            <th>After</th>
            <th>Confidence · method</th>
            <th>Sources · explanation</th>
            <th></th>
          </tr>
        </thead>
        ${
          d.changes.length
            ? d.changes.map((c) => changeRows(c, filters, isOpen(d.activity), d.categoryPaths, d.actors))
            : html`<tbody>
                <tr>
                  <td colspan="6" class="muted">No staged changes match.</td>
                </tr>
              </tbody>`
        }
      </table>
      ${pager(d, filters)}
    </div>`,
    session,
    [catalogCrumb(d.catalog), html`<span>${reviewActivityTitle(a)}</span>`],
  );
}
