/* global document, window, fetch */
// The jobs page (issue 28 §7): Cancel on a running enrichment job posts
// POST /api/public/enrich/{id}/cancel with the session cookie and the page's CSRF token, after a
// confirmation that says what cancel keeps, then reloads the page. No framework, no CDN.
(function () {
  'use strict';
  const meta = document.querySelector('meta[name="csrf-token"]');
  const box = document.getElementById('jobs-message');
  if (!meta || !box) return;
  const csrf = meta.getAttribute('content');
  document.addEventListener('click', async function (event) {
    const button = event.target.closest('button[data-cancel-job]');
    if (!button) return;
    if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
    button.disabled = true;
    box.textContent = 'Cancelling…';
    try {
      const res = await fetch('/api/public/enrich/' + encodeURIComponent(button.dataset.cancelJob) + '/cancel', {
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
    }
  });
})();
