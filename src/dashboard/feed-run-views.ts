import type { FeedMappingSource } from '../models/feed';
import type { FeedRun } from '../models/feed-run';
import { feedFilePath } from './channel-readiness-views';
import { orderedMapping } from './feed-form';
import { canPublish, feedPath, feedRunPath, feedsPath, publicUrlBox, targetText } from './feed-views';
import type { FeedPageData, RunPageData } from './feeds-data';
import { FILTER_CODES, ISSUES_PAGE_SIZE } from './feeds-data';
import { html, type SafeHtml } from './html';
import { countText } from './item-grid-views';
import { badge, catalogCrumb, DASHBOARD_BASE, layout, statusBadge, when, type PageSession } from './views';

/**
 * The console's feed page and run page (docs/console.md "Feeds"): a feed's settings, mapping
 * (with the reasons of a proposal), public URL, its runs (status, progress, counts, times, file)
 * and the "run now" / "run delta" buttons, edit, rotate token and delete; a run's progress and
 * counts (the page reloads itself every 2 s while the run runs), its cancel button and its issues,
 * paged and filtered by code, attribute and severity. Every value is escaped by {@link html}.
 */

/** Whether a run can still change (the page follows it, and it can be cancelled). */
function active(run: FeedRun): boolean {
  return run.status === 'queued' || run.status === 'running';
}

function sourceText(source: FeedMappingSource): SafeHtml {
  if (typeof source === 'string') return html`<code>${source}</code>`;
  if ('template' in source) return html`template <code>${source.template}</code>`;
  return html`fixed value <code>${source.value}</code>`;
}

/** "12 of 40 items read", or that no worker has begun a run that is still to come. */
function progressText(run: FeedRun): string {
  if (active(run) && run.total === 0 && run.items_read === 0) return 'Not begun yet: waiting for a worker';
  return `${countText(run.items_read)} of ${countText(run.total)} items read`;
}

