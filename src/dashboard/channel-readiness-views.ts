import type { MappingSource } from '../channels';
import { gridUrl } from '../services/catalog/grid/item-grid-query';
import type { ChannelReadiness } from '../services/channels/readiness';
import type { ChannelPanelData, PanelFeed } from './channel-readiness-data';
import { html, type SafeHtml } from './html';
import { countText, itemsPath } from './item-grid-views';
import { DASHBOARD_BASE, type PageSession } from './views';

/**
 * The "Channel readiness" panel of the completeness page (docs/console.md "Channel readiness"):
 * a channel select (a GET form, no script needed), the chosen channel's totals, counts per
 * blocking code and per missing attribute, each linked to the item grid, the "Fill the gaps for
 * <channel>" form (docs/channels.md "Fill the gaps for a channel"), and the catalog's feeds with
 * their latest run and the latest completed file.
 */

/** `/dashboard/catalogs/{id}/channel-readiness/fill-gaps`: the form that starts fill the gaps for a channel. */
export function channelFillGapsPath(catalogId: string): string {
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/channel-readiness/fill-gaps`;
}

/** The dashboard URL of a feed run's file (served by the completeness route table). */
export function feedFilePath(catalogId: string, feedId: string, runId: string): string {
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/feeds/${feedId}/runs/${runId}/file`;
}

/**
 * The grid URL of the items an attribute is missing from: filtered to the items whose catalog
 * field is empty when the attribute maps from one top-level field (`images[0]` counts as
 * `images`), else the unfiltered grid (templates, fixed values, derived `$` sources, nested paths).
 */
