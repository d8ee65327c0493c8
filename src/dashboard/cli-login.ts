/**
 * The dashboard side of the tool server's login helper (`npm run mcp -- login`
 * "opens the dashboard's sign-in and receives a user token on a localhost callback"; docs/mcp.md "Configuration"). The OAuth loopback-redirect pattern (RFC 8252 §7.3):
 *
 * 1. `GET /dashboard/cli-login?callback=http://127.0.0.1:PORT/callback&state=S`, behind sign-in, shows
 *    what will happen and a form;
 * 2. the person confirms (POST with the session's CSRF token); the service creates a key named for
 *    the tool server, and redirects (303) to `callback?state=S&token=ck_…&organization_id=…`.
 *    "Deny" redirects with `error=access_denied`.
 *
 * A person signed in gets a key of their own: it acts as them, with their current
 * role (an editor's tool server stages but cannot apply), records them as the actor (`person:<id>`),
 * and stops working when revoked or when the person is disabled. Only a loopback callback on
 * `/callback` is accepted, so the key never leaves the person's machine. The key is listed (and
 * revocable) like any other (`GET/DELETE /api/public/api-keys`, the organization page, the person's
 * row on the people page).
 */
import type { DashboardRoute } from './route-table';
import type { ResolvedAppDeps } from '../deps';
import { ValidationError } from '../lib/errors';
import { CSRF_FIELD } from '../middleware/session';
import { createApiKey, listOwnKeys, revokeOwnKey } from '../services/access/api-keys';
import type { ApiKey } from '../models/api-key';
import { issueUserToken } from '../services/access/auth';
import type { ActiveSession } from '../services/access/sessions';
import { html } from './html';
import type { DashboardRouteHelpers } from './route-helpers';
import { API_KEY_HEADER_CELLS, apiKeyCells, DASHBOARD_BASE, layout, type PageSession } from './views';

/** The page listing the signed-in person's tool-server keys. */
export const OWN_KEYS_PATH = `${DASHBOARD_BASE}/tool-server-keys`;

/** What the route needs from the dashboard router. */
export type CliLoginHelpers = DashboardRouteHelpers;

/**
 * The callback URL when it is a loopback HTTP URL on path `/callback` with a port
 * (`http://127.0.0.1:PORT/callback`, `http://localhost:PORT/callback` or `http://[::1]:PORT/callback`).
 * @throws ValidationError (422) otherwise, or for a `state` that is not 16–128 URL-safe characters
 */
export function checkCallback(callback: string | null | undefined, state: string | null | undefined): { callback: URL; state: string } {
  let url: URL | null = null;
  try {
    url = callback ? new URL(callback) : null;
  } catch {
    url = null;
  }
  if (
    !url ||
    url.protocol !== 'http:' ||
    !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) ||
    !url.port ||
    url.pathname !== '/callback' ||
    url.search ||
    url.hash
  )
    throw ValidationError.at(['query', 'callback'], 'must be http://127.0.0.1:PORT/callback (a loopback address of the tool server)');
  if (!state || !/^[A-Za-z0-9_-]{16,128}$/.test(state)) throw ValidationError.at(['query', 'state'], 'must be 16–128 URL-safe characters');
  return { callback: url, state };
}

/** The confirmation page. */
function confirmPage(callback: URL, state: string, session: PageSession): string {
  return layout(
    'Allow the tool server',
    html`<section class="card login">
      <h1>Allow the tool server</h1>
      <p>
        The catalog tool server on this computer (<code>${callback.host}</code>) asks to act for organization <code>${session.organizationId}</code>. Allowing
        gives it a key of yours: it acts as you, with your role, and you (on <a href="${OWN_KEYS_PATH}">your tool-server keys</a>) or an admin can revoke it at
        any time. The tool server never approves or applies changes: you review them here.
      </p>
      <form method="post" action="${DASHBOARD_BASE}/cli-login">
        <input type="hidden" name="${CSRF_FIELD}" value="${session.csrfToken}" />
        <input type="hidden" name="callback" value="${callback.toString()}" />
        <input type="hidden" name="state" value="${state}" />
        <button type="submit" name="decision" value="allow" class="btn primary">Allow</button>
        <button type="submit" name="decision" value="deny" class="btn ghost">Deny</button>
      </form>
    </section>`,
    session,
  );
}