/** A POST button form with the CSRF token (`confirm`: the question feeds.js asks first). */
function postButton(
  action: string,
  label: SafeHtml | string,
  session: PageSession,
  opts: { id: string; hidden?: Record<string, string>; confirm?: string; kind?: string },
): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">
    <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
    ${Object.entries(opts.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button type="submit" class="btn small ${opts.kind ?? ''}" id="${opts.id}" ${opts.confirm ? html`data-confirm="${opts.confirm}"` : ''}>${label}</button>
  </form>`;
}

function runRow(d: FeedPageData, run: FeedRun): SafeHtml {
  const cid = d.catalog.id;
  return html`<tr data-run-id="${run.id}">
    <th scope="row">
      <a href="${feedRunPath(cid, d.feed.id, run.id)}">${when(run.created_at)}</a>${run.delta ? html` <span class="badge type">delta</span>` : ''}
    </th>
    <td>${statusBadge(run.status)}</td>
    <td class="num">${progressText(run)}</td>
    <td class="num">${countText(run.items)}</td>
    <td class="num">${countText(run.exported)}</td>
    <td class="num">${countText(run.excluded)}</td>
    <td class="num">${countText(run.warnings)}</td>
    <td>${when(run.started_at)}</td>
    <td>${when(run.completed_at)}</td>
    <td>
      ${
        run.file_key
          ? html`<a href="${feedFilePath(cid, d.feed.id, run.id)}" download
              >Download<span class="visually-hidden"> the file of the run of ${when(run.created_at)}</span></a
            >`
          : html`<span class="muted">none</span>`
      }
    </td>
  </tr>`;
}

function runsTable(d: FeedPageData): SafeHtml {
  if (!d.runs.length) return html`<p class="muted" id="no-runs">No runs yet.</p>`;
  return html`<div class="table-scroll">
    <table class="list feed-runs" id="feed-runs">
      <caption class="visually-hidden">
        Runs of the feed, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Status</th>
          <th scope="col" class="num">Progress</th>
          <th scope="col" class="num">Items</th>
          <th scope="col" class="num">Exported</th>
          <th scope="col" class="num">Excluded</th>
          <th scope="col" class="num">Warnings</th>
          <th scope="col">Started</th>
          <th scope="col">Completed</th>
          <th scope="col">File</th>
        </tr>
      </thead>
      <tbody>
        ${d.runs.map((r) => runRow(d, r))}
      </tbody>
    </table>
  </div>`;
}

function mappingTable(d: FeedPageData): SafeHtml {
  const entries = orderedMapping(d.feed.mapping, d.attributeOrder);
  return html`<table class="list feed-mapping" id="feed-mapping">
    <caption class="visually-hidden">
      Mapping of channel attributes to catalog sources
    </caption>
    <thead>
      <tr>
        <th scope="col">Attribute</th>
        <th scope="col">Source</th>
        ${d.feed.mapping_suggested ? html`<th scope="col">Why proposed</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${entries.map(
        ([attribute, source]) =>
          html`<tr data-attribute="${attribute}">
            <th scope="row"><code>${attribute}</code></th>
            <td>${sourceText(source)}</td>
            ${d.feed.mapping_suggested ? html`<td class="muted">${d.reasons[attribute] ?? ''}</td>` : ''}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** What the feed page says after an action: the schedule's notices (docs/feeds.md "Schedules"), or a message. */
export interface FeedPageNotice {
  notices?: string[];
  message?: string | null;
}

function settings(d: FeedPageData, publicBase: string): SafeHtml {
  const f = d.feed;
  const filter = [f.filter?.search ? `matching “${f.filter.search}”` : '', f.filter?.entity_type ? `${f.filter.entity_type}s only` : '']
    .filter(Boolean)
    .join(', ');
  return html`<dl class="feed-settings" id="feed-settings">
    <dt>Channel</dt>
    <dd>${f.channel}</dd>
    <dt>Format</dt>
    <dd>${f.format}</dd>
    <dt>Country · language · currency</dt>
    <dd>${targetText(f)}</dd>
    <dt>Schedule (UTC)</dt>
    <dd>${f.schedule ? html`<code>${f.schedule}</code>` : 'none'}</dd>
    <dt>Items</dt>
    <dd>${filter || 'all'}</dd>
    <dt>Public URL</dt>
    <dd>${publicUrlBox(publicBase, f, 'public-url')}</dd>
  </dl>`;
}

/** The feed page; `publicBase` is the service's public URL. */
export function feedPage(d: FeedPageData, publicBase: string, notice: FeedPageNotice, session: PageSession): string {
  const cid = d.catalog.id;
  const path = feedPath(cid, d.feed.id);
  const writer = canPublish(session);
  return layout(
    `Feed ${d.feed.channel} · ${d.catalog.name}`,
    html`<div class="title-row">
        <h1>Feed: ${d.feed.channel} · ${d.feed.format}</h1>
        <span class="spacer"></span>
        ${writer ? html`<a class="btn small" id="edit-feed-link" href="${path}/edit">Edit</a>` : ''}
      </div>
      ${notice.message ? html`<p class="notice" role="status" id="feed-notice">${notice.message}</p>` : ''}
      ${notice.notices?.length ? html`<div class="alert" role="status" id="feed-notices">${notice.notices.map((n) => html`<p>${n}</p>`)}</div>` : ''}
      <p class="visually-hidden" role="status" id="copy-status"></p>
      <section class="card">
        <h2>Settings</h2>
        ${settings(d, publicBase)}
        ${
          writer
            ? html`<p class="feed-actions">
                ${postButton(`${path}/rotate-token`, 'Rotate public URL', session, { id: 'rotate-token', confirm: 'The current public URL stops working. Rotate it?' })}
                ${postButton(`${path}/delete`, 'Delete feed', session, { id: 'delete-feed', confirm: 'Delete this feed? Its public URL stops working.', kind: 'ghost' })}
              </p>`
            : ''
        }
      </section>
      <section class="card">
        <h2>Runs</h2>
        ${
          writer
            ? html`<p class="feed-actions">
                ${postButton(`${path}/runs`, 'Run now', session, { id: 'run-now', kind: 'primary' })}
                ${postButton(`${path}/runs`, 'Run delta', session, { id: 'run-delta', hidden: { delta: '1' } })}
                <span class="muted small">A delta writes only the items changed or removed since the last completed run (JSONL).</span>
              </p>`
            : ''
        }
        ${runsTable(d)}
      </section>
      <section class="card">
        <h2>Mapping ${d.feed.mapping_suggested ? html`<span class="badge type">proposed</span>` : ''}</h2>
        ${mappingTable(d)}
      </section>`,
    session,
    [catalogCrumb(d.catalog), html`<a href="${feedsPath(cid)}">Feeds</a>`, html`<span>${d.feed.channel}</span>`],
    { scripts: ['feeds.js'] },
  );
}

/** The issue filter form (GET): code, attribute, severity. */
function issueFilters(d: RunPageData): SafeHtml {
  const q = d.query;
  return html`<form method="get" action="${feedRunPath(d.catalog.id, d.feed.id, d.run.id)}#issues" class="filters" id="issue-filters">
    <label
      >Code
      <select name="code" id="issue-code">
        <option value="">any</option>
        ${FILTER_CODES.map((c) => html`<option value="${c}" ${q.code === c ? 'selected' : ''}>${c}</option>`)}
      </select></label
    >
    <label>Attribute <input type="text" name="attribute" id="issue-attribute" value="${q.attribute ?? ''}" maxlength="100" /></label>
    <label
      >Severity
      <select name="severity" id="issue-severity">
        <option value="">any</option>
        <option value="error" ${q.severity === 'error' ? 'selected' : ''}>error</option>
        <option value="warning" ${q.severity === 'warning' ? 'selected' : ''}>warning</option>
      </select></label
    >
    <button type="submit" class="btn small">Filter issues</button>
  </form>`;
}

/** The run page's URL of another issue page under the same filters. */
function issuePageUrl(d: RunPageData, page: number): string {
  const p = new URLSearchParams();
  for (const k of ['code', 'attribute', 'severity'] as const) if (d.query[k]) p.set(k, String(d.query[k]));
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return `${feedRunPath(d.catalog.id, d.feed.id, d.run.id)}${s ? `?${s}` : ''}#issues`;
}

function issuesTable(d: RunPageData): SafeHtml {
  const pages = Math.max(1, Math.ceil(d.total / ISSUES_PAGE_SIZE));
  const page = d.query.page;
  return html`${
      d.issues.length
        ? html`<table class="list feed-issues" id="feed-issues">
            <caption class="visually-hidden">
              Issues of the run
            </caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Attribute</th>
                <th scope="col">Severity</th>
                <th scope="col">Code</th>
                <th scope="col">Message</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              ${d.issues.map(
                (i) =>
                  html`<tr data-code="${i.code}">
                    <th scope="row"><a href="${`${DASHBOARD_BASE}/catalogs/${d.catalog.id}/items/${i.item_id}`}">${i.sku ?? i.item_id.slice(0, 8)}</a></th>
                    <td><code>${i.attribute}</code></td>
                    <td>${badge(i.severity, i.severity === 'error' ? 'status-error' : 'status-pending')}</td>
                    <td><code>${i.code}</code></td>
                    <td>${i.message}</td>
                    <td>${i.value ? html`<code>${i.value}</code>` : ''}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="muted" id="no-issues">No issues${d.query.code || d.query.attribute || d.query.severity ? ' match these filters' : ''}.</p>`
    }
    <nav class="pager" aria-label="Issue pages">
      ${page > 1 ? html`<a class="btn small" href="${issuePageUrl(d, page - 1)}">← Previous</a>` : ''}
      <span id="issue-count">${countText(d.total)} issue${d.total === 1 ? '' : 's'} · page ${page} of ${pages}</span>
      ${page < pages ? html`<a class="btn small" rel="next" href="${issuePageUrl(d, page + 1)}">Next →</a>` : ''}
    </nav>`;
}

/** The run page: progress while it runs (the page reloads every 2 s), counts, file, cancel, issues. */
export function runPage(d: RunPageData, session: PageSession): string {
  const cid = d.catalog.id;
  const run = d.run;
  const following = active(run);
  return layout(
    `Feed run · ${d.catalog.name}`,
    html`<div class="title-row">
        <h1>Run of feed ${d.feed.channel} · ${d.feed.format}${run.delta ? ' (delta)' : ''}</h1>
        ${statusBadge(run.status)}
      </div>
      <section class="card" id="run-summary">
        <p id="run-progress" role="status">${progressText(run)}${following ? ' · this page follows the run' : ''}</p>
        <progress id="run-progress-bar" max="${Math.max(run.total, 1)}" value="${run.items_read}" aria-label="Items read"></progress>
        <dl class="feed-settings" id="run-counts">
          <dt>Items</dt>
          <dd data-count="items">${countText(run.items)}</dd>
          <dt>Exported</dt>
          <dd data-count="exported">${countText(run.exported)}</dd>
          <dt>Excluded (errors)</dt>
          <dd data-count="excluded">${countText(run.excluded)}</dd>
          <dt>With warnings</dt>
          <dd data-count="warnings">${countText(run.warnings)}</dd>
          <dt>Started</dt>
          <dd>${when(run.started_at) || '—'}</dd>
          <dt>Completed</dt>
          <dd>${when(run.completed_at) || '—'}</dd>
          ${
            run.error
              ? html`<dt>Error</dt>
                  <dd>${run.error}</dd>`
              : ''
          }
        </dl>
        <p class="feed-actions">
          ${
            run.file_key
              ? html`<a class="btn small primary" id="run-file" href="${feedFilePath(cid, d.feed.id, run.id)}" download>Download the file</a>`
              : html`<span class="muted">No file${following ? ' yet' : ''}.</span>`
          }
          ${
            following && canPublish(session)
              ? html`<form method="post" action="${feedRunPath(cid, d.feed.id, run.id)}/cancel" class="inline">
                  <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
                  <button type="submit" class="btn small ghost" id="cancel-run">Cancel run</button>
                </form>`
              : ''
          }
        </p>
      </section>
      <section class="card" id="issues">
        <h2>Issues</h2>
        <p class="muted small">An item with an error is left out of the file; warnings keep it.</p>
        ${issueFilters(d)} ${issuesTable(d)}
      </section>`,
    session,
    [
      catalogCrumb(d.catalog),
      html`<a href="${feedsPath(cid)}">Feeds</a>`,
      html`<a href="${feedPath(cid, d.feed.id)}">${d.feed.channel}</a>`,
      html`<span>Run</span>`,
    ],
    following ? { refreshSeconds: 2 } : {},
  );
}
