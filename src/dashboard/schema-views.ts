import type { Catalog } from '../models/catalog';
import type { CatalogSchema } from '../models/catalog-schema';
import type { ValidationDetail } from '../lib/errors';
import { FIELD_TYPES } from '../models/catalog-schema';
import type { SchemaVersionDiff, SchemaVersionEntry } from '../services/catalog/schema/schema-versions';
import type { EnrichedNode, EnrichedTaxonomy } from '../services/catalog/taxonomy';
import { displayValue } from './diff';
import { html, type SafeHtml } from './html';
import { badge, catalogCrumb, DASHBOARD_BASE, layout, record, when, type PageSession } from './views';

/**
 * The console's schema and taxonomy page: the field list with types, units and
 * lineage, and one form that adds, updates (description, unit) and removes fields as ONE batch,
 * i.e. one new schema version (docs/api-reference.md "Batch field changes", src/services/catalog/schema/schema-use-cases.ts); the version list
 * with a diff between any two; the taxonomy tree with inherited attributes, editable as its JSON. Plain forms with the CSRF token.
 */

/** Empty "new field" rows the batch form offers. */
export const NEW_FIELD_ROWS = 3;

/** Everything the schema page renders. */
export interface SchemaPageData {
  catalog: Catalog;
  schema: CatalogSchema;
  versions: SchemaVersionEntry[];
  diff: SchemaVersionDiff | null;
  taxonomy: EnrichedTaxonomy | null;
  /** Display names of the versions' authors by actor id (`person:…`, `api_key:…`; services/access/people.ts `actorNames`). */
  actors?: Record<string, string>;
}

/** What the page says after an action, or the problems of a refused one. */
export interface SchemaPageNotice {
  message?: string | null;
  errors?: ValidationDetail[];
}

