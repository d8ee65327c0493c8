import { RULE_OPS } from '../services/catalog/grid/readiness-profiles';
import { gridUrl, type GridQuery } from '../services/catalog/grid/item-grid-query';
import type { CompletenessReport } from '../services/catalog/grid/completeness-report';
import { html, type SafeHtml } from './html';
import { countText, itemsPath } from './item-grid-views';
import { catalogCrumb, DASHBOARD_BASE, layout, type PageSession } from './views';

/**
 * The catalog completeness page: totals, completeness by field and by taxonomy
 * node, readiness profiles with their counts, and the form that creates a profile. Every number
 * links to the item grid filtered to the items it counts (the console's grid URL conventions).
 */

function percent(n: number, of: number): string {
  return of ? `${Math.round((n / of) * 100)}%` : '—';
}

/** A count linking to the grid under `q`. */
function countLink(d: CompletenessReport, n: number, q: Partial<GridQuery>, label: string): SafeHtml {
  return html`<a class="num-link" href="${gridUrl(itemsPath(d.grid.catalog.id), q)}" aria-label="${countText(n)} ${label}">${countText(n)}</a>`;
}

function totals(d: CompletenessReport): SafeHtml {
  return html`<section class="card summary">
    <h2>Items</h2>
    <div class="counts" id="completeness-totals">
      <a class="count" href="${itemsPath(d.grid.catalog.id)}"><span class="n">${countText(d.total)}</span><span>items</span></a>
      <a class="count status-approved" href="${gridUrl(itemsPath(d.grid.catalog.id), { complete: 'yes' })}"
        ><span class="n">${countText(d.complete)}</span><span>complete</span></a
      >
      <a class="count status-conflict" href="${gridUrl(itemsPath(d.grid.catalog.id), { complete: 'no' })}"
        ><span class="n">${countText(d.total - d.complete)}</span><span>incomplete</span></a
      >
    </div>
    <p class="muted">
      Complete: every required field filled (the schema's <code>required</code>, plus the required attributes of the item's taxonomy node).
      ${percent(d.complete, d.total)} of the items are complete.
    </p>
  </section>`;
}

