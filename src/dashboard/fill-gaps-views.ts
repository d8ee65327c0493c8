import type { EnrichmentJob } from '../models/enrichment-job';
import { pricingEstimates } from '../presenters/enrich';
import type { FillGapsOutcome, FillGapsPlan, FieldFill } from '../services/enrichment/jobs/fill-gaps';
import { html, type SafeHtml } from './html';
import { itemsPath } from './item-grid-views';
import { catalogCrumb, DASHBOARD_BASE, layout, statusBadge, type PageSession } from './views';

/**
 * The fill-the-gaps screens of the catalog console: the action (the missing
 * fields pre-selected as the output schema, the item count, the credits), the job's progress
 * (reloaded by the page script while it runs; the route then goes to the review page), and the
 * before/after section of the completeness page. Everything printed is escaped by `html`.
 */

/** `/dashboard/catalogs/{id}/items/fill-gaps`. */
export function fillGapsPath(catalogId: string): string {
  return `${itemsPath(catalogId)}/fill-gaps`;
}

/** "12 of 40 (30%)". */
function share(f: FieldFill | undefined): string {
  if (!f) return '–';
  const pct = f.total ? Math.round((1000 * f.filled) / f.total) / 10 : 0;
  return `${f.filled} of ${f.total} (${pct}%)`;
}

/** The estimated credits of a job of `items` items (the job's own `pricing_estimates`). */
export function estimatedCredits(items: number): { credits: number; perItem: number } {
  const est = pricingEstimates({ total_items: items, carried_items: 0, status: 'running', credits_used: 0 } as EnrichmentJob);
  return { credits: est.estimated_credits as number, perItem: est.credits_per_successful_item as number };
}

/** The fill-the-gaps action page. */
export function fillGapsPage(plan: FillGapsPlan, query: string, session: PageSession): string {
  const cid = plan.grid.catalog.id;
  const gridHref = query ? `${itemsPath(cid)}?${query}` : itemsPath(cid);
  const { credits, perItem } = estimatedCredits(plan.items);
  return layout(
    `Fill the gaps · ${plan.grid.catalog.name}`,
    html`<h1>Fill the gaps</h1>
      <p id="fill-scope">
        Enrich the <strong id="fill-count">${plan.items}</strong> item${plan.items === 1 ? '' : 's'} of the grid's filter (<a href="${gridHref}"
          >back to the grid</a
        >) for their missing fields. The results are staged for review; nothing changes in the catalog until you approve and apply them.
      </p>
      <p id="fill-credits">
        Cost: at most <strong id="fill-credits-value">${credits}</strong> credit${credits === 1 ? '' : 's'} (${perItem} credit per item enriched successfully;
        items that fail are free).
      </p>
      <form method="post" action="${fillGapsPath(cid)}" class="profile-form" id="fill-form">
        <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
        <input type="hidden" name="query" value="${query}" />
        <fieldset>
          <legend>Output schema: the missing fields</legend>
          ${plan.fields.map(
            (f) =>
              html`<label class="check"
                ><input type="checkbox" name="field" value="${f}" checked /> ${f} <span class="muted">filled now: ${share(plan.before[f])}</span></label
              >`,
          )}
        </fieldset>
        <button type="submit" class="btn primary" id="fill-submit" ${plan.items ? '' : 'disabled'}>
          Enrich ${plan.items} item${plan.items === 1 ? '' : 's'} (${credits} credits at most)
        </button>
      </form>`,
    session,
    [catalogCrumb(plan.grid.catalog), html`<a href="${gridHref}">Items</a>`, html`<span>Fill the gaps</span>`],
  );
}

/** The progress page of a running fill-the-gaps (or bulk enrich / classify) job (reloaded every 2 s by the page script). */
export function fillGapsProgressPage(job: EnrichmentJob, catalogName: string, session: PageSession): string {
  const cid = job.catalog_id as string;
  return layout(
    `Enrichment job · ${catalogName}`,
    html`<h1>Enrichment job running</h1>
      ${statusBadge(job.status)}
      <p id="fill-progress" role="status">
        ${job.completed_items} of ${job.total_items} item${job.total_items === 1 ? '' : 's'} enriched${job.current_step ? html` · ${job.current_step}` : ''}
      </p>
      <progress id="fill-progress-bar" max="${job.total_items}" value="${job.completed_items}" aria-label="Items enriched"></progress>
      <p class="muted">This page follows the job and opens its review page when it is done.</p>
      <p><a href="${DASHBOARD_BASE}/catalogs/${cid}/activities/${job.id}">Review page</a></p>`,
    session,
    [html`<a href="${DASHBOARD_BASE}/catalogs/${cid}">${catalogName}</a>`, html`<span>Enrichment job</span>`],
    { refreshSeconds: 2 },
  );
}

/** The completeness page's section: applied fill-the-gaps jobs, each field's completeness before and now. */
export function fillGapsOutcomesSection(outcomes: FillGapsOutcome[], catalogId: string): SafeHtml | string {
  if (!outcomes.length) return '';
  return html`<section class="card" id="fill-gaps-outcomes">
    <h2>Gaps filled</h2>
    ${outcomes.map(
      (o) =>
        html`<table class="list" data-activity-id="${o.activity_id}">
          <caption class="fill-caption">
            <a href="${DASHBOARD_BASE}/catalogs/${catalogId}/activities/${o.activity_id}">${o.description ?? 'Fill the gaps'}</a>
            · ${o.items} item${o.items === 1 ? '' : 's'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Filled before</th>
              <th scope="col">Filled now</th>
            </tr>
          </thead>
          <tbody>
            ${o.fields.map(
              (f) =>
                html`<tr data-field="${f}">
                  <th scope="row">${f}</th>
                  <td class="before">${share(o.before[f])}</td>
                  <td class="after">${share(o.after[f])}</td>
                </tr>`,
            )}
          </tbody>
        </table>`,
    )}
  </section>`;
}
