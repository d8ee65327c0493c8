import type { Catalog } from '../models/catalog';
import type { CatalogImport } from '../models/catalog-import';
import { html } from './html';
import { jobsUrl } from './jobs-views';
import { catalogCrumb, DASHBOARD_BASE, layout, type PageSession } from './views';

/**
 * The import page: a CSV/XLSX file → its columns as `POST /api/public/infer-schema`
 * reads them, mapped to the catalog's fields (proposed by name, editable) → a dry run (`POST
 * …/items/import` with `dry_run=true`: the workflow reports per line what it would do and writes
 * nothing) showing the failing lines → the import in the chosen mode (upsert, create, update) →
 * its progress (polled) and per-line report. All of it is the page script's calls
 * (assets/import.js) to the existing import API with the session's CSRF token; the page itself
 * only renders the frame. `imp`: an import to show (`?import_id=`), e.g. from the jobs page.
 */
export function importPage(catalog: Catalog, fields: string[], imp: CatalogImport | null, session: PageSession): string {
  return layout(
    `Import into ${catalog.name}`,
    html`<div id="import-page" data-catalog-id="${catalog.id}" data-fields="${JSON.stringify(fields)}" data-import-id="${imp?.id ?? ''}">
      <h1>Import into ${catalog.name}</h1>
      <p class="muted">
        A CSV, XLSX or XLS file whose header row names the columns. Each line becomes an item, found by its <code>${catalog.unique_id_field}</code>; a bad line
        fails alone, with its errors in the report. Imports run in the background: their progress shows here and on the
        <a href="${jobsUrl({ kind: 'import' })}">jobs page</a>.
      </p>
      <section class="card" aria-labelledby="file-heading">
        <h2 id="file-heading">1. File</h2>
        <form id="import-file-form" class="filters">
          <label for="import-file">Spreadsheet</label>
          <input id="import-file" name="file" type="file" accept=".csv,.xlsx,.xls,text/csv" required />
          <button type="submit" class="btn primary">Read the columns</button>
        </form>
        <div id="file-message" class="review-message" role="status" aria-live="polite"></div>
      </section>
      <section class="card" id="mapping-section" aria-labelledby="mapping-heading" hidden>
        <h2 id="mapping-heading">2. Columns → fields</h2>
        <p class="muted">Each column goes to the catalog field of its name unless you choose another; “skip” leaves a column out.</p>
        <table class="list mapping">
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">Type read</th>
              <th scope="col">Field</th>
            </tr>
          </thead>
          <tbody id="mapping-rows"></tbody>
        </table>
        <fieldset class="mode">
          <legend>What the import may do</legend>
          <label><input type="radio" name="mode" value="upsert" checked /> create new items and update existing ones (upsert)</label>
          <label><input type="radio" name="mode" value="create" /> only create new items (a line whose item exists fails)</label>
          <label><input type="radio" name="mode" value="update" /> only update existing items (a line without an item fails)</label>
        </fieldset>
        <button type="button" class="btn" id="dry-run-button">Dry run</button>
        <button type="button" class="btn primary" id="run-button" disabled>Import</button>
        <p class="muted">The dry run reads every line and reports what the import would do; it writes nothing.</p>
      </section>
      <section class="card" id="report-section" aria-labelledby="report-heading" hidden>
        <h2 id="report-heading">Report</h2>
        <div id="report-status" role="status" aria-live="polite"></div>
        <table class="list report-counts">
          <thead>
            <tr>
              <th scope="col">Lines</th>
              <th scope="col">Processed</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
              <th scope="col">Unchanged</th>
              <th scope="col">Failed</th>
            </tr>
          </thead>
          <tbody>
            <tr id="report-counts"></tr>
          </tbody>
        </table>
        <h3>Failed lines</h3>
        <table class="list report-lines">
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Errors</th>
            </tr>
          </thead>
          <tbody id="report-lines"></tbody>
        </table>
        <p id="report-links"></p>
      </section>
    </div>`,
    session,
    [catalogCrumb(catalog), html`<a href="${DASHBOARD_BASE}/catalogs/${catalog.id}/import">Import</a>`],
    { scripts: ['import.js'] },
  );
}
