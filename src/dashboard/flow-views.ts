/**
 * The flows pages of the dashboard: the organization's flows, a flow
 * (`workflow_url`: its nodes with their code and config, the activity it was saved from, its
 * recent runs) and a run (progress, nodes, `updates`, the review activity it left, and each
 * node's output as a paginated table). Server-rendered like the review pages (./views.ts): every
 * value goes through {@link html}, which escapes it; row values are shown as text, never markup.
 * A running run's page reloads itself every {@link RUN_REFRESH_SECONDS} seconds.
 */
import type { Flow, FlowNode } from '../models/flow';
import type { FlowRun } from '../models/flow-run';
import { flowUrl } from '../services/flows/flows';
import { reviewUrl } from '../services/review/review-activities';
import type { FlowListFilters, FlowListPageData, FlowPageData, RunPageData, RunPageFilters } from './flows-data';
import { html, type SafeHtml } from './html';
import { reviewActivityTitle, badge, DASHBOARD_BASE, layout, record, statusBadge, when, type PageSession } from './views';

/** Seconds between reloads of a running run's page. */
export const RUN_REFRESH_SECONDS = 3;

/** The dashboard path of a flow (its `workflow_url` without the public origin). */
function flowPath(flowId: string): string {
  return flowUrl('', flowId);
}

/** The dashboard path of a run, with its results query. */
function runPath(flowId: string, runId: string, q: Partial<RunPageFilters> = {}): string {
  const params = new URLSearchParams();
  if (q.node) params.set('node', q.node);
  if (q.page && q.page > 1) params.set('page', String(q.page));
  const s = params.toString();
  return `${flowPath(flowId)}/runs/${runId}${s ? `?${s}` : ''}`;
}

function flowsCrumb(): SafeHtml {
  return html`<a href="${DASHBOARD_BASE}/flows">Flows</a>`;
}

function flowCrumb(flow: Flow): SafeHtml {
  return html`<a href="${flowPath(flow.id)}">${flow.name}</a>`;
}

/** The node types in order, `input → custom_code → stage`. */
function nodeChain(nodes: FlowNode[]): string {
  return nodes.map((n) => n.type).join(' → ');
}

/** A 0–1 progress as a bar and a percentage. */
function progressBar(progress: number, status: string): SafeHtml {
  const p = Math.min(1, Math.max(0, Number(progress) || 0));
  return html`<span class="progress" title="${Math.round(p * 100)} %"
    ><progress class="status-${status}" max="1" value="${p}"></progress><span class="pct">${Math.round(p * 100)} %</span></span
  >`;
}

/** The list's URL with a changed page. */
function listUrl(filters: FlowListFilters, page: number): string {
  const q = new URLSearchParams();
  if (filters.search) q.set('q', filters.search);
  if (page > 1) q.set('page', String(page));
  const s = q.toString();
  return `${DASHBOARD_BASE}/flows${s ? `?${s}` : ''}`;
}

