import type { ApiKey } from '../models/api-key';
import type { Catalog } from '../models/catalog';
import type { ReviewActivity } from '../models/review-activity';
import type { StagedChangeStatus } from '../models/staged-change';
import { html, type SafeHtml } from './html';

/**
 * The frame and shared pieces of the console's server-rendered pages (docs/console.md): the layout, sign-in and error pages, badges, timestamps and crumbs. Every value
 * from the database or the request goes through {@link html}, which escapes it. The review pages
 * themselves (a catalog's activities, an activity's review) are ./review-views.ts.
 */

/** Every staged-change status, in the order the summary shows them (docs/api-review.md "Staged change states"). */
export const STATUS_ORDER: StagedChangeStatus[] = ['pending', 'draft', 'approved', 'partially_accepted', 'rejected', 'conflict', 'error'];

/** Where the dashboard is mounted; every link and asset is under it. */
export const DASHBOARD_BASE = '/dashboard';

/** The signed-in part of a page: the CSRF token for forms and scripts. */
export interface PageSession {
  csrfToken: string;
  organizationId: string;
  /** Who is signed in, shown in the top bar: the person and role (docs/console.md "People and roles"), absent for key sessions. */
  who?: string;
  /** The person's role (docs/console.md "People and roles"); absent for key sessions, which act as admin. */
  role?: string;
}

/** Options of {@link layout}. */
export interface LayoutOptions {
  /**
   * Reload the page every this many seconds (a flow run's page while the run runs): the page
   * script reloads it (a `<meta http-equiv="refresh">` fails WCAG 2.2.1, axe `meta-refresh`).
   */
  refreshSeconds?: number;
  /** Page scripts served from ./assets besides dashboard.js (file names of the ASSETS map in routes.ts). */
  scripts?: string[];
}

/**
 * The page frame: head with local assets, top bar with breadcrumbs, the sections (catalogs,
 * flows, organization) and sign-out.
 */
