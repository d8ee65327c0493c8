import type { OrganizationPageData } from './organization-data';
import { html } from './html';
import { peopleSection, type PeopleNotice } from './people-views';
import { API_KEY_HEADER_CELLS, apiKeyCells, DASHBOARD_BASE, layout, type PageSession } from './views';

/**
 * The organization page (docs/review.md "Organization settings in the dashboard"): the API keys (listed by prefix; a new key is shown once,
 * by the page script, in the creating answer; revoke), the webhook signing secret (hidden until
 * asked for; rotate) and the default master catalog. Every action is the page script's call to
 * the public API with the session's CSRF token (assets/dashboard.js `organizationPage`). The
 * people section (docs/console.md "People and roles", ./people-views.ts) posts dashboard forms.
 * Long on purpose: one HTML template, read top to bottom like the page.
 */
export function organizationPage(data: OrganizationPageData, session: PageSession, peopleNotice: PeopleNotice | null = null): string {
  const people = new Map(data.people.map((p) => [p.id, p]));
  /** Whom a key acts for: its person (a tool server's key, with the person's role) or the organization (as admin). */
  const actsAs = (personId: string | null) => {
    if (!personId) return 'Organization (admin)';
    const p = people.get(personId);
    return p ? `${p.name || p.email} (${p.role})` : 'A removed person';
  };
  return layout(
    'Organization',
    html`<h1>Organization</h1>
      <p class="muted">Organization <code>${session.organizationId}</code></p>
      <div id="organization">
        <section class="card" aria-labelledby="keys-heading">
          <h2 id="keys-heading">API keys</h2>
          <p class="muted">
            Programs call the API with a key, which acts as admin. A tool server signed in by a person gets a key of that person, which acts with their role. A
            new key is shown once, when it is created.
          </p>
          <table class="list keys">
            <thead>
              <tr>
                ${API_KEY_HEADER_CELLS}
                <th scope="col">Acts as</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${data.keys.map(
                (k) =>
                  html`<tr data-key-id="${k.id}">
                    ${apiKeyCells(k)}
                    <td>${actsAs(k.person_id)}</td>
                    <td class="actions">
                      ${
                        k.revoked_at
                          ? ''
                          : html`<button
                              type="button"
                              class="btn small reject"
                              data-org-action="revoke-key"
                              data-key-id="${k.id}"
                              data-confirm="${`Revoke the key "${k.name}"? Programs using it are refused from the next request on.`}"
                              aria-label="${`Revoke key ${k.name}`}"
                            >
                              Revoke
                            </button>`
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
          <form id="create-key" class="filters">
            <label for="key-name">New key's name</label>
            <input id="key-name" name="name" required maxlength="200" placeholder="e.g. nightly import" />
            <button type="submit" class="btn primary">Create key</button>
          </form>
          <div id="new-key" class="review-message" role="status" aria-live="polite"></div>
        </section>
        <section class="card" aria-labelledby="webhook-heading">
          <h2 id="webhook-heading">Webhook signing secret</h2>
          <p class="muted">Every webhook delivery is signed with it (<code>webhook-signature</code>); rotate it when it leaked.</p>
          <p><code id="webhook-secret">••••••••••••</code></p>
          <button type="button" class="btn" data-org-action="show-secret">Show</button>
          <button
            type="button"
            class="btn reject"
            data-org-action="rotate-secret"
            data-confirm="Replace the webhook secret? Receivers must verify with the new one from the next delivery on."
          >
            Rotate
          </button>
          <div id="webhook-message" class="review-message" role="status" aria-live="polite"></div>
        </section>
        <section class="card" aria-labelledby="master-heading">
          <h2 id="master-heading">Default master catalog</h2>
          <p class="muted">
            A new catalog created with <code>use_master_catalog_defaults</code> and no <code>master_catalog_id</code> inherits this catalog's taxonomy, quality
            prompt and catalog.md.
          </p>
          <form id="default-master" class="filters">
            <label for="master-catalog">Catalog</label>
            <select id="master-catalog" name="catalog_id">
              <option value="">None</option>
              ${data.catalogs.map((c) => html`<option value="${c.id}" ${c.id === data.defaultMasterCatalogId ? html` selected` : ''}>${c.name}</option>`)}
            </select>
            <button type="submit" class="btn primary">Save</button>
          </form>
          <div id="default-master-message" class="review-message" role="status" aria-live="polite"></div>
        </section>
        ${peopleSection(data.people, session, peopleNotice)}
      </div>`,
    session,
    [html`<a href="${DASHBOARD_BASE}/organization">Organization</a>`],
  );
}
