import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { AppError, ForbiddenError, PayloadTooLargeError } from '../lib/errors';
import { checkCsrf, clearSessionCookie, CSRF_FIELD, requestSession, SESSION_COOKIE, setSessionCookie } from '../middleware/session';
import type { RateLimits } from '../services/access/rate-limits';
import type { ActiveSession } from '../services/access/sessions';
import { signIn, signOut } from '../services/access/sessions';
import { CONFIDENCE_LEVELS } from '../models/staged-change';
import { cliLoginRoutes } from './cli-login';
import { peopleRoutes } from './people-routes';
import { assertRole, hasRole } from '../services/access/roles';
import { dashboardRouteRole, isReadMethod } from '../services/access/route-roles';
import { operationsRoutes } from './operations-routes';
import { gridRoutes } from './grid-routes';
import { bulkRoutes } from './bulk-routes';
import { mountDashboardRoutes, type DashboardRoute } from './route-table';
import { loadReviewActivityPage, loadCatalogPage, type ReviewActivityFilters } from './data';
import { DASHBOARD_BASE, errorPage, loginPage, STATUS_ORDER, type PageSession } from './views';
import { reviewActivityPage, catalogPage } from './review-views';
import { consoleRoutes } from './console-routes';
import { feedPageRoutes } from './feed-routes';
import { loadFlowListPage, loadFlowPage, loadRunPage } from './flows-data';
import { flowListPage, flowPage, runPage } from './flow-views';
import { loadOrganizationPage } from './organization-data';
import { organizationPage } from './organization-views';
import { own } from '../lib/objects';
import { enrichmentStorage, type EnrichmentStorage } from '../services/enrichment/rows/artifacts';
import { readCapture } from '../services/enrichment/rows/evidence-wacz';
import { sendCapture } from '../routes/files';

/**
 * The review dashboard (docs/review.md), served by the API process under
 * `/dashboard`: sign-in and sign-out, the organization's catalogs, a catalog's activities, and an
 * activity's review page (`review_url` = `{PUBLIC_URL}/dashboard/catalogs/{cid}/activities/{aid}`,
 * docs/api-review.md "Activities"); and the flows (docs/api-review.md "Flows"): the list, a flow (`workflow_url` =
 * `{PUBLIC_URL}/dashboard/flows/{id}`) and a run with its results; the organization's settings
 * (docs/review.md "Organization settings in the dashboard": API keys, webhook secret, default master catalog). Pages are server-rendered; their scripts and stylesheets are served from
 * ./assets (no CDN). Review and apply actions are the page script's calls to `/api/...`,
 * authorized by the session cookie plus the CSRF token (src/middleware/auth.ts).
 */

/** The static files of the dashboard and their content types. */
const ASSETS: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard-flows.css': 'text/css; charset=utf-8',
  'dashboard-console.css': 'text/css; charset=utf-8',
  'dashboard.js': 'application/javascript; charset=utf-8',
  'home.js': 'application/javascript; charset=utf-8',
  'jobs.js': 'application/javascript; charset=utf-8',
  'import.js': 'application/javascript; charset=utf-8',
  'feeds.js': 'application/javascript; charset=utf-8',
};
/** Largest form body the dashboard accepts (sign-in, sign-out), in bytes. */
const FORM_LIMIT_BYTES = 16 * 1024;
/**
 * Content-Security-Policy of every dashboard page: only this origin's script and stylesheet, no
 * inline script or style, not frameable — a second line of defence behind escaping.
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Reads a small `application/x-www-form-urlencoded` body (the app's body parser takes JSON only), at most `limitBytes`. */
async function readForm(ctx: Context, limitBytes = FORM_LIMIT_BYTES): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > limitBytes) throw new PayloadTooLargeError();
    chunks.push(buf);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A signed-in page's form (see {@link readForm}), its CSRF token checked against the session.
 * @throws ForbiddenError (403) when the token is missing or wrong
 */
async function readCheckedForm(ctx: Context, limitBytes?: number): Promise<URLSearchParams> {
  const form = await readForm(ctx, limitBytes);
  checkCsrf(ctx, ctx.state.dashboardSession as ActiveSession, form.get(CSRF_FIELD) ?? undefined);
  return form;
}

/** Where to go after sign-in: a dashboard path from `next`, never another site (no open redirect). */
function safeNext(next: string | null | undefined): string {
  return next && next.startsWith(`${DASHBOARD_BASE}/`) && !next.startsWith('//') && !/[\\\s]/.test(next) && !next.startsWith(`${DASHBOARD_BASE}/login`)
    ? next
    : DASHBOARD_BASE;
}

function pageSession(s: ActiveSession): PageSession {
  const who = s.person ? `${s.person.name || s.person.email} (${s.scope.role})` : undefined;
  return { csrfToken: s.csrfToken, organizationId: s.scope.organizationId, ...(who ? { who, role: s.scope.role } : {}) };
}

function send(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = body;
}

