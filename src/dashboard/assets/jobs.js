/* global document, window, fetch */
// The jobs page: Cancel on a running enrichment job or import posts the button's
// data-cancel-url (POST /api/public/enrich/{id}/cancel or …/items/import/{id}/cancel) with the
// session cookie and the page's CSRF token, after a
// confirmation that says what cancel keeps, then reloads the page. While an operation listed runs
// the page reloads itself every few seconds (data-refresh-seconds), but not while a cancel is
// being sent. No framework, no CDN.
(function () {
  'use strict';
  const meta = document.querySelector('meta[name="csrf-token"]');
  const box = document.getElementById('jobs-message');
  if (!meta || !box) return;
  const csrf = meta.getAttribute('content');
  const list = document.getElementById('jobs');
  const seconds = list ? Number(list.dataset.refreshSeconds || 0) : 0;
  let busy = false;
  if (seconds > 0) {
    window.setInterval(function () {
      if (!busy) window.location.reload();
    }, seconds * 1000);
  }
  document.addEventListener('click', async function (event) {
    const button = event.target.closest('button[data-cancel-url]');
    if (!button) return;
    busy = true;
    if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) {
      busy = false;
      return;
    }
    button.disabled = true;
    box.textContent = 'Cancelling…';
    try {
      const res = await fetch(button.dataset.cancelUrl, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { Accept: 'application/json', 'X-CSRF-Token': csrf },
      });
      const data = await res.json().catch(function () {
        return {};
      });
      if (!res.ok) throw new Error(typeof data.detail === 'string' ? data.detail : 'HTTP ' + res.status);
      box.textContent = 'Cancelled.';
      window.location.reload();
    } catch (err) {
      box.textContent = 'Not cancelled: ' + err.message;
      button.disabled = false;
      busy = false;
    }
  });
})();
