/* global document, fetch */
// The home page: each catalog's completeness, loaded after the page is shown (it
// scans the catalog's items) from GET /dashboard/completeness.json, written with textContent.
(function () {
  'use strict';
  const cells = Array.prototype.slice.call(document.querySelectorAll('a.completeness[data-catalog-id]'));
  if (!cells.length) return;
  const query = cells.map((a) => 'catalog_id=' + encodeURIComponent(a.dataset.catalogId)).join('&');
  function percent(share) {
    return share === null ? 'n/a' : Math.floor(share * 1000) / 10 + '%';
  }
  fetch('/dashboard/completeness.json?' + query, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
    .then(function (res) {
      if (!res.ok) throw new Error('HTTP ' + res.status);
      return res.json();
    })
    .then(function (data) {
      const byId = {};
      data.catalogs.forEach((c) => (byId[c.catalog_id] = c));
      cells.forEach(function (a) {
        const c = byId[a.dataset.catalogId];
        if (!c) return;
        a.textContent = percent(c.share);
        a.title =
          c.complete +
          ' of ' +
          c.items +
          ' items have every required field' +
          (c.required_fields.length
            ? ' (schema: ' + c.required_fields.join(', ') + '; taxonomy nodes may require more)'
            : ' (the schema requires none; taxonomy nodes may)');
        a.dataset.share = c.share === null ? '' : String(c.share);
      });
    })
    .catch(function (err) {
      cells.forEach(function (a) {
        a.textContent = 'unavailable';
        a.title = 'Completeness could not be loaded: ' + err.message;
      });
    });
})();
