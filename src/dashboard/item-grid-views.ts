import type { ReadinessProfile } from '../models/readiness-profile';
import { FILTER_OPS, gridUrl, type GridQuery } from '../services/catalog/grid/item-grid-query';
import { encodeCursor } from '../services/catalog/items/items-sql';
import type { EnrichedTaxonomy } from '../services/catalog/taxonomy';
import { gtinProblem } from '../services/channels/gtin-field';
import { html, type SafeHtml } from './html';
import type { GridPageData } from './item-grid-data';
import { catalogCrumb, DASHBOARD_BASE, layout, type PageSession } from './views';

/**
 * The item grid page, server-rendered and usable without script: the taxonomy
 * tree with counts, search and a filter form (GET; the server turns `ff`/`fo`/`fv` into an
 * `f.<field>` parameter), the active filters with links that drop them, a column chooser,
 * sortable column headers (links), saved views (POST with the CSRF token), the rows with their
 * completeness and variants, and keyset paging. Every value is escaped by {@link html}.
 */

/** The grid URL of a catalog. */
export function itemsPath(catalogId: string): string {
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/items`;
}

/** The item page URL (another console page). */
function itemPath(catalogId: string, itemId: string): string {
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/items/${itemId}`;
}

/** A number with thousands separators, `+` when capped. */
export function countText(n: number, capped = false): string {
  return `${n.toLocaleString('en-US')}${capped ? '+' : ''}`;
}

/**
 * A planner estimate as the pager says it: rounded to two significant digits, "about 120,000"
 * (the estimate is not more precise than that; the pager adds "(estimated)").
 */
export function estimateText(n: number): string {
  const unit = n >= 100 ? 10 ** (Math.floor(Math.log10(n)) - 1) : 1;
  return `about ${countText(Math.round(n / unit) * unit)}`;
}

/** A cell's text: strings as they are, lists joined, other values as JSON; long ones shortened. */
function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  const s = typeof v === 'string' ? v : Array.isArray(v) && v.every((x) => typeof x !== 'object') ? v.join(', ') : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}

/** The query without a cursor, with `patch` applied. */
function urlWith(d: GridPageData, patch: Partial<GridQuery>): string {
  const { cursor: _cursor, ...rest } = d.query;
  return gridUrl(itemsPath(d.grid.catalog.id), { ...rest, columns: d.query.columns, ...patch });
}

function treeNode(d: GridPageData, t: EnrichedTaxonomy, id: string, subtotal: Map<string, number>): SafeHtml {
  const node = t.nodes[id];
  const n = subtotal.get(id);
  const current = d.query.category === id;
  return html`<li>
    <a href="${urlWith(d, { category: id })}" ${current ? html`aria-current="page" class="current"` : ''}
      >${node.name}${n !== undefined ? html` <span class="count-pill">${countText(n, d.tree?.capped && n > 0)}</span>` : ''}</a
    >
    ${
      node.children.length
        ? html`<ul>
            ${node.children.map((c) => treeNode(d, t, c, subtotal))}
          </ul>`
        : ''
    }
  </li>`;
}

/** Subtree sums of the tree's own counts (nodes without a count stay absent). */
function subtotals(t: EnrichedTaxonomy, own: Record<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  const sum = (id: string): number | undefined => {
    if (out.has(id)) return out.get(id);
    let total: number | undefined = own[id];
    for (const c of t.nodes[id].children) {
      const s = sum(c);
      if (s !== undefined) total = (total ?? 0) + s;
    }
    if (total !== undefined) out.set(id, total);
    return total;
  };
  for (const id of Object.keys(t.nodes)) sum(id);
  return out;
}

function treePanel(d: GridPageData): SafeHtml | string {
  const t = d.grid.taxonomy;
  if (!t || !d.tree) return '';
  const roots = Object.values(t.nodes)
    .filter((n) => n.parent === null)
    .map((n) => n.id);
  const sums = subtotals(t, d.tree.own);
  return html`<nav class="card taxonomy-tree" aria-label="Taxonomy">
    <h2>${t.name}</h2>
    ${d.tree.capped ? html`<p class="muted small">Counts stop at 1,000 per node in large catalogs.</p>` : ''}
    <ul>
      <li><a href="${urlWith(d, { category: undefined })}" ${d.query.category ? '' : html`aria-current="page" class="current"`}>All items</a></li>
      ${roots.map((id) => treeNode(d, t, id, sums))}
      <li>
        <a href="${urlWith(d, { category: 'unclassified' })}" ${d.query.category === 'unclassified' ? html`aria-current="page" class="current"` : ''}
          >Unclassified${d.tree.unclassified !== null ? html` <span class="count-pill">${countText(d.tree.unclassified, d.tree.capped && d.tree.unclassified > 1000)}</span>` : ''}</a
        >
      </li>
    </ul>
  </nav>`;
}

