import type { PersonSummary } from '../services/access/people';
import { ROLES } from '../services/access/roles';
import { html, type SafeHtml } from './html';
import { DASHBOARD_BASE, badge, when, type PageSession } from './views';

/** A message over the people section after an action: what was done, or what was wrong. */
export interface PeopleNotice {
  kind: 'ok' | 'error';
  text: string;
}

/**
 * The organization page's "People" section: who may sign in, with which role, how
 * (password, OpenID Connect), and forms to add a person and to change a role or disable someone.
 * The forms post to the dashboard (CSRF token in the form); only an admin sees the page.
 */
export function peopleSection(people: PersonSummary[], session: PageSession, notice: PeopleNotice | null = null): SafeHtml {
  const roleOptions = (selected: string) => ROLES.map((r) => html`<option value="${r}" ${r === selected ? html` selected` : ''}>${r}</option>`);
  return html`<section class="card" id="people" aria-labelledby="people-heading">
    <h2 id="people-heading">People</h2>
    <p class="muted">
      People sign in as themselves. A <strong>viewer</strong> reads; an <strong>editor</strong> also stages changes; a <strong>reviewer</strong> also approves,
      rejects, applies and restores; an <strong>admin</strong> also manages keys, people and settings.
    </p>
    ${notice ? html`<p class="${notice.kind === 'ok' ? 'notice' : 'alert'}" role="${notice.kind === 'ok' ? 'status' : 'alert'}">${notice.text}</p>` : ''}
    <table class="list people">
      <thead>
        <tr>
          <th scope="col">Person</th>
          <th scope="col">Signs in with</th>
          <th scope="col">Added</th>
          <th scope="col">Role and access</th>
        </tr>
      </thead>
      <tbody>
        ${
          people.length === 0
            ? html`<tr>
                <td colspan="4" class="muted">Nobody yet: people sign in with an API key only.</td>
              </tr>`
            : people.map(
                (p) =>
                  html`<tr data-person-id="${p.id}">
                    <td>
                      ${p.name ? html`${p.name}<br /><span class="muted">${p.email}</span>` : p.email} ${p.disabled ? badge('disabled', 'status-failed') : ''}
                    </td>
                    <td>
                      ${[p.has_password ? 'password' : null, p.oidc ? 'identity provider' : null].filter(Boolean).join(', ') || html`<span class="muted">—</span>`}
                    </td>
                    <td>${when(p.created_at)}</td>
                    <td>
                      <form method="post" action="${DASHBOARD_BASE}/organization/people/${p.id}" class="filters person-role">
                        <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
                        <select name="role" aria-label="${`Role of ${p.email}`}">
                          ${roleOptions(p.role)}
                        </select>
                        <label><input type="checkbox" name="disabled" value="1" ${p.disabled ? html` checked` : ''} /> disabled</label>
                        <button type="submit" class="btn small" aria-label="${`Save role of ${p.email}`}">Save</button>
                      </form>
                    </td>
                  </tr>`,
              )
        }
      </tbody>
    </table>
    <h3>Add a person</h3>
    <form method="post" action="${DASHBOARD_BASE}/organization/people" class="filters add-person">
      <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
      <label for="person-email">Email</label>
      <input id="person-email" name="email" type="email" required maxlength="320" />
      <label for="person-name">Name</label>
      <input id="person-name" name="name" maxlength="200" />
      <label for="person-role">Role</label>
      <select id="person-role" name="role">
        ${roleOptions('viewer')}
      </select>
      <label for="person-password">Password <span class="muted">(optional; blank for identity-provider sign-in only)</span></label>
      <input id="person-password" name="password" type="password" autocomplete="new-password" minlength="10" />
      <button type="submit" class="btn primary">Add person</button>
    </form>
  </section>`;
}