function byField(d: CompletenessReport): SafeHtml {
  return html`<section class="card">
    <h2>By field</h2>
    <table class="list completeness-fields" id="by-field">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Required</th>
          <th scope="col" class="num">Filled</th>
          <th scope="col" class="num">Missing</th>
          <th scope="col">Filled share</th>
        </tr>
      </thead>
      <tbody>
        ${d.fields.map(
          (f) =>
            html`<tr data-field="${f.field}">
              <th scope="row"><code>${f.field}</code></th>
              <td>
                ${f.schemaRequired ? 'schema' : ''}${f.schemaRequired && f.requiredBy.length ? ', ' : ''}${
                  f.requiredBy.length ? `taxonomy: ${f.requiredBy.map((id) => d.grid.taxonomy?.nodes[id]?.name ?? id).join(', ')}` : ''
                }
              </td>
              <td class="num filled">${countLink(d, f.filled, { filters: [{ field: f.field, op: 'notempty', value: '' }] }, `items with ${f.field}`)}</td>
              <td class="num missing">${countLink(d, f.empty, { missing: f.field }, `items missing ${f.field}`)}</td>
              <td>
                <meter min="0" max="100" value="${d.total ? Math.round((f.filled / d.total) * 100) : 0}" aria-label="${f.field} filled"></meter>
                ${percent(f.filled, d.total)}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function byNode(d: CompletenessReport): SafeHtml | string {
  if (!d.grid.taxonomy) return '';
  return html`<section class="card">
    <h2>By taxonomy node <span class="muted">(${d.grid.taxonomy.name}; each node counts its subtree)</span></h2>
    <table class="list completeness-nodes" id="by-node">
      <thead>
        <tr>
          <th scope="col">Node</th>
          <th scope="col" class="num">Items</th>
          <th scope="col" class="num">Complete</th>
          <th scope="col" class="num">Incomplete</th>
          <th scope="col">Missing required fields</th>
        </tr>
      </thead>
      <tbody>
        ${d.nodes.map(
          (n) =>
            html`<tr data-node="${n.id}">
              <th scope="row" class="level-${Math.min(n.level, 6)}">${n.path.join(' > ')}</th>
              <td class="num">${countLink(d, n.items, { category: n.id }, `items in ${n.path.join(' > ')}`)}</td>
              <td class="num">${countLink(d, n.complete, { category: n.id, complete: 'yes' }, `complete items in ${n.path.join(' > ')}`)}</td>
              <td class="num">${countLink(d, n.items - n.complete, { category: n.id, complete: 'no' }, `incomplete items in ${n.path.join(' > ')}`)}</td>
              <td class="missing-list">
                ${n.missing
                  .filter((m) => m.empty > 0)
                  .map(
                    (m) =>
                      html`<span class="missing-field"
                        >${m.field} ${countLink(d, m.empty, { category: n.id, missing: m.field }, `items in ${n.path.join(' > ')} missing ${m.field}`)}</span
                      > `,
                  )}
              </td>
            </tr>`,
        )}
        ${
          d.unclassified
            ? html`<tr data-node="unclassified">
                <th scope="row">Unclassified</th>
                <td class="num">${countLink(d, d.unclassified.items, { category: 'unclassified' }, 'unclassified items')}</td>
                <td class="num">${countLink(d, d.unclassified.complete, { category: 'unclassified', complete: 'yes' }, 'complete unclassified items')}</td>
                <td class="num">
                  ${countLink(d, d.unclassified.items - d.unclassified.complete, { category: 'unclassified', complete: 'no' }, 'incomplete unclassified items')}
                </td>
                <td></td>
              </tr>`
            : ''
        }
      </tbody>
    </table>
  </section>`;
}

function profiles(d: CompletenessReport, session: PageSession): SafeHtml {
  const base = `${DASHBOARD_BASE}/catalogs/${d.grid.catalog.id}/completeness/profiles`;
  return html`<section class="card" id="profiles">
    <h2>Readiness profiles</h2>
    ${
      d.profiles.length
        ? d.profiles.map(
            ({ profile: p, counts: c }) =>
              html`<div class="profile" data-profile-id="${p.id}">
                <h3>${p.name}</h3>
                ${p.description ? html`<p class="muted">${p.description}</p>` : ''}
                <p class="profile-counts">
                  <span class="ready">${countLink(d, c.ready, { readiness: { profileId: p.id, state: 'ready' } }, `items ready for ${p.name}`)} ready</span> ·
                  <span class="not-ready"
                    >${countLink(d, d.total - c.ready, { readiness: { profileId: p.id, state: 'not_ready' } }, `items not ready for ${p.name}`)} not ready</span
                  >
                  (${percent(c.ready, d.total)} ready)
                </p>
                <ul class="profile-requirements">
                  ${p.required_fields.map(
                    (f) => html`<li data-required="${f}">${f} required: ${countLink(d, c.missing[f] ?? 0, { missing: f }, `items missing ${f}`)} missing</li>`,
                  )}
                  ${p.rules.map(
                    (r, i) =>
                      html`<li data-rule="${i}">
                        rule <code>${r.field} ${r.op} ${r.value}</code>:
                        ${countLink(d, c.failing[i], { filters: [{ field: r.field, op: r.op, value: r.value, negate: true }] }, `items failing ${r.field} ${r.op} ${r.value}`)}
                        failing
                      </li>`,
                  )}
                </ul>
                <form method="post" action="${base}/${p.id}/delete" class="inline">
                  <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
                  <button type="submit" class="btn small ghost">Delete profile<span class="visually-hidden"> ${p.name}</span></button>
                </form>
              </div>`,
          )
        : html`<p class="muted">No readiness profiles yet.</p>`
    }
    <form method="post" action="${base}" class="profile-form" id="new-profile">
      <h3>New profile</h3>
      <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
      <label for="profile-name">Name</label>
      <input id="profile-name" name="name" type="text" required maxlength="120" placeholder="Marketplace A" />
      <label for="profile-description">Description <span class="muted">(optional)</span></label>
      <input id="profile-description" name="description" type="text" maxlength="500" />
      <fieldset>
        <legend>Required fields</legend>
        ${Object.keys(d.grid.schema.schema_definition.properties ?? {}).map(
          (f) => html`<label class="check"><input type="checkbox" name="required_fields" value="${f}" /> ${f}</label>`,
        )}
      </fieldset>
      <label for="profile-rules"
        >Rules <span class="muted">(one a line: <code>field operator value</code>; operators ${RULE_OPS.join(', ')})</span></label
      >
      <textarea id="profile-rules" name="rules" rows="3" placeholder="price range 1..500"></textarea>
      <button type="submit" class="btn primary">Create profile</button>
    </form>
  </section>`;
}

/** The completeness page of a catalog; `extra` (e.g. the fill-the-gaps outcomes, fill-gaps-views.ts) goes after the totals. */
export function completenessPage(d: CompletenessReport, session: PageSession, extra: SafeHtml | string = ''): string {
  return layout(
    `Completeness · ${d.grid.catalog.name}`,
    html`<div class="title-row">
        <h1>Completeness and readiness</h1>
        <span class="muted">${d.grid.catalog.name}</span>
        <span class="spacer"></span>
        <a href="${itemsPath(d.grid.catalog.id)}">Items</a>
      </div>
      ${totals(d)} ${extra} ${profiles(d, session)} ${byNode(d)} ${byField(d)}`,
    session,
    [catalogCrumb(d.grid.catalog), html`<span>Completeness</span>`],
  );
}
