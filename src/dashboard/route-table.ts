import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import { dashboardRouteRole } from '../services/access/route-roles';

/**
 * One console route declared as data, as the API declares its routes (src/routes/registry.ts
 * RouteDef): method, path relative to `/dashboard` (Koa syntax), whether it is served without
 * sign-in, and its handler. The page modules export tables of these; {@link mountDashboardRoutes}
 * puts them on the dashboard router (src/dashboard/routes.ts).
 */
export interface DashboardRoute {
  method: 'get' | 'post';
  path: string;
  /** Served without a session (sign-in pages, assets); otherwise behind the router's `signedIn` middleware. */
  public?: boolean;
  /** Answers the request (sets `ctx.status`/`ctx.body` or redirects); the signed-in session is `ctx.state.dashboardSession`. */
  handler: (ctx: RouterContext) => Promise<unknown> | unknown;
}

/**
 * Mounts `routes` on `router` in order, each non-public one behind `signedIn`.
 * @throws Error when a state-changing route declares no role in src/services/access/route-roles.ts
 *   (so a missing one stops the app at start, not in production)
 */
export function mountDashboardRoutes(router: Router, routes: DashboardRoute[], signedIn: Middleware): void {
  for (const route of routes) {
    dashboardRouteRole(route.method, route.path);
    if (route.public) router[route.method](route.path, route.handler);
    else router[route.method](route.path, signedIn, route.handler);
  }
}