function one(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v === '' ? undefined : v;
}

/** A `?page=` number: a positive integer (capped), else 1. */
function pageNumber(value: string | string[] | undefined): number {
  const page = Number(one(value) ?? '1');
  return Number.isInteger(page) && page >= 1 ? Math.min(page, 1_000_000) : 1;
}

/**
 * The activity page's filters from its query string; unknown values are ignored, not errors.
 * Drafts are shown with `drafts=1` (the page's toggle) or when the status asked for is `draft`.
 */
function parseFilters(query: Record<string, string | string[] | undefined>): ReviewActivityFilters {
  const status = one(query.status);
  const confidence = one(query.confidence);
  return {
    status: status && (STATUS_ORDER as string[]).includes(status) ? status : undefined,
    include_drafts: one(query.drafts) === '1' || status === 'draft' || undefined,
    field: one(query.field)?.slice(0, 200),
    confidence: confidence && (CONFIDENCE_LEVELS as readonly string[]).includes(confidence) ? confidence : undefined,
    search_query: one(query.q)?.slice(0, 500),
    page: pageNumber(query.page),
  };
}

/**
 * Builds the dashboard router (mounted by createApp before `/api`). `rateLimits`: the app's; a
 * sign-in counts as an authentication, so the API's failed-authentication throttle per client
 * address (docs/guards.md "The guards at the edge") applies to the sign-in form too, and keys cannot be guessed through it.
 */
export function dashboardRouter(deps: ResolvedAppDeps, rateLimits: RateLimits): Router {
  // One blob store client per router, not per request.
  const storage = enrichmentStorage(deps.config);
  const router = new Router({ prefix: DASHBOARD_BASE });

  // Security headers on every dashboard response; known errors become an HTML error page.
  router.use(async (ctx: Context, next: Next) => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('X-Frame-Options', 'DENY');
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      ctx.set(err.headers);
      const session = ctx.state.dashboardSession as ActiveSession | undefined;
      send(ctx, err.status, errorPage(err.status, err.message, session ? pageSession(session) : null));
    }
  });

  /** Pages behind sign-in: no (live) session → the login page, coming back here afterwards. */
  const signedIn = async (ctx: Context, next: Next) => {
    const session = await requestSession(ctx, deps.knex);
    if (!session) {
      if (ctx.cookies.get(SESSION_COOKIE)) clearSessionCookie(ctx);
      ctx.redirect(`${DASHBOARD_BASE}/login?next=${encodeURIComponent(ctx.originalUrl)}`);
      return;
    }
    ctx.state.dashboardSession = session;
    ctx.set('Cache-Control', 'no-store');
    if (!isReadMethod(ctx.method)) {
      // Every form's minimum role is declared in one table (src/services/access/route-roles.ts).
      const role = dashboardRouteRole(ctx.method, String(ctx.routerPath ?? '').slice(DASHBOARD_BASE.length));
      // A viewer's session reads only (docs/console.md "People and roles"): no form that changes the catalog is theirs.
      if (role !== 'viewer' && role !== 'public' && !hasRole(session.scope, 'editor')) throw new ForbiddenError('Your role is viewer: a viewer can only read');
      if (role !== 'public') assertRole(session.scope, role);
    }
    await next();
  };

  mountDashboardRoutes(
    router,
    [
      ...signInRoutes(deps, rateLimits),
      // People sign in as themselves; the organization page's people forms (docs/console.md "People and roles").
      ...peopleRoutes(deps, rateLimits, { readForm, readCheckedForm, send, pageSession, safeNext }),

      // The home page, the jobs page and the import page (docs/console.md "Home, jobs and import").
      ...operationsRoutes(deps, { send, pageSession }),

      ...reviewRoutes(deps, storage),
      // The catalog console's item grid and completeness pages (docs/console.md "Item grid", "Completeness and readiness").
      ...gridRoutes(deps, { readForm, readCheckedForm, send, pageSession }),
      // Bulk actions and fill the gaps on the grid's filter (docs/console.md "Bulk actions", "Fill the gaps").
      ...bulkRoutes(deps, { readForm, readCheckedForm, send, pageSession }),

      // The tool server's login helper (docs/mcp.md "Point an MCP host at it"): a loopback callback receives a new API key.
      ...cliLoginRoutes(deps, { readForm, readCheckedForm, send, pageSession }),
      // The console's item, snapshots and schema pages (docs/console.md "Item, snapshots, schema and taxonomy").
      ...consoleRoutes(deps, { readForm, readCheckedForm, send, pageSession }),
      // A catalog's feeds, their runs and issues (docs/console.md "Feeds").
      ...feedPageRoutes(deps, { readForm, readCheckedForm, send, pageSession }),
    ],
    signedIn,
  );
  return router;
}

/**
 * The pages served without a session: the assets (./assets, {@link ASSETS}), the sign-in page
 * and form (a sign-in counts against `rateLimits`' failed-authentication throttle) and sign-out.
 */
