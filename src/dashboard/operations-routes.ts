import { Readable } from 'node:stream';
import type { DashboardRoute } from './route-table';
import type { Context } from 'koa';
import type { ResolvedAppDeps } from '../deps';
import { NotFoundError } from '../lib/errors';
import type { ActiveSession } from '../services/access/sessions';
import { getCatalog } from '../services/catalog/catalogs';
import { loadImport } from '../services/sheets/import';
import {
  listOperations,
  operationErrors,
  OPERATION_KINDS,
  OPERATION_STATUSES,
  type OperationKind,
  type OperationStatus,
} from '../services/operations/operations';
import { loadHomeCompleteness, loadHomePage } from './home-data';
import { homePage } from './home-views';
import { importPage } from './import-views';
import { jobsPage, type JobsFilters } from './jobs-views';
import type { PageSession } from './views';

/** What these routes need from the dashboard router (src/dashboard/routes.ts). */
export interface OperationsRouteHelpers {
  send: (ctx: Context, status: number, body: string) => void;
  pageSession: (s: ActiveSession) => PageSession;
}

/** Operations per jobs page. */
export const JOBS_PAGE_SIZE = 25;

function one(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v === '' ? undefined : v;
}

/** The jobs page's filters from its query; unknown values are ignored, not errors. */
function jobsFilters(query: Record<string, string | string[] | undefined>): JobsFilters {
  const kind = one(query.kind);
  const status = one(query.status);
  const page = Number(one(query.page) ?? '1');
  return {
    kind: kind && (OPERATION_KINDS as readonly string[]).includes(kind) ? (kind as OperationKind) : undefined,
    status: status && (OPERATION_STATUSES as readonly string[]).includes(status) ? (status as OperationStatus) : undefined,
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, 1_000_000) : 1,
  };
}

/** A CSV cell (quoted when it holds a comma, quote or line break). */
function csvCell(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The console's home page, jobs page and import page, added to the
 * dashboard router behind sign-in:
 * - `GET /dashboard` — the home page (src/dashboard/home-views.ts);
 * - `GET /dashboard/completeness.json?catalog_id=…` — the completeness of those catalogs (of the
 *   organization), for the home page script: `{catalogs: [{catalog_id, required_fields, items, complete, share}]}`;
 * - `GET /dashboard/jobs?kind=&status=&page=` — the jobs page (jobs-views.ts);
 * - `GET /dashboard/jobs/{kind}/{id}/errors.csv` — one operation's errors (`position,message`);
 * - `GET /dashboard/catalogs/{catalog_id}/import[?import_id=]` — the import page (import-views.ts).
 * Another organization's catalog is a 403 page; an unknown operation or import a 404.
 */
export function operationsRoutes(deps: ResolvedAppDeps, helpers: OperationsRouteHelpers): DashboardRoute[] {
  const { send, pageSession } = helpers;
  return [
    {
      method: 'get',
      path: '/',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        send(ctx, 200, homePage(await loadHomePage(deps.knex, session.scope), pageSession(session), Date.now()));
      },
    },
    {
      method: 'get',
      path: '/completeness.json',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const ids = ([] as string[]).concat(ctx.query.catalog_id ?? []);
        ctx.body = { catalogs: await loadHomeCompleteness(deps, session.scope, ids) };
      },
    },
    {
      method: 'get',
      path: '/jobs',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const filters = jobsFilters(ctx.query);
        const { operations, total } = await listOperations(deps.knex, session.scope.organizationId, { ...filters, pageSize: JOBS_PAGE_SIZE });
        send(ctx, 200, jobsPage(operations, total, JOBS_PAGE_SIZE, filters, pageSession(session), Date.now()));
      },
    },
    {
      method: 'get',
      path: '/jobs/:kind/:id/errors.csv',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const kind = ctx.params.kind as OperationKind;
        const pages = (OPERATION_KINDS as readonly string[]).includes(kind)
          ? await operationErrors(deps.knex, session.scope.organizationId, kind, ctx.params.id)
          : null;
        if (!pages) throw new NotFoundError('No such operation');
        ctx.status = 200;
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="${kind}-${ctx.params.id}-errors.csv"`);
        ctx.body = Readable.from(
          (async function* () {
            yield `${kind === 'import' ? 'line' : 'row_index'},message\n`;
            for await (const page of pages) yield page.map((e) => `${e.position},${csvCell(e.message)}\n`).join('');
          })(),
        );
      },
    },
    {
      method: 'get',
      path: '/catalogs/:catalog_id/import',
      handler: async (ctx) => {
        const session = ctx.state.dashboardSession as ActiveSession;
        const { catalog, schema } = await getCatalog(deps.knex, session.scope, ctx.params.catalog_id);
        const importId = one(ctx.query.import_id);
        // A named import must be one of this catalog's (404 otherwise); the page script loads its report.
        const imp = importId ? await loadImport(deps.knex, session.scope, catalog.id, importId) : null;
        send(ctx, 200, importPage(catalog, Object.keys(schema.schema_definition.properties ?? {}), imp, pageSession(session)));
      },
    },
  ];
}