/**
 * The credential the tool server receives: a person signed in gets a new key of
 * their own, which acts as them with their current role and is revocable; a session signed in
 * with a user token gets a user token of its own (same user, the session's organization, 30 days;
 * needs `JWT_SECRET`, as user tokens do); a session signed in with an API key has no person or user,
 * so it gets a new API key of the organization (which acts as admin, like the key it signed in with).
 * Keys are named after the tool server and its day.
 */
async function toolServerCredential(deps: ResolvedAppDeps, session: ActiveSession, callback: URL): Promise<string> {
  const { principal, organizationId } = session.scope;
  if (principal.kind === 'user' && deps.config.jwtSecret) return issueUserToken(deps.config.jwtSecret, principal.id, [organizationId]);
  const name = `MCP tool server (${callback.host}, ${new Date().toISOString().slice(0, 10)})`;
  const { apiKey } = await createApiKey(deps.knex, organizationId, name, principal.kind === 'person' ? principal.id : null);
  return apiKey;
}

/** The signed-in person's tool-server keys, each with a revoke form. */
function ownKeysPage(keys: ApiKey[], isPerson: boolean, session: PageSession): string {
  return layout(
    'Your tool-server keys',
    html`<h1>Your tool-server keys</h1>
      <section class="card" aria-labelledby="own-keys-heading">
        <h2 id="own-keys-heading">Keys that act as you</h2>
        ${
          isPerson
            ? html`<p class="muted">Each tool server you allowed has a key of yours: it acts with your role. Revoke a key you no longer use.</p>`
            : html`<p class="muted">You signed in with a key, not as a person: the organization page lists the organization's keys.</p>`
        }
        <table class="list own-keys">
          <thead>
            <tr>
              ${API_KEY_HEADER_CELLS}
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${keys.map(
              (k) =>
                html`<tr data-key-id="${k.id}">
                  ${apiKeyCells(k)}
                  <td class="actions">
                    ${
                      k.revoked_at
                        ? ''
                        : html`<form method="post" action="${OWN_KEYS_PATH}/${k.id}/revoke">
                            <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
                            <button type="submit" class="btn small reject" aria-label="${`Revoke key ${k.name}`}">Revoke</button>
                          </form>`
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>`,
    session,
  );
}

/** `GET` and `POST /dashboard/cli-login` and the person's own keys (`/dashboard/tool-server-keys`), as a route table (./route-table.ts) for the dashboard router. */
export function cliLoginRoutes(deps: ResolvedAppDeps, h: CliLoginHelpers): DashboardRoute[] {
  return [
    {
      method: 'get',
      path: '/tool-server-keys',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        h.send(ctx, 200, ownKeysPage(await listOwnKeys(deps.knex, session.scope), session.scope.principal.kind === 'person', h.pageSession(session)));
      },
    },
    {
      method: 'post',
      path: '/tool-server-keys/:key_id/revoke',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        await h.readCheckedForm(ctx);
        await revokeOwnKey(deps.knex, session.scope, ctx.params.key_id);
        ctx.status = 303;
        ctx.redirect(OWN_KEYS_PATH);
      },
    },
    {
      method: 'get',
      path: '/cli-login',
      handler: async (ctx) => {
        const { callback, state } = checkCallback(String(ctx.query.callback ?? ''), String(ctx.query.state ?? ''));
        // The form's answer redirects to the loopback callback: CSP form-action covers redirects, so allow that origin on this page.
        ctx.set(
          'Content-Security-Policy',
          String(ctx.response.get('Content-Security-Policy')).replace("form-action 'self'", `form-action 'self' ${callback.origin}`),
        );
        h.send(ctx, 200, confirmPage(callback, state, h.pageSession(ctx.state.dashboardSession as ActiveSession)));
      },
    },
    {
      method: 'post',
      path: '/cli-login',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const form = await h.readCheckedForm(ctx);
        const { callback, state } = checkCallback(form.get('callback'), form.get('state'));
        const target = new URL(callback);
        target.searchParams.set('state', state);
        if (form.get('decision') === 'allow') {
          target.searchParams.set('token', await toolServerCredential(deps, session, callback));
          target.searchParams.set('organization_id', session.scope.organizationId);
        } else target.searchParams.set('error', 'access_denied');
        ctx.set('Referrer-Policy', 'no-referrer');
        ctx.status = 303;
        ctx.redirect(target.toString());
      },
    },
  ];
}