function attributeGridUrl(catalogId: string, source: MappingSource | undefined): { url: string; filtered: boolean } {
  const field = typeof source === 'string' && !source.startsWith('$') ? source.replace(/\[0\]$/, '') : null;
  if (field && !/[.[]/.test(field)) return { url: gridUrl(itemsPath(catalogId), { missing: field }), filtered: true };
  return { url: itemsPath(catalogId), filtered: false };
}

function channelForm(d: ChannelPanelData): SafeHtml {
  return html`<form method="get" action="${DASHBOARD_BASE}/catalogs/${d.catalogId}/completeness#channel-readiness" class="channel-form">
    <label for="channel-select">Channel</label>
    <select id="channel-select" name="channel">
      <option value="">Choose a channel</option>
      ${d.channels.map((c) => html`<option value="${c.id}" ${c.id === d.channel ? 'selected' : ''}>${c.name}</option>`)}
    </select>
    <button type="submit" class="btn small">Check readiness</button>
  </form>`;
}

/** The readiness report of the chosen channel: its totals, the blocking codes and the missing attributes (or a prompt to choose). */
function report(d: ChannelPanelData): SafeHtml | string {
  const r = d.report;
  if (!r) return html`<p class="muted">Choose a channel to check the catalog's items against its rules.</p>`;
  const grid = itemsPath(d.catalogId);
  return html`<div class="counts" id="channel-totals">
      <a class="count" href="${grid}"><span class="n">${countText(r.total)}</span><span>feed rows</span></a>
      <a class="count status-approved" href="${grid}"><span class="n">${countText(r.ready)}</span><span>ready</span></a>
      <a class="count status-conflict" href="${grid}"><span class="n">${countText(r.total - r.ready)}</span><span>blocked</span></a>
    </div>
    <p class="muted" id="channel-mapping-source">
      ${
        r.mapping_source === 'feed'
          ? html`Checked with the mapping of feed <code>${r.feed_id}</code> (the channel's most recently updated feed).`
          : html`Checked with the proposed mapping (the catalog has no feed for this channel).`
      }
      Blocking codes link to the unfiltered item grid: the grid cannot filter by a channel rule.
    </p>
    ${blockedTable(r, grid)} ${attributesTable(d, r)}`;
}

/** Count entries, largest first, ties by name. */
const byCount = (m: Record<string, number | undefined>): Array<[string, number]> =>
  Object.entries(m)
    .map(([k, n]): [string, number] => [k, n ?? 0])
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

/** Items blocked per issue code, each count linked to the (unfiltered) grid `grid`. */
function blockedTable(r: ChannelReadiness, grid: string): SafeHtml {
  const codes = byCount(r.blocked);
  return html`<table class="list" id="channel-blocked">
    <caption class="visually-hidden">
      Items blocked per issue code
    </caption>
    <thead>
      <tr>
        <th scope="col">Blocking code</th>
        <th scope="col" class="num">Items</th>
      </tr>
    </thead>
    <tbody>
      ${
        codes.length
          ? codes.map(
              ([code, n]) =>
                html`<tr data-code="${code}">
                  <th scope="row"><code>${code}</code></th>
                  <td class="num">
                    <a class="num-link" href="${grid}" aria-label="${countText(n)} items blocked by ${code} (unfiltered grid)">${countText(n)}</a>
                  </td>
                </tr>`,
            )
          : html`<tr>
              <td colspan="2" class="muted">No item is blocked.</td>
            </tr>`
      }
    </tbody>
  </table>`;
}

/** Items each needed attribute is missing from, with its catalog field; counts link to the grid filtered to items missing that field. */
function attributesTable(d: ChannelPanelData, r: ChannelReadiness): SafeHtml {
  const attributes = byCount(r.by_attribute);
  return html`<table class="list" id="channel-attributes">
    <caption class="visually-hidden">
      Items each needed attribute is missing from
    </caption>
    <thead>
      <tr>
        <th scope="col">Missing attribute</th>
        <th scope="col">Catalog field</th>
        <th scope="col" class="num">Items</th>
      </tr>
    </thead>
    <tbody>
      ${
        attributes.length
          ? attributes.map(([attribute, n]) => {
              const source = r.mapping[attribute];
              const link = attributeGridUrl(d.catalogId, source);
              return html`<tr data-attribute="${attribute}">
                <th scope="row"><code>${attribute}</code></th>
                <td>${typeof source === 'string' ? html`<code>${source}</code>` : html`<span class="muted">not mapped to one field</span>`}</td>
                <td class="num">
                  <a class="num-link" href="${link.url}" aria-label="${countText(n)} items missing ${attribute}${link.filtered ? '' : ' (unfiltered grid)'}"
                    >${countText(n)}</a
                  >
                </td>
              </tr>`;
            })
          : html`<tr>
              <td colspan="3" class="muted">No needed attribute is missing.</td>
            </tr>`
      }
    </tbody>
  </table>`;
}

/**
 * The "Fill the gaps for <channel>" form: the attributes it would fill (with their catalog
 * fields) and those it cannot (with why); a POST with the CSRF token, hidden from viewers.
 */
function fillForm(d: ChannelPanelData, session: PageSession): SafeHtml | string {
  if (!d.report || d.gaps.length === 0) return '';
  const name = d.channels.find((c) => c.id === d.channel)?.name ?? d.channel ?? '';
  const fillable = d.gaps.filter((g) => g.field);
  const notFillable = d.gaps.filter((g) => !g.field);
  return html`<div id="channel-fill">
    <h3>Fill the gaps for ${name}</h3>
    ${
      fillable.length
        ? html`<p>
            Enrich the items missing ${fillable.map((g, i) => html`${i ? ', ' : ''}<code>${g.attribute}</code> (field <code>${g.field}</code>)`)}: one
            enrichment job, its results staged for review; nothing changes in the catalog until you approve and apply them.
          </p>`
        : html`<p class="muted">No missing attribute maps from a catalog field that enrichment could fill.</p>`
    }
    ${
      notFillable.length
        ? html`<ul class="muted" id="channel-not-fillable">
            ${notFillable.map((g) => html`<li data-attribute="${g.attribute}"><code>${g.attribute}</code>: ${g.reason}</li>`)}
          </ul>`
        : ''
    }
    ${
      fillable.length && session.role !== 'viewer'
        ? html`<form method="post" action="${channelFillGapsPath(d.catalogId)}" id="channel-fill-form">
            <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
            <input type="hidden" name="channel" value="${d.channel}" />
            <button type="submit" class="btn primary" id="channel-fill-submit">Fill the gaps for ${name}</button>
          </form>`
        : ''
    }
  </div>`;
}

function feedRow(d: ChannelPanelData, f: PanelFeed): SafeHtml {
  const run = f.latest;
  const done = f.latestCompleted;
  return html`<tr data-feed-id="${f.feed.id}">
    <th scope="row">
      <a href="${DASHBOARD_BASE}/catalogs/${d.catalogId}/feeds/${f.feed.id}"
        ><code>${f.feed.channel}</code> · ${f.feed.format} · ${f.feed.target_country}/${f.feed.language}</a
      >
    </th>
    <td>
      ${
        run
          ? html`<a href="${DASHBOARD_BASE}/catalogs/${d.catalogId}/feeds/${f.feed.id}/runs/${run.id}"
              ><span class="badge status-${run.status}">${run.status}</span><span class="visually-hidden"> latest run</span></a
            >`
          : html`<span class="muted">no run yet</span>`
      }
    </td>
    <td class="num">${run ? countText(run.exported) : '—'}</td>
    <td class="num">${run ? countText(run.excluded) : '—'}</td>
    <td class="num">${run ? countText(run.warnings) : '—'}</td>
    <td>
      ${
        done
          ? html`<a href="${feedFilePath(d.catalogId, f.feed.id, done.id)}" download
              >Download<span class="visually-hidden"> the latest ${f.feed.channel} ${f.feed.format} file</span></a
            >`
          : html`<span class="muted">none</span>`
      }
    </td>
  </tr>`;
}

/** The "Channel readiness" panel (a `section.card` with id `channel-readiness`); `session` gives the fill form its CSRF token. */
export function channelReadinessSection(d: ChannelPanelData, session: PageSession): SafeHtml {
  return html`<section class="card" id="channel-readiness" aria-labelledby="channel-readiness-title">
    <h2 id="channel-readiness-title">Channel readiness</h2>
    ${channelForm(d)} ${report(d)} ${fillForm(d, session)}
    <h3>Feeds</h3>
    <p id="channel-feeds-links">
      <a href="${DASHBOARD_BASE}/catalogs/${d.catalogId}/feeds">All feeds</a> ·
      <a href="${DASHBOARD_BASE}/catalogs/${d.catalogId}/feeds/new">New feed</a>
    </p>
    ${
      d.feeds.length
        ? html`<table class="list" id="channel-feeds">
            <caption class="visually-hidden">
              The catalog's feeds and their latest runs
            </caption>
            <thead>
              <tr>
                <th scope="col">Feed</th>
                <th scope="col">Latest run</th>
                <th scope="col" class="num">Exported</th>
                <th scope="col" class="num">Excluded</th>
                <th scope="col" class="num">Warnings</th>
                <th scope="col">Latest file</th>
              </tr>
            </thead>
            <tbody>
              ${d.feeds.map((f) => feedRow(d, f))}
            </tbody>
          </table>`
        : html`<p class="muted">No feeds yet.</p>`
    }
  </section>`;
}