export function layout(title: string, body: SafeHtml, session: PageSession | null, crumbs: SafeHtml[] = [], options: LayoutOptions = {}): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Catalog console</title>
        <link rel="stylesheet" href="${DASHBOARD_BASE}/assets/dashboard.css" />
        <link rel="stylesheet" href="${DASHBOARD_BASE}/assets/dashboard-flows.css" />
        <link rel="stylesheet" href="${DASHBOARD_BASE}/assets/dashboard-console.css" />
        ${session ? html`<meta name="csrf-token" content="${session.csrfToken}" />` : ''}
        ${options.refreshSeconds ? html`<meta name="dashboard-refresh-seconds" content="${options.refreshSeconds}" />` : ''}
      </head>
      <body>
        <header class="topbar">
          <a class="brand" href="${DASHBOARD_BASE}">Catalog console</a>
          <nav class="crumbs">${crumbs.map((c) => html`<span class="sep">/</span>${c}`)}</nav>
          ${
            session
              ? html`<nav class="sections">
                  <a href="${DASHBOARD_BASE}">Catalogs</a>
                  <a href="${DASHBOARD_BASE}/flows">Flows</a>
                  <a href="${DASHBOARD_BASE}/jobs">Jobs</a>
                  ${!session.role || session.role === 'admin' ? html`<a href="${DASHBOARD_BASE}/organization">Organization</a>` : ''}
                </nav>`
              : ''
          }
          ${
            session
              ? html`<form class="signout" method="post" action="${DASHBOARD_BASE}/logout">
                  ${session.who ? html`<span class="who">${session.who}</span> <a class="own-keys-link" href="${DASHBOARD_BASE}/tool-server-keys">Your keys</a>` : ''}
                  <span class="org" title="Organization">org ${session.organizationId.slice(0, 8)}</span>
                  <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
                  <button type="submit" class="btn small ghost">Sign out</button>
                </form>`
              : ''
          }
        </header>
        <main>${body}</main>
        <script src="${DASHBOARD_BASE}/assets/dashboard.js" defer></script>
        ${(options.scripts ?? []).map((name) => html`<script src="${DASHBOARD_BASE}/assets/${name}" defer></script>`)}
      </body>
    </html>`.value;
}

/**
 * The sign-in page (docs/console.md "People and roles"): email + password (the embedded default), "Sign in
 * with <provider>" when OpenID Connect is configured (`oidcProvider`), and, for programs and
 * operators, an API key or user token. The provider's button is a link (the CSP's `form-action
 * 'self'` would stop a form redirecting to the provider). Only the key form's button is `type="submit"` explicitly
 * (the others submit by default): scripts and tests that sign in with a key keep finding it.
 */
export function loginPage(next: string, error: string | null, oidcProvider: string | null = null): string {
  return layout(
    'Sign in',
    html`<section class="card login">
      <h1>Sign in</h1>
      ${error ? html`<p class="alert" role="alert">${error}</p>` : ''}
      <form method="post" action="${DASHBOARD_BASE}/login/password" class="login-person">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" required autocomplete="username" autofocus spellcheck="false" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required autocomplete="current-password" />
        <input type="hidden" name="next" value="${next}" />
        <button class="btn primary" id="password-sign-in">Sign in</button>
      </form>
      ${
        oidcProvider
          ? html`<p class="login-oidc">
              <a class="btn" id="oidc-sign-in" href="${`${DASHBOARD_BASE}/login/oidc?next=${encodeURIComponent(next)}`}">Sign in with ${oidcProvider}</a>
            </p>`
          : ''
      }
      <h2 class="login-key-heading">API key or user token</h2>
      <p class="muted">
        For operators and programs: paste an API key (<code>ck_…</code>) or a user token once; the session acts as an admin of its organization. The key itself
        is not stored in the browser.
      </p>
      <form method="post" action="${DASHBOARD_BASE}/login" autocomplete="off" class="login-key">
        <label for="credential">API key or user token</label>
        <input id="credential" name="credential" type="password" spellcheck="false" required />
        <label for="organization_id">Organization id <span class="muted">(optional, for user tokens with several)</span></label>
        <input id="organization_id" name="organization_id" type="text" spellcheck="false" />
        <input type="hidden" name="next" value="${next}" />
        <button type="submit" class="btn">Sign in with the key</button>
      </form>
    </section>`,
    null,
  );
}

/** An error page (403, 404, …) with a way back. */
export function errorPage(status: number, message: string, session: PageSession | null): string {
  const title = status === 403 ? 'Not allowed' : status === 404 ? 'Not found' : 'Error';
  return layout(
    title,
    html`<section class="card error-page">
      <h1>${status} · ${title}</h1>
      <p>${message}</p>
      <p>${status === 403 && !message.startsWith('Your role') ? 'This belongs to another organization than the one you signed in for.' : ''}</p>
      <p><a href="${DASHBOARD_BASE}">Back to the dashboard</a> · <a href="${DASHBOARD_BASE}/login">Sign in with another key</a></p>
    </section>`,
    session,
  );
}

/** A small label; `kind` is its CSS class (e.g. `status-completed`, `type`). */
export function badge(text: string, kind: string): SafeHtml {
  return html`<span class="badge ${kind}">${text}</span>`;
}

/** The badge of a status (of a staged change, an activity, a flow run or a node), coloured by `status-<status>`. */
export function statusBadge(status: string): SafeHtml {
  return badge(status.replace(/_/g, ' '), `status-${status}`);
}

/** A timestamp as `YYYY-MM-DD HH:MM UTC` (empty for none). */
export function when(d: Date | null | undefined): string {
  return d ? new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '';
}

/** The header cells every API key table starts with (organization page, a person's tool-server keys): name, prefix, created, status. */
export const API_KEY_HEADER_CELLS = html`<th scope="col">Name</th>
  <th scope="col">Key prefix</th>
  <th scope="col">Created</th>
  <th scope="col">Status</th>`;

/** The cells of one API key under {@link API_KEY_HEADER_CELLS}: its name, prefix (never the key), creation, and active or revoked (when). */
export function apiKeyCells(k: Pick<ApiKey, 'name' | 'key_prefix' | 'created_at' | 'revoked_at'>): SafeHtml {
  return html`<td>${k.name}</td>
    <td><code>${k.key_prefix}…</code></td>
    <td>${when(k.created_at)}</td>
    <td>${k.revoked_at ? html`${statusBadge('revoked')} ${when(k.revoked_at)}` : statusBadge('active')}</td>`;
}

/** The breadcrumb (and link) of a catalog. */
export function catalogCrumb(catalog: Catalog): SafeHtml {
  return html`<a href="${DASHBOARD_BASE}/catalogs/${catalog.id}">${catalog.name}</a>`;
}

/** How an activity is named on a page: its description, else its type and short id. */
export function reviewActivityTitle(a: ReviewActivity): string {
  return a.description || `${a.type.replace(/_/g, ' ')} ${a.id.slice(0, 8)}`;
}

/** `value` when it is a plain object, else `{}` (JSON columns read defensively). */
export function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