/** Hidden inputs carrying the query (minus `omit`) through a GET form. */
function hiddenQuery(d: GridPageData, omit: Array<'q' | 'filters' | 'columns'>): SafeHtml[] {
  const url = new URL(
    urlWith(d, {
      q: omit.includes('q') ? undefined : d.query.q,
      filters: omit.includes('filters') ? [] : d.query.filters,
      columns: omit.includes('columns') ? undefined : d.query.columns,
    }),
    'http://x',
  );
  return [...url.searchParams.entries()].map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`);
}

function fieldOptions(fields: string[], selected?: string): SafeHtml[] {
  return fields.map((f) => html`<option value="${f}" ${f === selected ? html`selected` : ''}>${f}</option>`);
}

function filterForms(d: GridPageData): SafeHtml {
  const base = itemsPath(d.grid.catalog.id);
  const fields = Object.keys(d.grid.types);
  const enums = Object.entries(d.grid.schema.schema_definition.properties ?? {}).filter(([, p]) => Array.isArray(p.enum));
  return html`<section class="card grid-controls">
    <form class="filters" method="get" action="${base}" role="search">
      ${hiddenQuery(d, ['q'])}
      <label class="grow">Search <input type="search" name="q" value="${d.query.q ?? ''}" placeholder="Words of any text value" /></label>
      <button type="submit" class="btn">Search</button>
    </form>
    <form class="filters" method="get" action="${base}" id="add-filter">
      ${hiddenQuery(d, [])}
      <label
        >Field
        <select name="ff" id="filter-field">
          ${fieldOptions(fields)}
        </select></label
      >
      <label
        >Condition
        <select name="fo" id="filter-op">
          ${FILTER_OPS.map((op) => html`<option value="${op}">${op === 'notempty' ? 'not empty' : op === 'in' ? 'one of' : op}</option>`)}
        </select></label
      >
      <label class="grow">Value <input type="text" name="fv" id="filter-value" placeholder="a..b for a range, a,b for one of" /></label>
      <button type="submit" class="btn">Add filter</button>
    </form>
    ${
      enums.length
        ? html`<p class="enum-filters">
            One of the values:
            ${enums.map(
              ([f, p]) =>
                html`<span class="enum-group"
                  >${f}:
                  ${(p.enum ?? []).map((v) => html`<a href="${urlWith(d, { filters: [...d.query.filters.filter((x) => x.field !== f), { field: f, op: 'eq', value: String(v) }] })}">${String(v)}</a> `)}</span
                >`,
            )}
          </p>`
        : ''
    }
    ${activeFilters(d)}
  </section>`;
}

function activeFilters(d: GridPageData): SafeHtml | string {
  const chips: SafeHtml[] = [];
  const q = d.query;
  if (q.q) chips.push(html`<li>search “${q.q}” <a href="${urlWith(d, { q: undefined })}" aria-label="Remove the search">✕</a></li>`);
  if (q.category) {
    const name = q.category === 'unclassified' ? 'unclassified' : (d.grid.taxonomy?.nodes[q.category]?.path.join(' > ') ?? q.category);
    chips.push(html`<li>category ${name} <a href="${urlWith(d, { category: undefined })}" aria-label="Remove the category filter">✕</a></li>`);
  }
  if (q.missing)
    chips.push(html`<li>${q.missing} missing <a href="${urlWith(d, { missing: undefined })}" aria-label="Remove the missing ${q.missing} filter">✕</a></li>`);
  q.filters.forEach((f, i) =>
    chips.push(
      html`<li>
        ${f.negate ? 'not: ' : ''}${f.field} ${f.op === 'notempty' ? 'not empty' : f.op === 'in' ? 'one of' : f.op} ${f.value}
        <a href="${urlWith(d, { filters: q.filters.filter((_, j) => j !== i) })}" aria-label="Remove the filter on ${f.field}">✕</a>
      </li>`,
    ),
  );
  if (q.complete)
    chips.push(
      html`<li>
        ${q.complete === 'yes' ? 'complete' : 'incomplete'} <a href="${urlWith(d, { complete: undefined })}" aria-label="Remove the completeness filter">✕</a>
      </li>`,
    );
  if (q.readiness && d.profile)
    chips.push(
      html`<li>
        ${q.readiness.state === 'ready' ? 'ready' : 'not ready'} for ${d.profile.name}
        <a href="${urlWith(d, { readiness: undefined })}" aria-label="Remove the readiness filter">✕</a>
      </li>`,
    );
  if (!chips.length) return '';
  return html`<div class="active-filters">
    <span>Filters:</span>
    <ul id="active-filters">
      ${chips}
    </ul>
    <a href="${gridUrl(itemsPath(d.grid.catalog.id), { columns: d.query.columns })}">Clear all</a>
  </div>`;
}

function columnChooser(d: GridPageData): SafeHtml {
  const fields = Object.keys(d.grid.types);
  return html`<details class="card column-chooser">
    <summary>Columns (${d.columns.length} of ${fields.length})</summary>
    <form method="get" action="${itemsPath(d.grid.catalog.id)}" id="columns-form">
      ${hiddenQuery(d, ['columns'])}
      <fieldset>
        <legend>Columns to show</legend>
        ${fields.map(
          (f) => html`<label class="check"><input type="checkbox" name="col" value="${f}" ${d.columns.includes(f) ? html`checked` : ''} /> ${f}</label>`,
        )}
      </fieldset>
      <button type="submit" class="btn small">Show these columns</button>
    </form>
  </details>`;
}

function viewsPanel(d: GridPageData, session: PageSession): SafeHtml {
  const base = itemsPath(d.grid.catalog.id);
  const current = new URL(urlWith(d, {}), 'http://x').search.slice(1);
  return html`<section class="card views-panel">
    <h2>Views</h2>
    ${
      d.views.length
        ? html`<ul class="views" id="saved-views">
            ${d.views.map(
              (v) =>
                html`<li>
                  <a href="${base}?view=${v.id}" ${d.view?.id === v.id ? html`aria-current="page"` : ''}>${v.name}</a>
                  <span class="muted">${v.shared ? 'shared' : 'private'}</span>
                  ${
                    v.owner === d.owner
                      ? html`<form method="post" action="${base}/views/${v.id}/delete" class="inline">
                          <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
                          <button type="submit" class="btn small ghost">Delete<span class="visually-hidden"> the view ${v.name}</span></button>
                        </form>`
                      : ''
                  }
                </li>`,
            )}
          </ul>`
        : html`<p class="muted">No saved views yet.</p>`
    }
    <form method="post" action="${base}/views" class="save-view" id="save-view">
      <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
      <input type="hidden" name="query" value="${current}" />
      <input type="hidden" name="columns" value="${d.columns.join(',')}" />
      <label>Name <input type="text" name="name" id="view-name" required maxlength="120" value="${d.view?.name ?? ''}" /></label>
      <label class="check"><input type="checkbox" name="shared" value="1" ${d.view?.shared ? html`checked` : ''} /> shared with the organization</label>
      <button type="submit" class="btn small">Save this view</button>
    </form>
  </section>`;
}

function sortHeader(d: GridPageData, field: string, label: string): SafeHtml {
  const active = d.query.sort === field;
  const dir = active && d.query.dir === 'asc' ? 'desc' : 'asc';
  const aria = active ? (d.query.dir === 'asc' ? 'ascending' : 'descending') : 'none';
  return html`<th scope="col" aria-sort="${aria}">
    <a href="${urlWith(d, { sort: field, dir })}" title="Sort by ${label} (${dir === 'asc' ? 'ascending' : 'descending'})"
      >${label}${active ? (d.query.dir === 'asc' ? ' ▲' : ' ▼') : ''}</a
    >
  </th>`;
}

function completenessCell(row: GridPageData['page']['rows'][number]): SafeHtml {
  const c = row.completeness;
  const pct = Math.round(c.share * 100);
  return html`<td class="completeness" data-share="${pct}">
    <meter min="0" max="100" value="${pct}" aria-label="Completeness ${pct}%"></meter> ${pct}%
    ${c.missing.length ? html`<span class="missing">missing ${c.missing.join(', ')}</span>` : ''}
  </td>`;
}

/**
 * The flag of a GTIN cell whose value is not a usable GTIN (docs/console.md "GTIN flags"): a
 * badge naming the issue code, its title and accessible text the reason; nothing for a good value.
 */
export function gtinFlag(value: unknown): SafeHtml | string {
  const problem = gtinProblem(value);
  if (!problem) return '';
  const label = problem.code === 'restricted_gtin' ? 'restricted GTIN' : 'invalid GTIN';
  return html` <span class="badge gtin-flag" data-gtin-issue="${problem.code}" title="${problem.message}"
    >⚠ ${label}<span class="visually-hidden">: ${problem.message}</span></span
  >`;
}

function rowsTable(d: GridPageData): SafeHtml {
  const cid = d.grid.catalog.id;
  const grouped = d.grid.grouped;
  return html`<table class="list item-grid" id="item-grid">
    <caption class="visually-hidden">
      Items of ${d.grid.catalog.name}
    </caption>
    <thead>
      <tr>
        ${d.columns.map((f) => sortHeader(d, f, f))} ${sortHeader(d, 'updated_at', 'updated')}
        <th scope="col">Completeness</th>
        ${grouped ? html`<th scope="col">Variants</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${
        d.page.rows.length
          ? d.page.rows.map(
              (r) =>
                html`<tr data-item-id="${r.id}">
                  ${d.columns.map((f, i) =>
                    i === 0
                      ? html`<td>
                          <input
                            type="checkbox"
                            name="ids"
                            value="${r.id}"
                            form="bulk-selection"
                            aria-label="Select item ${cellText(r.data[d.columns[0]]) || r.id}"
                          />
                          <a href="${itemPath(cid, r.id)}">${cellText(r.data[f]) || html`<span class="muted">(item ${r.id.slice(0, 8)})</span>`}</a>
                          ${f === d.gtinField ? gtinFlag(r.data[f]) : ''}
                        </td>`
                      : html`<td data-field="${f}">${cellText(r.data[f])}${f === d.gtinField ? gtinFlag(r.data[f]) : ''}</td>`,
                  )}
                  <td class="when">${r.updated_at.slice(0, 16)}</td>
                  ${completenessCell(r)}
                  ${
                    grouped
                      ? html`<td class="variants">
                          ${r.variants ? (r.variants.total ? `${r.variants.complete}/${r.variants.total} variants complete` : 'no variants') : ''}
                        </td>`
                      : ''
                  }
                </tr>`,
            )
          : html`<tr>
              <td colspan="${d.columns.length + 2 + (grouped ? 1 : 0)}" class="muted">No items match.</td>
            </tr>`
      }
    </tbody>
  </table>`;
}

/**
 * What the page says about the grid field indexes it would use that are not ready
 * (src/services/catalog/grid/grid-indexes.ts): "sorting by price is being indexed; this page may be
 * slow", a failed build with its error, or a catalog at its maximum of indexes.
 */
function indexNotices(d: GridPageData): SafeHtml | string {
  if (!d.indexNotices.length) return '';
  const what = (n: GridPageData['indexNotices'][number]) => (n.use === 'sort' ? `sorting by ${n.field}` : `filtering on ${n.field}`);
  return html`<div id="grid-index-notices">
    ${d.indexNotices.map((n) =>
      n.state === 'building'
        ? html`<p class="notice" role="status" data-index-state="building">${what(n)} is being indexed; this page may be slow until it is.</p>`
        : n.state === 'failed'
          ? html`<p class="notice fail" data-index-state="failed">${what(n)} could not be indexed (${n.error ?? 'unknown error'}); this page may be slow.</p>`
          : html`<p class="notice" data-index-state="capped">
              ${what(n)} is not indexed: this catalog holds its maximum of grid indexes; this page may be slow.
            </p>`,
    )}
  </div>`;
}

function pager(d: GridPageData, top: boolean): SafeHtml {
  const here = urlWith(d, {});
  const suffix = top ? '' : '-bottom';
  const first = d.query.cursor ? html`<a class="btn small" href="${here}">← First page</a>` : '';
  const nextUrl = d.page.next_cursor ? `${here}${here.includes('?') ? '&' : '?'}cursor=${encodeCursor(d.page.next_cursor)}` : null;
  const next = nextUrl ? html`<a class="btn small" rel="next" id="next-page${suffix}" href="${nextUrl}">Next ${d.page.rows.length} →</a>` : '';
  const { count: n, count_kind: kind } = d.page;
  const count =
    kind === 'estimated'
      ? `${estimateText(n)} items (estimated)`
      : `${countText(n, kind === 'capped')} item${n === 1 && kind === 'exact' ? '' : 's'}${kind === 'capped' ? ` (counted up to ${countText(n)})` : ''}`;
  return html`<nav class="pager" aria-label="${top ? 'Pages' : 'Pages, at the bottom'}">
    ${first}<span data-count="${kind}" id="grid-count${suffix}">${count}</span>${next}
  </nav>`;
}

function profileLinks(d: GridPageData, profiles: ReadinessProfile[]): SafeHtml | string {
  if (!profiles.length) return '';
  return html`<p class="profile-links">
    Readiness:
    ${profiles.map(
      (p) =>
        html`<a href="${urlWith(d, { readiness: { profileId: p.id, state: 'not_ready' } })}">not ready for ${p.name}</a> ·
          <a href="${urlWith(d, { readiness: { profileId: p.id, state: 'ready' } })}">ready</a> `,
    )}
  </p>`;
}

/**
 * The bulk-action form of the rows' checkboxes (a selection): a GET of the bulk
 * actions page with the grid's filter and the checked `ids` (the checkboxes name it by `form`).
 */
function selectionForm(d: GridPageData): SafeHtml {
  const params = new URLSearchParams(gridUrl('', { ...d.query, view: undefined, cursor: undefined, sort: undefined, columns: undefined }).replace(/^\?/, ''));
  return html`<form id="bulk-selection" method="get" action="${itemsPath(d.grid.catalog.id)}/bulk" class="inline">
    ${[...params].map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button type="submit" class="btn small" id="bulk-selected">Bulk actions on the checked items</button>
  </form>`;
}

/** The item grid page. */
export function itemGridPage(d: GridPageData, session: PageSession): string {
  const cid = d.grid.catalog.id;
  return layout(
    `Items · ${d.grid.catalog.name}`,
    html`<div class="title-row">
        <h1>Items</h1>
        <span class="muted">${d.grid.catalog.name}${d.view ? html` · view <strong>${d.view.name}</strong>` : ''}</span>
        <span class="spacer"></span>
        <a href="${DASHBOARD_BASE}/catalogs/${cid}/completeness">Completeness</a>
        <a href="${DASHBOARD_BASE}/catalogs/${cid}/feeds">Feeds</a>
        ${
          d.query.missing || d.query.filters.some((f) => f.op === 'empty' && !f.negate) || d.query.readiness?.state === 'not_ready'
            ? html`<a id="fill-gaps-link" href="${gridUrl(`${itemsPath(cid)}/fill-gaps`, { ...d.query, view: undefined, cursor: undefined, sort: undefined })}"
                >Fill the gaps</a
              >`
            : ''
        }
        <a
          id="export-link"
          href="${gridUrl(`${itemsPath(cid)}/export`, { ...d.query, columns: d.columns, view: undefined, cursor: undefined, sort: undefined })}"
          >Export CSV</a
        >
        <a id="bulk-link" href="${gridUrl(`${itemsPath(cid)}/bulk`, { ...d.query, view: undefined, cursor: undefined, sort: undefined })}">Bulk actions</a>
      </div>
      <div class="item-grid-layout${d.grid.taxonomy ? ' with-tree' : ''}">
        ${treePanel(d)}
        <div class="grid-main">
          ${filterForms(d)} ${profileLinks(d, d.profiles)}
          <div class="grid-tools">${columnChooser(d)}${viewsPanel(d, session)}</div>
          ${indexNotices(d)} ${pager(d, true)} ${selectionForm(d)}
          <div class="table-scroll">${rowsTable(d)}</div>
          ${pager(d, false)}
        </div>
      </div>`,
    session,
    [catalogCrumb(d.grid.catalog), html`<span>Items</span>`],
  );
}
