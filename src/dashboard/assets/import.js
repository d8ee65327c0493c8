/* global document, window, fetch, FormData, URL */
// The import page: reads the file's columns through POST /api/public/infer-schema,
// proposes each column's field (the catalog field of the same name, case and punctuation aside,
// else the column's own name), runs a dry run and then the import through
// POST /api/public/catalogs/{id}/items/import (multipart, with the CSRF token), polls the import
// and shows its counters and failed lines (GET …/import/{id} and …/lines). Everything shown is
// set with textContent: never HTML. No framework, no CDN.
(function () {
  'use strict';
  const root = document.getElementById('import-page');
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (!root || !meta) return;
  const csrf = meta.getAttribute('content');
  const catalogId = root.dataset.catalogId;
  const fields = JSON.parse(root.dataset.fields || '[]');
  const base = '/api/public/catalogs/' + encodeURIComponent(catalogId) + '/items/import';
  const fileInput = document.getElementById('import-file');
  const fileMessage = document.getElementById('file-message');
  const mappingSection = document.getElementById('mapping-section');
  const mappingRows = document.getElementById('mapping-rows');
  const dryRunButton = document.getElementById('dry-run-button');
  const runButton = document.getElementById('run-button');
  const reportSection = document.getElementById('report-section');
  let columns = [];
  let polling = 0;

  function norm(s) {
    return String(s)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '');
  }

  function el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    Object.keys(attrs || {}).forEach(function (k) {
      e.setAttribute(k, attrs[k]);
    });
    return e;
  }

  async function call(method, url, body) {
    const res = await fetch(url, {
      method: method,
      credentials: 'same-origin',
      headers: Object.assign({ Accept: 'application/json' }, method === 'GET' ? {} : { 'X-CSRF-Token': csrf }),
      body: body,
    });
    const data = await res.json().catch(function () {
      return {};
    });
    if (!res.ok) {
      const detail = Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join('; ') : data.detail;
      throw new Error(detail || 'HTTP ' + res.status);
    }
    return data;
  }

  // The proposed field of a column: the catalog field of the same name (normalised), else the column.
  function proposed(column) {
    const exact = fields.indexOf(column) >= 0 ? column : null;
    if (exact) return exact;
    const match = fields.filter((f) => norm(f) === norm(column));
    return match.length ? match[0] : column;
  }

  function showMapping(inferred) {
    const props = (inferred.suggested_schema && inferred.suggested_schema.properties) || {};
    columns = Object.keys(props).filter((k) => props[k]['x-field-category'] === 'input');
    mappingRows.textContent = '';
    columns.forEach(function (column, i) {
      const tr = el('tr', null, { 'data-column': column });
      tr.appendChild(el('td')).appendChild(el('label', column, { for: 'map-' + i }));
      tr.appendChild(el('td', props[column].type || ''));
      const select = el('select', null, { id: 'map-' + i, 'data-column': column });
      const choice = proposed(column);
      const options = [['', 'skip this column']];
      if (fields.indexOf(column) < 0) options.push([column, column + ' (new field, as named in the file)']);
      fields.forEach((f) => options.push([f, f]));
      options.forEach(function (o) {
        const opt = el('option', o[1], { value: o[0] });
        if (o[0] === choice) opt.selected = true;
        select.appendChild(opt);
      });
      tr.appendChild(el('td')).appendChild(select);
      mappingRows.appendChild(tr);
    });
    mappingSection.hidden = false;
    runButton.disabled = true;
  }

  function mapping() {
    const out = {};
    mappingRows.querySelectorAll('select[data-column]').forEach(function (s) {
      if (s.value !== s.dataset.column) out[s.dataset.column] = s.value;
    });
    return out;
  }

  function mode() {
    const checked = document.querySelector('input[name="mode"]:checked');
    return checked ? checked.value : 'upsert';
  }

  document.getElementById('import-file-form').addEventListener('submit', async function (event) {
    event.preventDefault();
    if (!fileInput.files.length) return;
    fileMessage.textContent = 'Reading the columns…';
    const form = new FormData();
    form.append('file', fileInput.files[0]);
    try {
      const inferred = await call('POST', '/api/public/infer-schema', form);
      showMapping(inferred);
      fileMessage.textContent = columns.length + ' column(s), ' + inferred.total_rows + ' line(s) read from ' + inferred.file_name + '.';
    } catch (err) {
      fileMessage.textContent = 'The file could not be read: ' + err.message;
    }
  });

  async function start(dryRun) {
    if (!fileInput.files.length) return;
    const form = new FormData();
    form.append('mapping', JSON.stringify(mapping()));
    form.append('mode', mode());
    form.append('dry_run', dryRun ? 'true' : 'false');
    form.append('file', fileInput.files[0]);
    dryRunButton.disabled = true;
    runButton.disabled = true;
    reportSection.hidden = false;
    document.getElementById('report-status').textContent = dryRun ? 'Starting the dry run…' : 'Starting the import…';
    try {
      const imp = await call('POST', base, form);
      const url = new URL(window.location.href);
      url.searchParams.set('import_id', imp.import_id);
      window.history.replaceState(null, '', url.toString());
      await follow(imp.import_id);
    } catch (err) {
      document.getElementById('report-status').textContent = 'Not started: ' + err.message;
    }
    dryRunButton.disabled = false;
  }

  function showCounts(imp) {
    const row = document.getElementById('report-counts');
    row.textContent = '';
    [imp.total_lines, imp.processed_lines, imp.created, imp.updated, imp.unchanged, imp.failed].forEach((n) => row.appendChild(el('td', n)));
    const what = imp.dry_run ? 'Dry run' : 'Import';
    const status =
      imp.status === 'running'
        ? what + ' running: ' + imp.processed_lines + ' of ' + imp.total_lines + ' line(s)…'
        : imp.status === 'failed'
          ? what + ' failed: ' + (imp.error || 'unknown error')
          : imp.dry_run
            ? 'Dry run done (' + imp.mode + '): nothing was written. The counts say what the import would do.'
            : 'Import done (' + imp.mode + ').';
    const box = document.getElementById('report-status');
    box.textContent = status;
    box.dataset.status = imp.status;
    box.dataset.dryRun = String(imp.dry_run);
  }

  async function showLines(imp) {
    const data = await call('GET', base + '/' + encodeURIComponent(imp.import_id) + '/lines?format=json&limit=10000');
    const body = document.getElementById('report-lines');
    body.textContent = '';
    const failed = data.lines.filter((l) => l.status === 'failed');
    failed.slice(0, 200).forEach(function (l) {
      const tr = el('tr', null, { 'data-line': l.line });
      tr.appendChild(el('td', l.line));
      tr.appendChild(el('td', l.errors.map((e) => (e.loc && e.loc.length ? e.loc.join('.') + ': ' : '') + e.msg).join('; ')));
      body.appendChild(tr);
    });
    if (!failed.length) body.appendChild(el('tr')).appendChild(el('td', 'No line failed.', { colspan: '2' }));
    const links = document.getElementById('report-links');
    links.textContent = '';
    links.appendChild(el('a', 'Per-line report (CSV)', { href: base + '/' + encodeURIComponent(imp.import_id) + '/lines?format=csv', download: '' }));
    links.appendChild(document.createTextNode(' · '));
    links.appendChild(el('a', 'All imports on the jobs page', { href: '/dashboard/jobs?kind=import' }));
    if (!imp.dry_run) {
      links.appendChild(document.createTextNode(' · '));
      links.appendChild(el('a', 'The catalog’s items', { href: '/dashboard/catalogs/' + encodeURIComponent(catalogId) + '/items' }));
    }
  }

  async function follow(importId) {
    const mine = ++polling;
    reportSection.hidden = false;
    for (;;) {
      const imp = await call('GET', base + '/' + encodeURIComponent(importId));
      if (mine !== polling) return;
      showCounts(imp);
      if (imp.status !== 'running') {
        await showLines(imp);
        // After a finished dry run of the chosen file, the import itself can run.
        runButton.disabled = !(imp.dry_run && imp.status === 'completed' && fileInput.files.length);
        return;
      }
      await new Promise((r) => window.setTimeout(r, 1000));
    }
  }

  dryRunButton.addEventListener('click', function () {
    start(true);
  });
  runButton.addEventListener('click', function () {
    start(false);
  });
  // Changing the mapping or the mode asks for a new dry run before the import.
  mappingSection.addEventListener('change', function () {
    runButton.disabled = true;
  });
  if (root.dataset.importId) {
    follow(root.dataset.importId).catch(function (err) {
      document.getElementById('report-status').textContent = 'Could not load the import: ' + err.message;
    });
  }
})();