/** The organization's flows, newest first, with a search on name and description. */
export function flowListPage(d: FlowListPageData, filters: FlowListFilters, session: PageSession): string {
  const prev = filters.page > 1 ? html`<a class="btn small" rel="prev" href="${listUrl(filters, filters.page - 1)}">← Previous</a>` : '';
  const next = filters.page < d.totalPages ? html`<a class="btn small" rel="next" href="${listUrl(filters, filters.page + 1)}">Next →</a>` : '';
  return layout(
    'Flows',
    html`<h1>Flows</h1>
      <p class="muted">
        Reviewed custom transforms and enrichment jobs saved as reusable flows (<code>save-workflow</code>). Run one with
        <code>POST /api/public/workflows/{id}/execute</code>; its output is staged for review like any other activity.
      </p>
      <form class="filters card" method="get" action="${DASHBOARD_BASE}/flows">
        <label class="grow">Search <input type="search" name="q" value="${filters.search ?? ''}" placeholder="Name or description" /></label>
        <button type="submit" class="btn">Search</button>
        ${filters.search ? html`<a class="btn ghost" href="${DASHBOARD_BASE}/flows">Clear</a>` : ''}
      </form>
      <section class="card">
        ${
          d.flows.length
            ? html`<table class="list flows">
                <thead>
                  <tr>
                    <th>Flow</th>
                    <th>Description</th>
                    <th class="num">Nodes</th>
                    <th>Steps</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.flows.map(
                    (f) =>
                      html`<tr data-flow-id="${f.id}">
                        <td><a href="${flowPath(f.id)}">${f.name}</a></td>
                        <td class="description">${f.description ?? ''}</td>
                        <td class="num">${f.nodes.length}</td>
                        <td><code>${nodeChain(f.nodes)}</code></td>
                        <td>${when(f.created_at)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted">
                ${filters.search ? 'No flow matches.' : 'No flows yet. Save a reviewed custom transform or enrichment job as a flow to see it here.'}
              </p>`
        }
        <nav class="pager">${prev}<span>Page ${filters.page} of ${Math.max(d.totalPages, 1)} · ${d.total} flow(s)</span>${next}</nav>
      </section>`,
    session,
    [flowsCrumb()],
  );
}

/** What a node does, by type (src/models/flow.ts): code, output fields, the catalog staged into. */
function nodeConfig(node: FlowNode, d: FlowPageData): SafeHtml {
  const c = node.config;
  if (node.type === 'input') return html`<p class="muted">The rows given to <code>execute</code>.</p>`;
  if (node.type === 'custom_code') {
    return html`<p class="muted">
        Python, <code>def transform(rows: list[dict]) -&gt; list[dict]</code>, run a page of rows at a time in the sandbox · timeout
        <strong class="timeout">${String(c.timeout_seconds ?? '')} s</strong>${c.memory_mib ? html` · memory ${String(c.memory_mib)} MiB` : ''}
      </p>
      <pre class="code"><code>${String(c.python_code ?? '')}</code></pre>`;
  }
  if (node.type === 'enrich') {
    const request = record(c.request);
    const fields = Array.isArray(request.output_schema) ? request.output_schema.map(record) : [];
    return html`<p class="muted">The enrichment engine with the saved request of the job it was saved from (one child enrichment job per run).</p>
      ${
        fields.length
          ? html`<table class="list fields">
              <thead>
                <tr>
                  <th>Output field</th>
                  <th>Type</th>
                  <th>Description</th>
                </tr>
              </thead>
              <tbody>
                ${fields.map(
                  (f) =>
                    html`<tr>
                      <td><code>${String(f.name ?? '')}</code></td>
                      <td>${String(f.type ?? '')}</td>
                      <td>${String(f.description ?? '')}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p class="muted">No output fields in the saved request.</p>`
      }
      <details>
        <summary>Saved request</summary>
        <pre class="code"><code>${JSON.stringify(request, null, 2)}</code></pre>
      </details>`;
  }
  const catalogId = String(c.catalog_id ?? d.flow.catalog_id ?? '');
  const catalog = d.catalogs[catalogId];
  return html`<p>
    Stages the rows as one review activity of
    ${catalog ? html`<a class="catalog-link" href="${DASHBOARD_BASE}/catalogs/${catalog.id}">${catalog.name}</a>` : html`catalog <code>${catalogId}</code> (no longer available)`}.
    Keys starting with <code>__</code> are flow metadata, never item data.
  </p>`;
}

function nodeCard(node: FlowNode, position: number, d: FlowPageData): SafeHtml {
  return html`<li class="node" data-node-id="${node.id}" data-node-type="${node.type}">
    <div class="node-head">
      <span class="position">${position + 1}</span><code class="node-id">${node.id}</code>${badge(node.type.replace(/_/g, ' '), `type node-${node.type}`)}
    </div>
    ${nodeConfig(node, d)}
    ${
      node.attachments?.length
        ? html`<details>
            <summary>${node.attachments.length} attachment(s)</summary>
            <pre class="code"><code>${JSON.stringify(node.attachments, null, 2)}</code></pre>
          </details>`
        : ''
    }
  </li>`;
}

function runsTable(flow: Flow, runs: FlowRun[]): SafeHtml {
  if (!runs.length) return html`<p class="muted">No runs yet.</p>`;
  return html`<table class="list runs">
    <thead>
      <tr>
        <th>Run</th>
        <th>Status</th>
        <th>Progress</th>
        <th class="num">Rows in</th>
        <th>Created</th>
        <th>Completed</th>
      </tr>
    </thead>
    <tbody>
      ${runs.map(
        (r) =>
          html`<tr data-run-id="${r.id}" data-status="${r.status}">
            <td>
              <a href="${runPath(flow.id, r.id)}"><code>${r.id.slice(0, 8)}</code></a>
            </td>
            <td>${statusBadge(r.status)}</td>
            <td>${progressBar(r.progress, r.status)}</td>
            <td class="num">${r.input_count}</td>
            <td>${when(r.created_at)}</td>
            <td>${when(r.completed_at)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The flow page (`workflow_url`): description, the activity it was saved from, its nodes in order, its recent runs. */
export function flowPage(d: FlowPageData, session: PageSession): string {
  const { flow, sourceActivity: a } = d;
  const source = a
    ? html`<a class="source-activity" href="${reviewUrl('', a.catalog_id ?? flow.catalog_id, a.id)}">${reviewActivityTitle(a)}</a>`
    : flow.source_activity_id
      ? html`activity <code>${flow.source_activity_id}</code> (no longer available)`
      : html`<span class="muted">—</span>`;
  return layout(
    flow.name,
    html`<div id="flow" data-flow-id="${flow.id}">
      <div class="title-row">
        <h1>${flow.name}</h1>
        ${badge(`${flow.nodes.length} nodes`, 'type')}
      </div>
      ${flow.description ? html`<p class="flow-description">${flow.description}</p>` : ''}
      <dl class="facts">
        <dt>Saved from</dt>
        <dd>${source}</dd>
        <dt>Created</dt>
        <dd>${when(flow.created_at)}</dd>
        <dt>Flow id</dt>
        <dd><code>${flow.id}</code></dd>
        <dt>Run it</dt>
        <dd><code>POST /api/public/workflows/${flow.id}/execute {"input": [rows]}</code></dd>
      </dl>
      <section class="card">
        <h2>Nodes</h2>
        <ol class="nodes">
          ${flow.nodes.map((n, i) => nodeCard(n, i, d))}
        </ol>
      </section>
      <section class="card">
        <h2>Recent runs <span class="muted">(newest ${d.runs.length})</span></h2>
        ${runsTable(flow, d.runs)}
      </section>
    </div>`,
    session,
    [flowsCrumb(), html`<span>${flow.name}</span>`],
  );
}

/** A row value as text: scalars as they are, `null` muted, objects and lists as JSON. */
function cellValue(value: unknown): SafeHtml {
  if (value === null || value === undefined) return html`<span class="muted">null</span>`;
  if (typeof value === 'object') return html`<code class="json">${JSON.stringify(value)}</code>`;
  return html`${String(value)}`;
}

function nodesTable(d: RunPageData, filters: RunPageFilters): SafeHtml {
  return html`<table class="list run-nodes">
    <thead>
      <tr>
        <th>#</th>
        <th>Node</th>
        <th>Type</th>
        <th>Status</th>
        <th class="num">Output rows</th>
        <th class="num">Executions</th>
        <th>Completed</th>
        <th>Error</th>
      </tr>
    </thead>
    <tbody>
      ${d.nodes.map(
        (n) =>
          html`<tr data-node-id="${n.node_id}" data-status="${n.status}" class="${n.node_id === d.run.failed_node_id ? 'failed-node' : ''}">
            <td>${n.position + 1}</td>
            <td>
              ${
                d.outputNodes.includes(n.node_id)
                  ? html`<a href="${runPath(d.flow.id, d.run.id, { node: n.node_id })}"><code>${n.node_id}</code></a>`
                  : html`<code>${n.node_id}</code>`
              }${n.node_id === d.selectedNode && filters.node ? html` <span class="muted">(shown)</span>` : ''}
            </td>
            <td>${n.node_type.replace(/_/g, ' ')}</td>
            <td>${statusBadge(n.status)}</td>
            <td class="num">${n.output_count}</td>
            <td class="num">${n.executions}</td>
            <td>${when(n.completed_at)}</td>
            <td class="error-text">${n.error ?? ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function resultsPager(d: RunPageData, filters: RunPageFilters): SafeHtml {
  const rows = d.rows;
  if (!rows) return html``;
  const totalPages = Math.max(1, Math.ceil(rows.total / rows.page_size));
  const node = d.selectedNode ?? undefined;
  const prev =
    filters.page > 1 ? html`<a class="btn small" rel="prev" href="${runPath(d.flow.id, d.run.id, { node, page: filters.page - 1 })}">← Previous</a>` : '';
  const next = rows.has_more ? html`<a class="btn small" rel="next" href="${runPath(d.flow.id, d.run.id, { node, page: filters.page + 1 })}">Next →</a>` : '';
  return html`<nav class="pager">${prev}<span>Page ${filters.page} of ${totalPages} · ${rows.total} row(s)</span>${next}</nav>`;
}

function resultsSection(d: RunPageData, filters: RunPageFilters): SafeHtml {
  const selector = d.outputNodes.length
    ? html`<form class="filters node-select" method="get" action="${runPath(d.flow.id, d.run.id)}">
        <label
          >Output of node
          <select name="node" id="node-select">
            ${d.nodes.map(
              (n) =>
                html`<option
                  value="${n.node_id}"
                  ${n.node_id === d.selectedNode ? html` selected` : ''}
                  ${d.outputNodes.includes(n.node_id) ? '' : html` disabled`}
                >
                  ${n.node_id} (${n.node_type.replace(/_/g, ' ')}, ${n.output_count} rows)
                </option>`,
            )}
          </select></label
        >
        <button type="submit" class="btn">Show</button>
        <span class="muted"
          >${d.run.status === 'completed' && d.selectedNode === d.nodes[d.nodes.length - 1]?.node_id ? "The run's results (output of its last node)." : ''}</span
        >
      </form>`
    : '';
  const rows = d.rows;
  const body = !rows
    ? d.run.status === 'running'
      ? html`<p class="muted">Results appear when the run has completed.</p>`
      : d.selectedNode
        ? html`<p class="muted">Node <code>${d.selectedNode}</code> has no output to show (it did not complete).</p>`
        : html`<p class="muted">No node output to show.</p>`
    : rows.data.length
      ? html`<div class="table-scroll">
          <table class="list results" data-node-id="${d.selectedNode}">
            <thead>
              <tr>
                <th class="num">Row</th>
                ${d.columns.map((c) => (c.startsWith('__') ? html`<th class="meta" title="Flow metadata, not item data">${c}</th>` : html`<th>${c}</th>`))}
              </tr>
            </thead>
            <tbody>
              ${rows.data.map(
                (row, i) =>
                  html`<tr>
                    <td class="num muted">${(filters.page - 1) * rows.page_size + i + 1}</td>
                    ${d.columns.map((c) => html`<td data-column="${c}" class="${c.startsWith('__') ? 'meta' : ''}">${Object.hasOwn(row, c) ? cellValue(row[c]) : ''}</td>`)}
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`
      : html`<p class="muted">No rows on this page.</p>`;
  return html`<section class="card results-card" id="results">
    <h2>Results${d.selectedNode ? html` · node <code>${d.selectedNode}</code>` : ''}</h2>
    ${selector}${resultsPager(d, filters)}${body}${rows && rows.total > rows.page_size ? resultsPager(d, filters) : ''}
  </section>`;
}

/** The run page: status, progress, the failure, the review activity it left, its nodes, its `updates`, and a node's output. */
export function runPage(d: RunPageData, filters: RunPageFilters, session: PageSession): string {
  const { run, flow } = d;
  const review = run.activity_id ? reviewUrl('', run.catalog_id, run.activity_id) : null;
  return layout(
    `Run ${run.id.slice(0, 8)} · ${flow.name}`,
    html`<div id="run" data-run-id="${run.id}" data-status="${run.status}">
      <div class="title-row">
        <h1>Run <code>${run.id.slice(0, 8)}</code></h1>
        ${statusBadge(run.status)}
        <span class="muted">of <a href="${flowPath(flow.id)}">${flow.name}</a></span>
      </div>
      <section class="card run-status">
        <div class="run-progress">${progressBar(run.progress, run.status)}</div>
        <dl class="facts">
          <dt>Current step</dt>
          <dd><code>${run.current_step ?? '—'}</code></dd>
          <dt>Message</dt>
          <dd class="run-message">${run.message ?? ''}</dd>
          <dt>Rows in</dt>
          <dd>${run.input_count}</dd>
          <dt>Created</dt>
          <dd>${when(run.created_at)}</dd>
          <dt>Completed</dt>
          <dd>${run.completed_at ? when(run.completed_at) : html`<span class="muted">—</span>`}</dd>
          ${
            run.attempts > 1
              ? html`<dt>Executions</dt>
                  <dd>${run.attempts} (rerun)</dd>`
              : ''
          }
        </dl>
        ${run.status === 'running' ? html`<p class="muted refreshing">This page refreshes every ${RUN_REFRESH_SECONDS} s while the run runs.</p>` : ''}
      </section>
      ${
        run.status === 'failed'
          ? html`<section class="card failure" role="alert">
              <h2>Failed${run.failed_node_id ? html` at node <code class="failed-node-id">${run.failed_node_id}</code>` : ''}</h2>
              <pre class="error-text run-error">${run.error ?? 'No error recorded.'}</pre>
              <p class="muted">An operator can rerun it from the failed node: <code>npm run ops -- rerun ${run.id}</code>.</p>
            </section>`
          : ''
      }
      ${
        review
          ? html`<section class="card review-link">
              <h2>Review</h2>
              <p>
                The stage node left a review activity:
                <a class="btn primary" id="review-activity" href="${review}">Review and apply the staged changes</a>
              </p>
            </section>`
          : ''
      }
      <section class="card">
        <h2>Nodes</h2>
        ${nodesTable(d, filters)}
      </section>
      <section class="card">
        <h2>Updates <span class="muted">(${run.updates.length} line(s): print output and milestones)</span></h2>
        ${run.updates.length ? html`<pre class="log" id="updates">${run.updates.join('\n')}</pre>` : html`<p class="muted">No updates.</p>`}
      </section>
      ${resultsSection(d, filters)}
    </div>`,
    session,
    [flowsCrumb(), flowCrumb(flow), html`<span>Run ${run.id.slice(0, 8)}</span>`],
    run.status === 'running' ? { refreshSeconds: RUN_REFRESH_SECONDS } : {},
  );
}
