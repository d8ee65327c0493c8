import type { HomePageData } from './home-data';
import { html } from './html';
import { jobsUrl, operationTable } from './jobs-views';
import { DASHBOARD_BASE, layout, when, type PageSession } from './views';

/**
 * The dashboard's home: per catalog its item count, completeness and pending
 * reviews; the newest operations with status and error counts; the credits used this month.
 * Every number links to the page or filtered grid it counts (the URL conventions of the console:
 * the item grid, the completeness page, the catalog's review activities, the jobs page).
 * Completeness arrives after the page is shown: the page script (assets/home.js) reads
 * `GET /dashboard/completeness.json?catalog_id=…` and fills the cells.
 */

/** The home page. `now`: ms since the epoch (the operations' ETAs). */
export function homePage(d: HomePageData, session: PageSession, now: number): string {
  const runningOps = d.operations.filter((o) => o.status === 'running').length;
  return layout(
    'Catalogs',
    html`<h1>Catalogs</h1>
      <p class="muted">Reviewed transforms and enrichments saved as reusable flows, and their runs: <a href="${DASHBOARD_BASE}/flows">Flows</a>.</p>
      <div class="stats">
        <a class="stat" id="credits-month" href="${jobsUrl({ kind: 'enrichment' })}"
          ><span class="n">${d.creditsThisMonth}</span><span>credits used this month</span></a
        >
        <a class="stat" id="running-ops" href="${jobsUrl({ status: 'running' })}"><span class="n">${runningOps}</span><span>recent operations running</span></a>
      </div>
      <section class="card" aria-labelledby="catalogs-heading">
        <h2 id="catalogs-heading">
          Catalogs <span class="muted">(${d.catalogTotal}${d.catalogTotal > d.catalogs.length ? `, ${d.catalogs.length} shown` : ''})</span>
        </h2>
        ${
          d.catalogs.length
            ? html`<table class="list catalogs">
                <thead>
                  <tr>
                    <th scope="col">Catalog</th>
                    <th scope="col" class="num">Items</th>
                    <th scope="col" class="num">Completeness</th>
                    <th scope="col" class="num">Pending reviews</th>
                    <th scope="col">Updated</th>
                    <th scope="col"><span class="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${d.catalogs.map(
                    ({ catalog: c, pendingReviews }) =>
                      html`<tr data-catalog-id="${c.id}">
                        <td><a href="${DASHBOARD_BASE}/catalogs/${c.id}">${c.name}</a></td>
                        <td class="num"><a class="items" href="${DASHBOARD_BASE}/catalogs/${c.id}/items">${c.item_count}</a></td>
                        <td class="num">
                          <a class="completeness" href="${DASHBOARD_BASE}/catalogs/${c.id}/completeness" data-catalog-id="${c.id}"
                            >…<span class="visually-hidden"> (loading)</span></a
                          >
                        </td>
                        <td class="num"><a class="pending" href="${DASHBOARD_BASE}/catalogs/${c.id}">${pendingReviews}</a></td>
                        <td>${when(c.updated_at)}</td>
                        <td><a href="${DASHBOARD_BASE}/catalogs/${c.id}/import" aria-label="${`Import a file into ${c.name}`}">Import</a></td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted">No catalogs in this organization.</p>`
        }
      </section>
      <section class="card" aria-labelledby="ops-heading">
        <h2 id="ops-heading">
          Last operations <span class="muted">(<a class="catalog-link" href="${jobsUrl({})}">all ${d.operationTotal}</a>)</span>
        </h2>
        ${d.operations.length ? operationTable(d.operations, now, true) : html`<p class="muted">No jobs, imports, applies, restores or exports yet.</p>`}
      </section>`,
    session,
    [],
    { scripts: ['home.js'] },
  );
}