/** The schema page's URL. */
export function schemaPath(catalogId: string): string {
  return `${DASHBOARD_BASE}/catalogs/${catalogId}/schema`;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function lineage(info: Record<string, unknown>): SafeHtml {
  const added = str(info.added_in_version);
  const edited = str(info.last_edited_in_version);
  const by = str(info.added_by_workflow) || str(info.added_by_node);
  return html`${added ? html`added in ${added}` : ''}${by ? html` by ${by}` : ''}${edited && edited !== added ? html` · edited in ${edited}` : ''}`;
}

/**
 * The fields of a schema version in its property order, each as its field info
 * (`fields_workflow_info`), or what the property says when a version has no info for it.
 */
export function schemaFields(schema: CatalogSchema): Array<Record<string, unknown>> {
  const infos = new Map((schema.fields_workflow_info ?? []).map((f) => [String(f.field_name), record(f)]));
  const required = schema.schema_definition.required ?? [];
  return Object.entries(schema.schema_definition.properties ?? {}).map(
    ([name, p]) =>
      infos.get(name) ?? {
        field_name: name,
        field_type: Array.isArray(p.type) ? p.type.filter((t) => t !== 'null').join(' | ') : (p.type ?? 'string'),
        description: p.description ?? null,
        required: required.includes(name),
      },
  );
}

/** The schema page's fields form: a table of the schema's fields. Long on purpose: one HTML template, read top to bottom like the page. */
function fieldsForm(d: SchemaPageData, session: PageSession): SafeHtml {
  const infos = schemaFields(d.schema);
  const typeOptions = (selected: string) => FIELD_TYPES.map((t) => html`<option value="${t}" ${t === selected ? html`selected` : ''}>${t}</option>`);
  return html`<form method="post" action="${schemaPath(d.catalog.id)}/fields" id="fields-form">
    <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
    <table class="list schema-fields">
      <caption class="visually-hidden">
        Fields of schema ${d.schema.version}
      </caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Unit</th>
          <th scope="col">Description</th>
          <th scope="col">Scope · category</th>
          <th scope="col">Lineage</th>
          <th scope="col">Remove</th>
        </tr>
      </thead>
      <tbody>
        ${infos.map((f) => {
          const name = str(f.field_name);
          return html`<tr data-field="${name}">
            <th scope="row"><code>${name}</code>${f.required ? badge('required', 'type') : ''}</th>
            <td>${str(f.field_type)}</td>
            <td>
              <label class="visually-hidden" for="unit-${name}">Unit of ${name}</label
              ><input id="unit-${name}" name="unit.${name}" type="text" size="6" value="${str(f.unit)}" />
            </td>
            <td>
              <label class="visually-hidden" for="description-${name}">Description of ${name}</label
              ><input id="description-${name}" name="description.${name}" type="text" value="${str(f.description)}" />
            </td>
            <td>${str(f.scope) || 'variant'} · ${str(f.field_category) || 'input'}</td>
            <td class="muted small">${lineage(f)}</td>
            <td>
              <label class="check"><input type="checkbox" name="remove" value="${name}" /> <span class="visually-hidden">Remove ${name}</span></label>
            </td>
          </tr>`;
        })}
      </tbody>
    </table>
    <h3>Add fields</h3>
    <table class="list new-fields">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Type</th>
          <th scope="col">Unit</th>
          <th scope="col">Description</th>
          <th scope="col">Scope</th>
          <th scope="col">Required</th>
        </tr>
      </thead>
      <tbody>
        ${Array.from(
          { length: NEW_FIELD_ROWS },
          (_, i) =>
            html`<tr>
              <td>
                <label class="visually-hidden" for="new-${i}-name">New field ${i + 1} name</label><input id="new-${i}-name" name="new.${i}.name" type="text" />
              </td>
              <td>
                <label class="visually-hidden" for="new-${i}-type">New field ${i + 1} type</label
                ><select id="new-${i}-type" name="new.${i}.type">
                  ${typeOptions('string')}
                </select>
              </td>
              <td>
                <label class="visually-hidden" for="new-${i}-unit">New field ${i + 1} unit</label
                ><input id="new-${i}-unit" name="new.${i}.unit" type="text" size="6" />
              </td>
              <td>
                <label class="visually-hidden" for="new-${i}-description">New field ${i + 1} description</label
                ><input id="new-${i}-description" name="new.${i}.description" type="text" />
              </td>
              <td>
                <label class="visually-hidden" for="new-${i}-scope">New field ${i + 1} scope</label
                ><select id="new-${i}-scope" name="new.${i}.scope">
                  <option value="variant">variant</option>
                  <option value="product">product</option>
                  <option value="both">both</option>
                </select>
              </td>
              <td>
                <label class="check"
                  ><input type="checkbox" name="new.${i}.required" value="1" /> <span class="visually-hidden">New field ${i + 1} required</span></label
                >
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    <div class="filters">
      <label class="grow" for="batch-reason">Reason <input id="batch-reason" name="reason" type="text" maxlength="500" /></label>
      <button type="submit" class="btn primary" id="save-fields">Save as one new version</button>
    </div>
  </form>`;
}

function versionOptions(versions: SchemaVersionEntry[], selected: string | undefined): SafeHtml[] {
  return versions.map((v) => html`<option value="${v.version}" ${v.version === selected ? html`selected` : ''}>${v.version}</option>`);
}

function diffSection(d: SchemaPageData): SafeHtml | string {
  const x = d.diff;
  if (!x) return '';
  const nothing = !x.added.length && !x.removed.length && !x.changed.length && !x.taxonomy_changed;
  return html`<div id="version-diff" class="version-diff">
    <h3>From ${x.from.version} to ${x.to.version}</h3>
    ${nothing ? html`<p class="muted">No difference in fields or taxonomy.</p>` : ''}
    <ul>
      ${x.added.map((f) => html`<li data-diff="added" data-field="${f}">${badge('added', 'kind-new')} <code>${f}</code></li>`)}
      ${x.removed.map((f) => html`<li data-diff="removed" data-field="${f}">${badge('removed', 'kind-delete')} <code>${f}</code></li>`)}
      ${x.changed.map(
        (c) =>
          html`<li data-diff="changed" data-field="${c.field_name}">
            ${badge('changed', 'type')} <code>${c.field_name}</code>:
            ${Object.keys({ ...c.before, ...c.after })
              .filter((k) => JSON.stringify(c.before[k]) !== JSON.stringify(c.after[k]))
              .map(
                (k) =>
                  html`<span class="change-attr"
                    >${k} <del>${displayValue(c.before[k]) || '(none)'}</del> → <ins>${displayValue(c.after[k]) || '(none)'}</ins></span
                  > `,
              )}
          </li>`,
      )}
      ${x.taxonomy_changed ? html`<li data-diff="taxonomy">${badge('changed', 'type')} the taxonomy</li>` : ''}
    </ul>
  </div>`;
}

function versionsSection(d: SchemaPageData): SafeHtml {
  const from = d.diff?.from.version ?? d.versions[1]?.version;
  const to = d.diff?.to.version ?? d.versions[0]?.version;
  return html`<section class="card" aria-labelledby="versions-heading" id="versions">
    <h2 id="versions-heading">Versions</h2>
    <form method="get" action="${schemaPath(d.catalog.id)}#versions" class="filters">
      <label for="diff-from"
        >From
        <select id="diff-from" name="from">
          ${versionOptions(d.versions, from)}
        </select></label
      >
      <label for="diff-to"
        >To
        <select id="diff-to" name="to">
          ${versionOptions(d.versions, to)}
        </select></label
      >
      <button type="submit" class="btn">Show differences</button>
    </form>
    ${diffSection(d)}
    <table class="list versions">
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Created</th>
          <th scope="col">By</th>
          <th scope="col">Reason</th>
          <th scope="col" class="num">Fields</th>
          <th scope="col">Compatible</th>
        </tr>
      </thead>
      <tbody>
        ${d.versions.map(
          (v) =>
            html`<tr data-version="${v.version}">
              <td>${v.version}${v.version === d.schema.version ? html` ${badge('current', 'status-approved')}` : ''}</td>
              <td>${when(v.created_at)}</td>
              <td class="created-by" title="${v.created_by}">${d.actors?.[v.created_by] ?? v.created_by}</td>
              <td>${v.change_reason}</td>
              <td class="num">${v.total_fields}</td>
              <td>${v.backward_compatible ? 'yes' : 'no (breaking)'}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function nodeTree(t: EnrichedTaxonomy, ids: string[]): SafeHtml {
  return html`<ul class="taxonomy-tree">
    ${ids.map((id) => {
      const n: EnrichedNode = t.nodes[id];
      return html`<li data-node-id="${id}">
        <strong>${n.name}</strong> <code class="muted">${id}</code>
        ${n.attributes.length ? html`<div class="small">Attributes: ${n.attributes.map((a) => html`<code>${a.name}</code>${a.type ? ` (${a.type})` : ''} `)}</div>` : ''}
        ${
          n.inherited_attributes.length
            ? html`<div class="small muted">
                Inherited: ${n.inherited_attributes.map((a) => html`<code>${a.name}</code> from ${t.nodes[a.inherited_from]?.name ?? a.inherited_from} `)}
              </div>`
            : ''
        }
        ${n.children.length ? nodeTree(t, n.children) : ''}
      </li>`;
    })}
  </ul>`;
}

/** The taxonomy as the edit box shows it: the input (object-form nodes), without the stored `node_order`. */
function taxonomyInputText(schema: CatalogSchema): string {
  const stored = schema.taxonomy;
  if (!stored) return JSON.stringify({ name: 'Categories', hierarchy_levels: ['Department', 'Category'], nodes: {} }, null, 2);
  const order = stored.node_order ?? Object.keys(stored.nodes);
  const nodes = Object.fromEntries(order.filter((id) => stored.nodes[id]).map((id) => [id, stored.nodes[id]]));
  return JSON.stringify({ name: stored.name, description: stored.description, hierarchy_levels: stored.hierarchy_levels, nodes }, null, 2);
}

function taxonomySection(d: SchemaPageData, session: PageSession): SafeHtml {
  const t = d.taxonomy;
  const roots = t ? Object.values(t.nodes).filter((n) => n.parent === null) : [];
  return html`<section class="card" aria-labelledby="taxonomy-heading" id="taxonomy">
    <h2 id="taxonomy-heading">Taxonomy${t ? html` · ${t.name}` : ''}</h2>
    ${
      t
        ? html`<p class="muted">Levels: ${t.hierarchy_levels.join(' › ') || '(none)'}</p>
            ${nodeTree(
              t,
              roots.map((n) => n.id),
            )}`
        : html`<p class="muted">This catalog has no taxonomy.</p>`
    }
    <details class="edit" ${t ? '' : html`open`}>
      <summary>Edit the taxonomy</summary>
      <form method="post" action="${schemaPath(d.catalog.id)}/taxonomy">
        <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
        <label for="taxonomy-json"
          >Taxonomy (JSON: <code>name</code>, <code>hierarchy_levels</code>, <code>nodes</code> keyed by id, each with <code>name</code>, <code>parent</code>,
          <code>attributes</code>). Saving makes a new schema version.</label
        >
        <textarea id="taxonomy-json" name="taxonomy" rows="14" spellcheck="false">${taxonomyInputText(d.schema)}</textarea>
        <button type="submit" class="btn primary">Save taxonomy</button>
      </form>
    </details>
  </section>`;
}

/** The schema and taxonomy page. */
export function schemaPage(d: SchemaPageData, notice: SchemaPageNotice, session: PageSession): string {
  return layout(
    `Schema · ${d.catalog.name}`,
    html`<h1>Schema and taxonomy</h1>
      <p class="muted">
        Schema version <strong id="current-version">${d.schema.version}</strong> · ${Object.keys(d.schema.schema_definition.properties ?? {}).length} fields ·
        <a href="${DASHBOARD_BASE}/catalogs/${d.catalog.id}/snapshots">Snapshots</a>
      </p>
      ${
        notice.errors?.length
          ? html`<div class="alert" role="alert" id="schema-notice">
              Not saved: ${notice.errors.map((e) => html`<div>${e.loc.slice(1).join('.')}: ${e.msg}</div>`)}
            </div>`
          : notice.message
            ? html`<p class="notice ok" role="status" id="schema-notice">${notice.message}</p>`
            : ''
      }
      <section class="card" aria-labelledby="fields-heading">
        <h2 id="fields-heading">Fields</h2>
        <p class="muted">Tick fields to remove, change units or descriptions, and fill new rows: saving applies all of it as one new schema version.</p>
        ${fieldsForm(d, session)}
      </section>
      ${versionsSection(d)} ${taxonomySection(d, session)}`,
    session,
    [catalogCrumb(d.catalog), html`<span>Schema</span>`],
  );
}
