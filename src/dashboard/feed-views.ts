import type { ValidationDetail } from '../lib/errors';
import type { Catalog } from '../models/catalog';
import type { Feed } from '../models/feed';
import { publicFeedPath } from '../presenters/feeds';
import type { PanelFeed } from './channel-readiness-data';
import type { FeedFormValues, MappingRow } from './feed-form';
import { NEW_MAPPING_ROWS } from './feed-form';
import type { ChannelChoice, FeedListData } from './feeds-data';
import { html, type SafeHtml } from './html';
import { catalogCrumb, DASHBOARD_BASE, layout, statusBadge, when, type PageSession } from './views';

/**
 * The console's feeds list and feed forms (docs/console.md "Feeds"): a catalog's feeds with their
 * channel, format, target, schedule, public URL (with a copy button; feeds.js) and latest run;
 * the "new feed" form (no mapping: the service proposes one) and the "edit feed" form with the
 * mapping editor. Refused forms come back with the API's 422 messages beside their fields and
 * the user's input kept. Every value is escaped by {@link html}. The feed and run pages are
 * ./feed-run-views.ts.
 */

/** `/dashboard/catalogs/{id}/feeds`. */
export function feedsPath(catalogId: string): string {
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/feeds`;
}

/** `/dashboard/catalogs/{id}/feeds/{feed_id}`. */
export function feedPath(catalogId: string, feedId: string): string {
  return `${feedsPath(catalogId)}/${feedId}`;
}

/** `/dashboard/catalogs/{id}/feeds/{feed_id}/runs/{run_id}`. */
export function feedRunPath(catalogId: string, feedId: string, runId: string): string {
  return `${feedPath(catalogId, feedId)}/runs/${runId}`;
}

/** Whether the session may change feeds: the API's feed routes need a reviewer (src/services/access/route-roles.ts); key sessions act as admin. */
export function canPublish(session: PageSession): boolean {
  return !session.role || session.role === 'reviewer' || session.role === 'admin';
}

/** The absolute public URL of a feed (docs/feeds.md "Public URL"). */
export function publicUrlOf(publicBase: string, feed: Feed): string {
  return `${publicBase}${publicFeedPath(feed.public_token)}`;
}

/** A feed's target as one text: "DE · de · EUR". */
export function targetText(feed: Feed): string {
  return [feed.target_country, feed.language, feed.currency ?? 'no currency'].join(' · ');
}

/** The public URL box: a read-only input (selectable without script) and a copy button (feeds.js). */
export function publicUrlBox(publicBase: string, feed: Feed, id: string): SafeHtml {
  return html`<span class="public-url">
    <input type="text" readonly id="${id}" value="${publicUrlOf(publicBase, feed)}" aria-label="Public URL of the ${feed.channel} ${feed.format} feed" />
    <button type="button" class="btn small" data-copy="${id}">Copy<span class="visually-hidden"> the public URL</span></button>
  </span>`;
}

function listRow(catalogId: string, publicBase: string, f: PanelFeed): SafeHtml {
  const run = f.latest;
  return html`<tr data-feed-id="${f.feed.id}">
    <th scope="row"><a href="${feedPath(catalogId, f.feed.id)}">${f.feed.channel}</a></th>
    <td>${f.feed.format}</td>
    <td>${targetText(f.feed)}</td>
    <td>${f.feed.schedule ? html`<code>${f.feed.schedule}</code>` : html`<span class="muted">none</span>`}</td>
    <td class="public-url-cell">${publicUrlBox(publicBase, f.feed, `public-url-${f.feed.id}`)}</td>
    <td>
      ${
        run
          ? html`<a href="${feedRunPath(catalogId, f.feed.id, run.id)}"
              >${statusBadge(run.status)}<span class="visually-hidden"> run of ${when(run.created_at)}</span></a
            >`
          : html`<span class="muted">no run yet</span>`
      }
    </td>
  </tr>`;
}

/** The feeds list page of a catalog; `publicBase` is the service's public URL (`Config.publicUrl`). */
export function feedListPage(d: FeedListData, publicBase: string, session: PageSession): string {
  const cid = d.catalog.id;
  return layout(
    `Feeds · ${d.catalog.name}`,
    html`<div class="title-row">
        <h1>Feeds</h1>
        <span class="muted">${d.catalog.name}</span>
        <span class="spacer"></span>
        <a href="${DASHBOARD_BASE}/catalogs/${cid}/completeness#channel-readiness">Channel readiness</a>
        ${canPublish(session) ? html`<a class="btn primary" id="new-feed-link" href="${feedsPath(cid)}/new">New feed</a>` : ''}
      </div>
      <p class="muted">A feed publishes the catalog to a channel in one file format; each run checks every item against the channel's rules.</p>
      <p class="visually-hidden" role="status" id="copy-status"></p>
      ${
        d.feeds.length
          ? html`<div class="table-scroll">
              <table class="list feeds" id="feeds">
                <caption class="visually-hidden">
                  Feeds of ${d.catalog.name}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Channel</th>
                    <th scope="col">Format</th>
                    <th scope="col">Country · language · currency</th>
                    <th scope="col">Schedule (UTC)</th>
                    <th scope="col">Public URL</th>
                    <th scope="col">Latest run</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.feeds.map((f) => listRow(cid, publicBase, f))}
                </tbody>
              </table>
            </div>`
          : html`<p class="muted" id="no-feeds">No feeds yet.</p>`
      }`,
    session,
    [catalogCrumb(d.catalog), html`<span>Feeds</span>`],
    { scripts: ['feeds.js'] },
  );
}

/** The messages of the details at `loc` = body.<name>[.<sub>]. */
function errorsAt(errors: ValidationDetail[], name: string, sub?: string): string[] {
  return errors.filter((e) => e.loc[1] === name && (sub === undefined || e.loc[2] === sub)).map((e) => e.msg);
}

/** A labelled text input with its 422 messages (announced with the input through aria-describedby). */
function textField(
  name: keyof FeedFormValues,
  label: string,
  v: FeedFormValues,
  errors: ValidationDetail[],
  hint: string,
  attrs: SafeHtml | string = '',
): SafeHtml {
  const msgs = errorsAt(errors, name);
  const id = `feed-${name}`;
  return html`<div class="form-field">
    <label for="${id}">${label} <span class="muted">${hint}</span></label>
    <input
      type="text"
      id="${id}"
      name="${name}"
      value="${String(v[name])}"
      ${attrs}
      ${msgs.length ? html`aria-invalid="true" aria-describedby="${id}-error"` : ''}
    />
    ${msgs.length ? html`<p class="field-error" id="${id}-error">${msgs.join('; ')}</p>` : ''}
  </div>`;
}

function selectField(name: 'channel' | 'format' | 'entity_type', label: string, options: SafeHtml, errors: ValidationDetail[], hint = ''): SafeHtml {
  const msgs = errorsAt(errors, name);
  const id = `feed-${name}`;
  return html`<div class="form-field">
    <label for="${id}">${label} <span class="muted">${hint}</span></label>
    <select id="${id}" name="${name}" ${msgs.length ? html`aria-invalid="true" aria-describedby="${id}-error"` : ''}>
      ${options}
    </select>
    ${msgs.length ? html`<p class="field-error" id="${id}-error">${msgs.join('; ')}</p>` : ''}
  </div>`;
}

function settingsFields(v: FeedFormValues, channels: ChannelChoice[], errors: ValidationDetail[]): SafeHtml {
  const opt = (value: string, label: string, selected: boolean) => html`<option value="${value}" ${selected ? 'selected' : ''}>${label}</option>`;
  return html`<fieldset>
      <legend>Channel and target</legend>
      ${selectField('channel', 'Channel', html`${opt('', 'Choose a channel', v.channel === '')}${channels.map((c) => opt(c.id, c.name, c.id === v.channel))}`, errors)}
      ${selectField(
        'format',
        'Format',
        html`${opt('', 'Choose a format', v.format === '')}${channels.map(
          (c) => html`<optgroup label="${c.name}">${c.formats.map((f) => opt(f, f, f === v.format))}</optgroup>`,
        )}`,
        errors,
        '(one the channel offers)',
      )}
      ${textField('target_country', 'Target country', v, errors, '(ISO 3166-1, e.g. DE)', html`required maxlength="2" autocomplete="off"`)}
      ${textField('language', 'Language', v, errors, '(BCP 47, e.g. de)', html`required maxlength="35" autocomplete="off"`)}
      ${textField('currency', 'Currency', v, errors, '(ISO 4217, optional: appended to prices without one)', html`maxlength="3" autocomplete="off"`)}
    </fieldset>
    <fieldset>
      <legend>Schedule and filter</legend>
      ${textField('schedule', 'Schedule', v, errors, '(optional cron in UTC, e.g. 0 3 * * * or @daily)', html`maxlength="100" autocomplete="off"`)}
      ${textField('search', 'Only items matching', v, errors, '(optional word search, as the item grid’s)', html`maxlength="500"`)}
      ${selectField(
        'entity_type',
        'Entity type',
        html`${opt('', 'Products and variants', v.entity_type === '')}${opt('product', 'Products only', v.entity_type === 'product')}${opt(
          'variant',
          'Variants only',
          v.entity_type === 'variant',
        )}`,
        errors,
      )}
    </fieldset>`;
}

function mappingRow(row: MappingRow, i: number, reasons: Record<string, string>, errors: ValidationDetail[]): SafeHtml {
  const msgs = row.attribute ? errorsAt(errors, 'mapping', row.attribute) : [];
  const kinds: Array<[string, string]> = [
    ['field', 'catalog field'],
    ['template', 'template'],
    ['value', 'fixed value'],
  ];
  return html`<tr data-attribute="${row.attribute}">
    <td>
      <input type="text" name="m.${i}.attribute" value="${row.attribute}" list="channel-attributes" aria-label="Attribute of row ${i + 1}" />
    </td>
    <td>
      <select name="m.${i}.kind" aria-label="Kind of source of row ${i + 1}">
        ${kinds.map(([k, label]) => html`<option value="${k}" ${row.kind === k ? 'selected' : ''}>${label}</option>`)}
      </select>
    </td>
    <td>
      <input
        type="text"
        name="m.${i}.source"
        value="${row.source}"
        list="catalog-fields"
        aria-label="Source of row ${i + 1}${row.attribute ? ` (${row.attribute})` : ''}"
        ${msgs.length ? html`aria-invalid="true" aria-describedby="mapping-error-${i}"` : ''}
      />
      ${msgs.length ? html`<p class="field-error" id="mapping-error-${i}">${msgs.join('; ')}</p>` : ''}
    </td>
    <td class="muted small">${reasons[row.attribute] ?? ''}</td>
  </tr>`;
}

/** The edit form's mapping editor: a row per attribute, empty rows to add one, the proposal's reasons. */
function mappingEditor(
  v: FeedFormValues,
  channel: ChannelChoice | undefined,
  fields: string[],
  reasons: Record<string, string>,
  errors: ValidationDetail[],
): SafeHtml {
  const rows = [...v.mapping, ...Array.from({ length: NEW_MAPPING_ROWS }, (): MappingRow => ({ attribute: '', kind: 'field', source: '' }))];
  return html`<fieldset>
    <legend>Mapping: channel attribute → source</legend>
    <p class="muted small">
      A catalog field (<code>images[0]</code> the first of a list), a template with <code>{field}</code> placeholders, or a fixed value. Clear a row's source to
      remove its attribute. ${Object.keys(reasons).length ? 'The reasons are the service’s, for its proposed mapping.' : ''}
    </p>
    <datalist id="channel-attributes">${(channel?.attributes ?? []).map((a) => html`<option value="${a}"></option>`)}</datalist>
    <datalist id="catalog-fields">${fields.map((f) => html`<option value="${f}"></option>`)}</datalist>
    <table class="list mapping-editor" id="mapping-editor">
      <thead>
        <tr>
          <th scope="col">Attribute</th>
          <th scope="col">Kind</th>
          <th scope="col">Source</th>
          <th scope="col">Why proposed</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map((r, i) => mappingRow(r, i, reasons, errors))}
      </tbody>
    </table>
  </fieldset>`;
}

/** What the feed form page needs. */
export interface FeedFormPage {
  catalog: Catalog;
  channels: ChannelChoice[];
  values: FeedFormValues;
  errors: ValidationDetail[];
  /** The feed being edited; absent for the new-feed form. */
  feed?: Feed;
  /** The catalog's fields (mapping sources) and, for a proposed mapping, the reasons per attribute. */
  fields?: string[];
  reasons?: Record<string, string>;
}

/** The "new feed" and "edit feed" form page (status 422 when it shows a refused form). */
export function feedFormPage(p: FeedFormPage, session: PageSession): string {
  const cid = p.catalog.id;
  const title = p.feed ? `Edit feed ${p.feed.channel} · ${p.feed.format}` : 'New feed';
  const action = p.feed ? feedPath(cid, p.feed.id) : feedsPath(cid);
  return layout(
    `${title} · ${p.catalog.name}`,
    html`<h1>${title}</h1>
      ${
        p.feed
          ? ''
          : html`<p class="muted">
              Without a mapping the service proposes one from the catalog's schema; you can change it on the feed's edit page afterwards.
            </p>`
      }
      ${
        p.errors.length
          ? html`<div class="alert" role="alert" id="feed-errors">
              Not saved:
              <ul>
                ${p.errors.map((e) => html`<li>${e.loc.slice(1).join('.') || 'feed'}: ${e.msg}</li>`)}
              </ul>
            </div>`
          : ''
      }
      <form method="post" action="${action}" class="feed-form" id="feed-form" novalidate>
        <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
        ${settingsFields(p.values, p.channels, p.errors)}
        ${
          p.feed
            ? mappingEditor(
                p.values,
                p.channels.find((c) => c.id === p.values.channel),
                p.fields ?? [],
                p.reasons ?? {},
                p.errors,
              )
            : ''
        }
        <button type="submit" class="btn primary" id="feed-submit">${p.feed ? 'Save changes' : 'Create feed'}</button>
        <a href="${p.feed ? feedPath(cid, p.feed.id) : feedsPath(cid)}">Cancel</a>
      </form>`,
    session,
    [
      catalogCrumb(p.catalog),
      html`<a href="${feedsPath(cid)}">Feeds</a>`,
      ...(p.feed ? [html`<a href="${feedPath(cid, p.feed.id)}">${p.feed.channel}</a>`] : []),
      html`<span>${p.feed ? 'Edit' : 'New'}</span>`,
    ],
  );
}
