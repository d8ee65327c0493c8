/* global document, window, fetch */
// The review dashboard's only script (issue 17): sends the review and apply requests of the
// activity page to /api with the session cookie and the CSRF token of the page, polls an apply's
// progress, and reloads the server-rendered page when something changed. No framework, no CDN.
(function () {
  'use strict';
  const meta = document.querySelector('meta[name="csrf-token"]');
  const root = document.getElementById('activity');
  if (!meta || !root) return;
  const csrf = meta.getAttribute('content');
  const activityId = root.dataset.activityId;
  const messageBox = document.getElementById('review-message');

  function show(box, text, kind) {
    if (!box) return;
    box.textContent = text;
    box.className = box.className.replace(/\b(ok|fail)\b/g, '').trim() + (kind ? ' ' + kind : '');
  }

  async function api(method, path, body) {
    const res = await fetch('/api' + path, {
      method: method,
      credentials: 'same-origin',
      headers: Object.assign({ Accept: 'application/json', 'X-CSRF-Token': csrf }, body ? { 'Content-Type': 'application/json' } : {}),
      body: body ? JSON.stringify(body) : undefined,
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

  document.addEventListener('click', async function (event) {
    const button = event.target.closest('button[data-review]');
    if (!button) return;
    const body = JSON.parse(button.dataset.review);
    if ((body.action === 'approve_all' || body.action === 'reject_all') && !window.confirm(button.textContent.trim() + '?')) return;
    button.disabled = true;
    show(messageBox, 'Saving…', '');
    try {
      const result = await api('POST', '/activities/' + encodeURIComponent(activityId) + '/staged-changes/bulk-review', body);
      show(messageBox, 'Updated ' + result.updated + ' change(s).', 'ok');
      window.location.reload();
    } catch (err) {
      show(messageBox, 'Not saved: ' + err.message, 'fail');
      button.disabled = false;
    }
  });

  const applyButton = document.getElementById('apply-button');
  const applyStatus = document.getElementById('apply-status');
  const applyForce = document.getElementById('apply-force');

  function describe(activity) {
    const p = activity.apply_progress || {};
    let text = 'Applying: ' + (p.phase || activity.status);
    if (typeof p.total === 'number') text += ' (' + (p.applied || 0) + ' / ' + p.total + ')';
    return text;
  }

  async function poll() {
    try {
      const activity = await api('GET', '/activities/' + encodeURIComponent(activityId));
      if (activity.apply_result || activity.status === 'completed' || activity.status === 'failed') {
        show(applyStatus, activity.status === 'failed' ? 'Apply failed.' : 'Applied.', activity.status === 'failed' ? 'fail' : 'ok');
        window.location.reload();
        return;
      }
      show(applyStatus, describe(activity), '');
    } catch (err) {
      show(applyStatus, 'Progress unavailable: ' + err.message, 'fail');
    }
    window.setTimeout(poll, 1000);
  }

  if (applyButton) {
    applyButton.addEventListener('click', async function () {
      if (!window.confirm('Apply the approved changes to the catalog?')) return;
      applyButton.disabled = true;
      show(applyStatus, 'Starting…', '');
      try {
        await api('POST', '/activities/' + encodeURIComponent(activityId) + '/apply', { force: Boolean(applyForce && applyForce.checked) });
        poll();
      } catch (err) {
        show(applyStatus, 'Apply not started: ' + err.message, 'fail');
        applyButton.disabled = false;
      }
    });
    // A page opened while an apply runs keeps following it.
    if (applyStatus && applyStatus.textContent.trim().startsWith('Applying')) poll();
  }
})();
