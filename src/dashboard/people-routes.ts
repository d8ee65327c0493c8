import type { DashboardRoute } from './route-table';
import type { Context } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { AppError, UnauthorizedError, ValidationError } from '../lib/errors';
import { setSessionCookie } from '../middleware/session';
import { OidcClient, personForIdentity, type PendingLogin } from '../services/access/oidc';
import { invitePerson, personByPassword, updatePerson } from '../services/access/people';
import type { RateLimits } from '../services/access/rate-limits';
import { assertRole } from '../services/access/roles';
import { signInPerson, type ActiveSession } from '../services/access/sessions';
import { loadOrganizationPage } from './organization-data';
import { organizationPage } from './organization-views';
import type { DashboardRouteHelpers } from './route-helpers';
import { DASHBOARD_BASE, loginPage } from './views';

/**
 * People sign in as themselves (docs/console.md "People and roles") on the dashboard router:
 * `POST /login/password` (email + password, throttled per client address and per email),
 * `GET /login/oidc` → the identity provider → `GET /login/oidc/callback` (OpenID Connect, when
 * configured), and the organization page's people forms (`POST /organization/people`, `POST
 * /organization/people/{id}`; admins only).
 */

/** The dashboard router's helpers these routes use (src/dashboard/routes.ts). */
export interface PeopleHelpers extends DashboardRouteHelpers {
  /** A dashboard path from a `next` value, never another site. */
  safeNext: (next: string | null | undefined) => string;
}

/** Cookie holding the state, nonce and PKCE verifier between the redirect and the callback. */
const OIDC_COOKIE = 'catalog_oidc_login';
/** How long a started OpenID sign-in may take, in milliseconds (10 minutes). */
const OIDC_LOGIN_TTL_MS = 10 * 60 * 1000;

/** The pending OpenID sign-in of the request's cookie, or null. */
function pendingLogin(ctx: Context): PendingLogin | null {
  const raw = ctx.cookies.get(OIDC_COOKIE);
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as PendingLogin;
    return typeof v.state === 'string' && typeof v.nonce === 'string' && typeof v.code_verifier === 'string' && typeof v.next === 'string' ? v : null;
  } catch {
    return null;
  }
}

/**
 * The people routes of the dashboard, as a route table (./route-table.ts) for its router. `rateLimits`: the app's failed-authentication throttle (docs/guards.md "The guards at the edge").
 * Long on purpose: a route table, one entry per route.
 */
export function peopleRoutes(deps: ResolvedAppDeps, rateLimits: RateLimits, h: PeopleHelpers): DashboardRoute[] {
  const oidcSettings = deps.config.oidc;
  const oidc = oidcSettings ? new OidcClient(oidcSettings, `${deps.config.publicUrl}${DASHBOARD_BASE}/login/oidc/callback`) : null;
  const providerName = oidcSettings?.providerName ?? null;

  /** Signs the person in: session cookie, then 303 to `next`. */
  const enter = async (ctx: Context, person: Parameters<typeof signInPerson>[1], next: string) => {
    const session = await signInPerson(deps.knex, person);
    setSessionCookie(ctx, session.token, session.expiresAt);
    ctx.status = 303;
    ctx.redirect(next);
  };

  /** Answers a people form: 303 back to the people section, or the organization page again with the problem (422, 409, 404). */
  const peopleForm = async (ctx: Context, act: (form: URLSearchParams, session: ActiveSession) => Promise<unknown>) => {
    const session = ctx.state.dashboardSession as ActiveSession;
    const form = await h.readCheckedForm(ctx);
    assertRole(session.scope, 'admin');
    try {
      await act(form, session);
    } catch (err) {
      if (!(err instanceof AppError) || err.status === 403) throw err;
      const text = err instanceof ValidationError ? err.details.map((d) => d.msg).join('; ') : err.message;
      h.send(ctx, err.status, organizationPage(await loadOrganizationPage(deps.knex, session.scope), h.pageSession(session), { kind: 'error', text }));
      return;
    }
    ctx.status = 303;
    ctx.redirect(`${DASHBOARD_BASE}/organization#people`);
  };
  return [
    {
      method: 'post',
      path: '/login/password',
      public: true,
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        const form = await h.readForm(ctx);
        const next = h.safeNext(form.get('next'));
        const email = (form.get('email') ?? '').trim().toLowerCase().slice(0, 320);
        const password = (form.get('password') ?? '').slice(0, 1024);
        // Guessing is throttled per client address and per email (so many addresses cannot share one account's budget).
        const throttles = [ctx.ip, `person:${email}`];
        try {
          for (const key of throttles) await rateLimits.assertMayAuthenticate(key);
          const person = email && password ? await personByPassword(deps.knex, email, password) : null;
          if (!person) {
            for (const key of throttles) await rateLimits.countAuthFailure(key);
            throw new UnauthorizedError('Wrong email or password.');
          }
          await enter(ctx, person, next);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          ctx.set(err.headers);
          const text = err.status === 429 ? 'Too many failed sign-ins; wait a minute and try again.' : err.message;
          h.send(ctx, err.status, loginPage(next, text, providerName));
        }
      },
    },
    {
      method: 'get',
      path: '/login/oidc',
      public: true,
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        const next = h.safeNext(typeof ctx.query.next === 'string' ? ctx.query.next : undefined);
        if (!oidc) {
          h.send(ctx, 404, loginPage(next, 'Sign-in with an identity provider is not configured here.', null));
          return;
        }
        const { url, pending } = await oidc.start(next);
        const value = Buffer.from(JSON.stringify(pending)).toString('base64url');
        ctx.cookies.set(OIDC_COOKIE, value, {
          httpOnly: true,
          sameSite: 'lax',
          path: `${DASHBOARD_BASE}/login/oidc`,
          maxAge: OIDC_LOGIN_TTL_MS,
          secure: ctx.secure,
          overwrite: true,
        });
        ctx.redirect(url);
      },
    },
    {
      method: 'get',
      path: '/login/oidc/callback',
      public: true,
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        const pending = pendingLogin(ctx);
        ctx.cookies.set(OIDC_COOKIE, '', {
          httpOnly: true,
          sameSite: 'lax',
          path: `${DASHBOARD_BASE}/login/oidc`,
          expires: new Date(0),
          secure: ctx.secure,
          overwrite: true,
        });
        const next = pending?.next ?? DASHBOARD_BASE;
        try {
          if (!oidc || !oidcSettings) throw new AppError(404, 'Sign-in with an identity provider is not configured here.');
          if (!pending) throw new UnauthorizedError('Sign-in expired or was not started here; try again.');
          const q = ctx.query as Record<string, string | undefined>;
          const identity = await oidc.finish({ code: q.code, state: q.state, error: q.error }, pending);
          await enter(ctx, await personForIdentity(deps.knex, oidcSettings, identity), next);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          h.send(ctx, err.status, loginPage(next, err.message, providerName));
        }
      },
    },
    {
      method: 'post',
      path: '/organization/people',
      handler: (ctx) =>
        peopleForm(ctx, async (form, session) => {
          await invitePerson(deps.knex, session.scope, {
            email: form.get('email') ?? '',
            name: form.get('name') ?? '',
            role: form.get('role') ?? '',
            password: form.get('password') || null,
          });
        }),
    },
    {
      method: 'post',
      path: '/organization/people/:person_id',
      handler: (ctx) =>
        peopleForm(ctx, async (form, session) => {
          await updatePerson(deps.knex, session.scope, ctx.params.person_id, { role: form.get('role') ?? '', disabled: form.get('disabled') === '1' });
        }),
    },
  ];
}