function signInRoutes(deps: ResolvedAppDeps, rateLimits: RateLimits): DashboardRoute[] {
  return [
    {
      method: 'get',
      path: '/assets/:asset',
      public: true,
      handler: (ctx) => {
        const type = own(ASSETS, ctx.params.asset);
        if (!type) {
          send(ctx, 404, errorPage(404, 'No such asset', null));
          return;
        }
        ctx.type = type;
        ctx.set('Cache-Control', 'public, max-age=300');
        ctx.body = fs.createReadStream(path.join(__dirname, 'assets', ctx.params.asset));
      },
    },

    {
      method: 'get',
      path: '/login',
      public: true,
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        send(ctx, 200, loginPage(safeNext(one(ctx.query.next)), null, deps.config.oidc?.providerName ?? null));
      },
    },

    {
      method: 'post',
      path: '/login',
      public: true,
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        const form = await readForm(ctx);
        const next = safeNext(form.get('next'));
        const credential = (form.get('credential') ?? '').trim();
        await rateLimits.assertMayAuthenticate(ctx.ip);
        try {
          if (!credential) throw new AppError(401, 'Paste an API key or a user token.');
          const session = await signIn(deps.knex, credential, deps.config.jwtSecret, form.get('organization_id')?.trim() || undefined);
          setSessionCookie(ctx, session.token, session.expiresAt);
          ctx.status = 303;
          ctx.redirect(next);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          if (err.status === 401) await rateLimits.countAuthFailure(ctx.ip);
          send(
            ctx,
            err.status,
            loginPage(
              next,
              err.status === 403 ? 'That organization is not accessible with this credential.' : 'This key or token is not valid.',
              deps.config.oidc?.providerName ?? null,
            ),
          );
        }
      },
    },

    {
      method: 'post',
      path: '/logout',
      public: true,
      handler: async (ctx) => {
        const form = await readForm(ctx);
        const session = await requestSession(ctx, deps.knex);
        if (session) {
          checkCsrf(ctx, session, form.get(CSRF_FIELD) ?? undefined);
          await signOut(deps.knex, ctx.cookies.get(SESSION_COOKIE) ?? '');
        }
        clearSessionCookie(ctx);
        ctx.status = 303;
        ctx.redirect(`${DASHBOARD_BASE}/login`);
      },
    },
  ];
}

/**
 * The review pages behind sign-in: a source as it was seen (a WARC record from `storage`), a
 * catalog's activities, an activity's review page, the flows, a flow, a run, the organization.
 */
function reviewRoutes(deps: ResolvedAppDeps, storage: EnrichmentStorage): DashboardRoute[] {
  return [
    // A source as it was seen (docs/research.md "Evidence in WARC"): the WARC record's payload, sandboxed (sendCapture).
    {
      method: 'get',
      path: '/captures/:job_id/:record_id',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        sendCapture(ctx, await readCapture(deps.knex, storage, session.scope, ctx.params.job_id, ctx.params.record_id));
      },
    },

    {
      method: 'get',
      path: '/catalogs/:catalog_id',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const includeDrafts = one(ctx.query.drafts) === '1';
        const { catalog, activities, total } = await loadCatalogPage(deps.knex, session.scope, ctx.params.catalog_id, includeDrafts);
        send(ctx, 200, catalogPage(catalog, activities, total, includeDrafts, pageSession(session)));
      },
    },

    {
      method: 'get',
      path: '/catalogs/:catalog_id/activities/:activity_id',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const filters = parseFilters(ctx.query);
        const data = await loadReviewActivityPage(deps.knex, session.scope, ctx.params.catalog_id, ctx.params.activity_id, filters);
        send(ctx, 200, reviewActivityPage(data, filters, pageSession(session)));
      },
    },

    {
      method: 'get',
      path: '/flows',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const filters = { search: one(ctx.query.q)?.slice(0, 200), page: pageNumber(ctx.query.page) };
        send(ctx, 200, flowListPage(await loadFlowListPage(deps.knex, session.scope, filters), filters, pageSession(session)));
      },
    },

    {
      method: 'get',
      path: '/flows/:flow_id',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        send(ctx, 200, flowPage(await loadFlowPage(deps.knex, session.scope, ctx.params.flow_id), pageSession(session)));
      },
    },

    {
      method: 'get',
      path: '/flows/:flow_id/runs/:run_id',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const filters = { node: one(ctx.query.node)?.slice(0, 200), page: pageNumber(ctx.query.page) };
        const data = await loadRunPage(deps.knex, session.scope, ctx.params.flow_id, ctx.params.run_id, filters);
        send(ctx, 200, runPage(data, filters, pageSession(session)));
      },
    },

    {
      method: 'get',
      path: '/organization',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        assertRole(session.scope, 'admin');
        send(ctx, 200, organizationPage(await loadOrganizationPage(deps.knex, session.scope), pageSession(session)));
      },
    },
  ];
}
