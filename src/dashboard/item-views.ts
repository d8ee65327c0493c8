import type { ValidationDetail } from '../lib/errors';
import { gtinProblem } from '../services/channels/gtin-field';
import type { AppliedItemChange, ItemSnapshotVersion } from '../services/review/item-history';
import { diffCells, displayValue } from './diff';
import { html, safeUrl, type SafeHtml } from './html';
import type { ItemField, ItemPageData } from './item-data';
import { badge, catalogCrumb, DASHBOARD_BASE, layout, record, when, type PageSession } from './views';

/**
 * The console's item page: the item's fields grouped by scope (product / variant),
 * each value with its provenance; an inline edit per field (a form: the edit is staged as a
 * review activity with one change, applied from its review page, so it is undoable); the item's
 * history (applied changes and snapshot versions as diffs) with "restore this version", which
 * stages the old values the same way. Plain forms with the CSRF token: no script needed.
 */

/** What the page says after an action, or the problems of a refused edit. */
export interface ItemPageNotice {
  /** The activity an edit or restore was staged as. */
  stagedActivityId?: string;
  /** Problems of a refused edit (422). */
  errors?: ValidationDetail[];
}

/** The item page's own URL. */
export function itemPath(catalogId: string, itemId: string): string {
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/items/${itemId}`;
}

/** How an item is named: its title or name, else its business key, else its short id. */
function itemTitle(d: ItemPageData): string {
  const data = record(d.item.data);
  for (const k of ['title', 'name', 'product_name']) if (typeof data[k] === 'string' && data[k]) return String(data[k]);
  return d.item.business_key ?? `Item ${d.item.id.slice(0, 8)}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

/** A value as an edit box shows it: strings as they are, other values as JSON, nothing for none. */
function editText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The provenance cell of a field: confidence, method, sources (with captured pages), who and when. */
function provenanceCell(d: ItemPageData, f: ItemField): SafeHtml {
  const p = f.provenance;
  if (!p) return html`<span class="muted">Written directly (import or API) · item updated ${when(d.item.updated_at)}</span>`;
  const c = p.change;
  const who =
    (p.edited_by ? (d.actors[p.edited_by] ?? p.edited_by) : null) ??
    (c.activity_type === 'enrichment' ? `enrichment job ${c.activity_id.slice(0, 8)}` : c.activity_type.replace(/_/g, ' '));
  return html`${p.confidence ? badge(p.confidence, `conf-${p.confidence}`) : ''}${p.method ? badge(p.method, 'method') : ''}
    ${p.sources.map((u) => {
      const url = safeUrl(u);
      if (!url) return '';
      const capture = p.captures[u];
      return html`<a href="${url}" target="_blank" rel="noopener noreferrer nofollow" title="${url}">${hostOf(url)}</a>${
          capture && /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/i.test(capture)
            ? html` <a class="capture" href="${DASHBOARD_BASE}/captures/${capture}" target="_blank" rel="noopener noreferrer" title="The page as it was seen"
                >(captured)</a
              >`
            : ''
        } `;
    })}
    <div class="provenance-by">
      Set by <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/activities/${c.activity_id}">${c.activity_description || who}</a> · ${who} · applied
      ${when(c.applied_at)}
    </div>`;
}

/** The inline edit of one field: a disclosure with the new value's box, labelled, and the CSRF token. */
function editForm(d: ItemPageData, f: ItemField, session: PageSession): SafeHtml {
  const id = `edit-${f.name}`;
  const container = f.type === 'array' || f.type === 'object';
  const hint = container ? 'JSON' : f.type === 'boolean' ? 'true or false' : (f.type ?? 'text');
  return html`<details class="edit">
    <summary>Edit <span class="visually-hidden">${f.name}</span></summary>
    <form method="post" action="${itemPath(d.catalog.id, d.item.id)}/edits" class="edit-form">
      <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
      <input type="hidden" name="field" value="${f.name}" />
      <label for="${id}">New value of ${f.name} <span class="muted">(${hint}${f.unit ? `, ${f.unit}` : ''}; empty clears it)</span></label>
      ${
        container || editText(f.value).length > 80
          ? html`<textarea id="${id}" name="value" rows="3">${editText(f.value)}</textarea>`
          : html`<input id="${id}" name="value" type="text" value="${editText(f.value)}" />`
      }
      <button type="submit" class="btn small primary">Stage edit</button>
    </form>
  </details>`;
}

/** The warning beside the GTIN field's value when it is not a usable GTIN (docs/console.md "GTIN flags"). */
function gtinWarning(d: ItemPageData, f: ItemField): SafeHtml | string {
  const problem = f.name === d.gtinField ? gtinProblem(f.value) : null;
  if (!problem) return '';
  return html`<p class="gtin-warning" id="gtin-warning" data-gtin-issue="${problem.code}">
    ⚠ ${problem.message} (<code>${problem.code}</code>): channel feeds leave this item out.
  </p>`;
}

function fieldRows(d: ItemPageData, fields: ItemField[], session: PageSession): SafeHtml {
  return html`${fields.map(
    (f) =>
      html`<tr data-field="${f.name}">
        <th scope="row" class="field-name">
          <code>${f.name}</code>${f.required ? badge('required', 'type') : ''}
          <div class="muted small">${f.type ?? 'not in schema'}${f.unit ? html` · ${f.unit}` : ''}</div>
        </th>
        <td class="value">
          ${f.value === undefined || f.value === null ? html`<span class="empty">(empty)</span>` : displayValue(f.value)}${gtinWarning(d, f)}
        </td>
        <td class="provenance">${provenanceCell(d, f)}</td>
        <td class="actions">${editForm(d, f, session)}</td>
      </tr>`,
  )}`;
}

/** The field groups: product-level, shared (both), variant-level, not in the schema. */
function fieldGroups(d: ItemPageData, session: PageSession): SafeHtml {
  const groups: Array<[string, ItemField[]]> = [
    ['Product fields', d.fields.filter((f) => f.scope === 'product')],
    ['Product and variant fields', d.fields.filter((f) => f.scope === 'both')],
    ['Variant fields', d.fields.filter((f) => f.scope === 'variant')],
    ['Fields not in the schema', d.fields.filter((f) => f.scope === null)],
  ];
  return html`${groups
    .filter(([, fs]) => fs.length)
    .map(
      ([title, fs]) =>
        html`<section class="card field-group" aria-label="${title}">
          <h2>${title}</h2>
          <table class="list item-fields">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Value</th>
                <th scope="col">Provenance</th>
                <th scope="col"><span class="visually-hidden">Edit</span></th>
              </tr>
            </thead>
            <tbody>
              ${fieldRows(d, fs, session)}
            </tbody>
          </table>
        </section>`,
    )}`;
}

/** The rows of a diff between two data objects: the fields that differ. */
function diffRows(before: Record<string, unknown>, after: Record<string, unknown>, fields?: string[]): SafeHtml {
  const keys = fields ?? [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const differing = keys.filter((k) => !k.startsWith('__') && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  if (!differing.length)
    return html`<tr>
      <td colspan="3" class="muted">No field differs.</td>
    </tr>`;
  return html`${differing.map((k) => {
    const cells = diffCells(before[k], after[k]);
    return html`<tr data-field="${k}">
      <th scope="row"><code>${k}</code></th>
      <td class="before">${cells.before}</td>
      <td class="after">${cells.after}</td>
    </tr>`;
  })}`;
}

function diffTable(caption: string, rows: SafeHtml): SafeHtml {
  return html`<table class="list diff">
    <caption class="visually-hidden">
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Field</th>
        <th scope="col">Before</th>
        <th scope="col">After</th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function restoreForm(d: ItemPageData, kind: 'change' | 'snapshot', id: string, label: string, session: PageSession): SafeHtml {
  return html`<form method="post" action="${itemPath(d.catalog.id, d.item.id)}/restores" class="inline-form">
    <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
    <input type="hidden" name="kind" value="${kind}" />
    <input type="hidden" name="id" value="${id}" />
    <button type="submit" class="btn small">${label}</button>
  </form>`;
}

/** The fields an applied change wrote (accepted ones only for a partial accept). */
function writtenFields(c: AppliedItemChange): string[] {
  const before = record(c.before_data);
  const after = record(c.after_data);
  const keys = [...new Set([...Object.keys(after), ...Object.keys(before)])].filter((k) => !k.startsWith('__'));
  return keys.filter((k) => (!c.accepted_fields || c.accepted_fields.includes(k)) && JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

function changeEntry(d: ItemPageData, c: AppliedItemChange, session: PageSession): SafeHtml {
  const by = typeof record(c.review_info).edited_by === 'string' ? String(record(c.review_info).edited_by) : null;
  return html`<li class="history-entry" data-change-id="${c.id}">
    <div class="history-head">
      ${badge('applied change', 'status-approved')} <strong>${when(c.applied_at)}</strong> ·
      <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/activities/${c.activity_id}">${c.activity_description || c.activity_type.replace(/_/g, ' ')}</a>
      ${by ? html` · edited by ${d.actors[by] ?? by}` : ''} ${c.decided_by ? html` · approved by ${d.actors[c.decided_by] ?? c.decided_by}` : ''}
      <span class="spacer"></span>
      ${restoreForm(d, 'change', c.id, 'Restore the values before this change', session)}
    </div>
    ${diffTable(`Change applied ${when(c.applied_at)}`, diffRows(record(c.before_data), record(c.after_data), writtenFields(c)))}
  </li>`;
}

function versionEntry(d: ItemPageData, v: ItemSnapshotVersion, session: PageSession): SafeHtml {
  return html`<li class="history-entry" data-snapshot-id="${v.snapshot_id}">
    <div class="history-head">
      ${badge(`${v.snapshot_type.replace(/_/g, '-')} snapshot`, 'type')} <strong>${when(v.snapshot_created_at)}</strong> · version ${v.current_version}
      ${v.reason ? html` · ${v.reason}` : ''}
      <span class="spacer"></span>
      ${restoreForm(d, 'snapshot', v.snapshot_id, 'Restore this version', session)}
    </div>
    ${diffTable(`This version compared with now`, diffRows(record(v.data), record(d.item.data)))}
    <p class="muted small">Before: the item in this snapshot · After: the item now.</p>
  </li>`;
}

/** The history: applied changes and snapshot versions, newest first. */
function historySection(d: ItemPageData, session: PageSession): SafeHtml {
  const entries = [
    ...d.changes.map((c) => ({ at: new Date(c.applied_at).getTime(), body: changeEntry(d, c, session) })),
    ...d.versions.map((v) => ({ at: new Date(v.snapshot_created_at).getTime(), body: versionEntry(d, v, session) })),
  ].sort((a, b) => b.at - a.at);
  return html`<section class="card" aria-labelledby="history-heading" id="history">
    <h2 id="history-heading">History</h2>
    <p class="muted">
      Changes applied to this item and the item as the catalog's snapshots hold it. Restoring stages the old values as a new change to review and apply.
    </p>
    ${
      entries.length
        ? html`<ol class="history">
            ${entries.map((e) => e.body)}
          </ol>`
        : html`<p class="muted">No applied change and no snapshot yet.</p>`
    }
  </section>`;
}

function noticeBox(d: ItemPageData, notice: ItemPageNotice): SafeHtml | string {
  if (notice.errors?.length)
    return html`<div class="alert" role="alert" id="item-notice">
      Not staged: ${notice.errors.map((e) => html`<div>${String(e.loc[e.loc.length - 1] ?? '')}: ${e.msg}</div>`)}
    </div>`;
  if (notice.stagedActivityId)
    return html`<p class="notice ok" role="status" id="item-notice">
      Staged for review.
      <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/activities/${notice.stagedActivityId}">Review and apply the change</a>: the item changes once it is
      approved and applied (after a pre-apply snapshot, so it can be undone).
    </p>`;
  return '';
}

/** The item page. */
export function itemPage(d: ItemPageData, notice: ItemPageNotice, session: PageSession): string {
  const title = itemTitle(d);
  return layout(
    title,
    html`<div id="item" data-item-id="${d.item.id}" data-catalog-id="${d.catalog.id}">
      <div class="title-row">
        <h1>${title}</h1>
        ${badge(d.item.entity_type, 'type')}
      </div>
      <p class="muted">
        ${d.item.business_key ? html`<code>${d.item.business_key}</code> · ` : ''}item <code>${d.item.id}</code> · version ${d.item.current_version} · updated
        ${when(d.item.updated_at)} · schema ${d.schemaVersion}
        ${d.parent ? html` · variant of <a href="${itemPath(d.catalog.id, d.parent.id)}">${d.parent.business_key ?? d.parent.id}</a>` : ''}
      </p>
      <p>
        <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/items">All items</a> ·
        <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/snapshots">Snapshots</a> ·
        <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/schema">Schema and taxonomy</a> ·
        <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/feeds">Feeds</a>
      </p>
      ${noticeBox(d, notice)} ${fieldGroups(d, session)} ${historySection(d, session)}
    </div>`,
    session,
    [catalogCrumb(d.catalog), html`<a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/items">Items</a>`, html`<span>${title}</span>`],
  );
}
