/* global document, window, fetch, URL */
// The dashboard's only script: sends the review and apply requests of the activity
// page, and the settings of the organization page, to /api with the session cookie
// and the CSRF token of the page, polls an apply's progress, and reloads the server-rendered page
// when something changed. No framework, no CDN.
(function () {
  'use strict';
  // A page that follows running work (a flow run) reloads itself every few seconds.
  const refresh = document.querySelector('meta[name="dashboard-refresh-seconds"]');
  if (refresh) {
    window.setTimeout(
      function () {
        window.location.reload();
      },
      Number(refresh.getAttribute('content')) * 1000,
    );
  }
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (!meta) return;
  const csrf = meta.getAttribute('content');

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

  // The activity page: review buttons, per-field completion, apply.
  function activityPage(root) {
    const activityId = root.dataset.activityId;
    const messageBox = document.getElementById('review-message');
    document.addEventListener('click', async function (event) {
      const button = event.target.closest('button[data-review]');
      if (!button) return;
      const body = JSON.parse(button.dataset.review);
      // Bulk actions say how many changes they change (data-confirm) before they run.
      if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
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

    // Per-field completion, loaded after the page is shown (it aggregates every change: too slow
    // for the server render of a 100,000-change activity). Built with textContent: never HTML.
    async function loadCompletion() {
      const box = document.getElementById('field-completion');
      if (!box) return;
      try {
        const res = await fetch(box.dataset.summaryUrl, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
        if (!res.ok) throw new Error('HTTP ' + res.status);
        const summary = await res.json();
        const fields = Object.keys(summary.field_stats || {}).sort();
        const table = document.createElement('table');
        table.className = 'completion';
        const head = table.createTHead().insertRow();
        ['Field', 'Completion', 'Filled', 'Changed'].forEach(function (label, i) {
          const th = document.createElement('th');
          th.textContent = label;
          if (i >= 2) th.className = 'num';
          head.appendChild(th);
        });
        const body = table.createTBody();
        fields.forEach(function (name) {
          const f = summary.field_stats[name];
          const row = body.insertRow();
          row.dataset.field = name;
          const link = document.createElement('a');
          const url = new URL(window.location.href);
          url.searchParams.set('field', name);
          url.searchParams.delete('page');
          link.href = url.pathname + url.search;
          const code = document.createElement('code');
          code.textContent = name;
          link.appendChild(code);
          row.insertCell().appendChild(link);
          const meter = document.createElement('meter');
          meter.min = 0;
          meter.max = 1;
          meter.value = f.completion_rate;
          row.insertCell().appendChild(meter);
          const filled = row.insertCell();
          filled.className = 'num';
          filled.textContent = f.completed + ' / ' + f.total + ' (' + Math.round(f.completion_rate * 100) + '%)';
          const changed = row.insertCell();
          changed.className = 'num';
          changed.textContent = String(f.changed);
        });
        box.replaceChildren(table);
      } catch (err) {
        box.textContent = 'Per-field completion unavailable: ' + err.message;
      }
    }
    loadCompletion();

    const applyButton = document.getElementById('apply-button');
    const applyStatus = document.getElementById('apply-status');
    const applyForce = document.getElementById('apply-force');

    function describe(activity) {
      const p = activity.apply_progress || {};
      return 'Applying: ' + (p.phase || 'queued');
    }

    async function poll() {
      try {
        const activity = await api('GET', '/activities/' + encodeURIComponent(activityId));
        const phase = (activity.apply_progress || {}).phase;
        if (activity.status === 'completed' || phase === 'failed') {
          show(applyStatus, phase === 'failed' ? 'Apply failed.' : 'Applied.', phase === 'failed' ? 'fail' : 'ok');
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
    }
    // A page opened while an apply runs keeps following it.
    if (applyStatus && applyStatus.textContent.trim().startsWith('Applying')) poll();
  }

  // The organization page: API keys (create once-visible, revoke), the webhook secret (show,
  // rotate), the default master catalog. Values are set with textContent: never HTML.
  function organizationPage() {
    const keyForm = document.getElementById('create-key');
    const keyBox = document.getElementById('new-key');
    if (keyForm) {
      keyForm.addEventListener('submit', async function (event) {
        event.preventDefault();
        const name = keyForm.elements.namedItem('name').value.trim();
        show(keyBox, 'Creating…', '');
        try {
          const created = await api('POST', '/public/api-keys', { name: name });
          // Shown once: the page reloaded later lists its prefix only.
          show(keyBox, 'New key "' + created.name + '" (copy it now, it is not shown again): ', 'ok');
          const code = document.createElement('code');
          code.id = 'new-key-value';
          code.textContent = created.api_key;
          keyBox.appendChild(code);
        } catch (err) {
          show(keyBox, 'Not created: ' + err.message, 'fail');
        }
      });
    }
    const secret = document.getElementById('webhook-secret');
    const secretBox = document.getElementById('webhook-message');
    const masterForm = document.getElementById('default-master');
    const masterBox = document.getElementById('default-master-message');
    if (masterForm) {
      masterForm.addEventListener('submit', async function (event) {
        event.preventDefault();
        const value = masterForm.elements.namedItem('catalog_id').value;
        try {
          await api('PUT', '/public/organization/default-master-catalog', { catalog_id: value || null });
          show(masterBox, value ? 'Saved.' : 'Cleared.', 'ok');
        } catch (err) {
          show(masterBox, 'Not saved: ' + err.message, 'fail');
        }
      });
    }
    document.addEventListener('click', async function (event) {
      const button = event.target.closest('button[data-org-action]');
      if (!button) return;
      if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
      const action = button.dataset.orgAction;
      try {
        if (action === 'revoke-key') {
          button.disabled = true;
          await api('DELETE', '/public/api-keys/' + encodeURIComponent(button.dataset.keyId));
          window.location.reload();
        } else if (action === 'show-secret' || action === 'rotate-secret') {
          const path = action === 'show-secret' ? '/public/organization/webhook-secret' : '/public/organization/webhook-secret/rotate';
          const answer = await api(action === 'show-secret' ? 'GET' : 'POST', path);
          secret.textContent = answer.webhook_secret;
          show(
            secretBox,
            action === 'rotate-secret' ? 'Rotated: deliveries are signed with the new secret from now on.' : '',
            action === 'rotate-secret' ? 'ok' : '',
          );
        }
      } catch (err) {
        show(action === 'revoke-key' ? keyBox : secretBox, 'Failed: ' + err.message, 'fail');
        button.disabled = false;
      }
    });
  }

  const activity = document.getElementById('activity');
  if (activity) activityPage(activity);
  if (document.getElementById('organization')) organizationPage();
})();
