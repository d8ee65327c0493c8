import fs from 'node:fs';
import path from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { apiHeaders } from './middleware/api-headers';
import { authThrottle, requestQuota } from './middleware/rate-limit';
import { methodNotAllowedBody } from './middleware/method-not-allowed';
import { errorHandler } from './middleware/error-handler';
import { requestLog } from './middleware/request-log';
import { authMiddleware } from './middleware/auth';
import { RouteRegistry } from './routes/registry';
import { healthRoutes } from './routes/health';
import { enrichRoutes } from './routes/enrich';
import { catalogRoutes } from './routes/catalogs';
import { itemRoutes } from './routes/items';
import { reviewApplyRoutes } from './routes/review-apply';
import { reviewActivityRoutes } from './routes/review-activities';
import { flowRoutes } from './routes/flows';
import { apiKeyRoutes } from './routes/api-keys';
import { dashboardRouter } from './dashboard/routes';
import { organizationRoutes } from './routes/organization';
import { readinessRoutes } from './routes/readiness';
import { channelRoutes } from './routes/channels';
import { templateRoutes } from './routes/templates';
import { artifactRoutes, publicMediaRoutes } from './routes/files';
import { inferenceRoutes } from './routes/inference';
import { sheetRoutes } from './routes/sheets';
import { judgeRoutes } from './routes/judge';
import { imageRunRoutes } from './routes/image-runs';
import { researchArchiveRoutes } from './routes/research-archives';
import { feedRoutes, publicFeedRoutes } from './routes/feeds';
import type { AppDeps, ResolvedAppDeps } from './deps';
import { runIdempotent } from './services/access/idempotency';
import { RateLimits } from './services/access/rate-limits';
import { createServiceCaches } from './services/service-caches';
import { metrics } from './lib/metrics';
import { Validator } from './lib/validation';

/** Inline JSON bodies are capped at 10 MB (docs/api-reference.md "Limits"); larger → 413. */
export const JSON_BODY_LIMIT = '10mb';

/**
 * Fills in the optional parts of the dependencies once: fresh caches when none are given (so
 * every app owns its caches unless the caller shares them on purpose).
 */
export function resolveDeps(deps: AppDeps): ResolvedAppDeps {
  return { ...deps, caches: deps.caches ?? createServiceCaches() };
}

/** Builds the route registry of the whole API (also used to render the OpenAPI document). */
export function buildRegistry(given: AppDeps): RouteRegistry {
  const deps = resolveDeps(given);
  return new RouteRegistry().add(
    ...catalogRoutes(deps),
    // Before itemRoutes: `items/export` and `items/import` would otherwise match `items/:item_id`.
    ...sheetRoutes(deps),
    ...itemRoutes(deps),
    ...enrichRoutes(deps),
    ...templateRoutes(deps),
    ...reviewActivityRoutes(deps),
    ...organizationRoutes(deps),
    ...apiKeyRoutes(deps),
    ...reviewApplyRoutes(deps),
    ...flowRoutes(deps),
    ...artifactRoutes(deps),
    ...inferenceRoutes(deps),
    ...judgeRoutes(deps),
    ...imageRunRoutes(deps),
    ...researchArchiveRoutes(deps),
    ...readinessRoutes(deps),
    ...channelRoutes(deps),
    ...feedRoutes(deps),
  );
}

/**
 * Creates the Koa application: request log → error handler → body parser → public routes
 * (health, metrics, docs) → the review dashboard (`/dashboard`, its own session sign-in) →
 * bearer (or dashboard session) auth → `/api` routes. Never listens; `main.ts` does, and
 * tests call `app.callback()`.
 */
export function createApp(given: AppDeps): Koa {
  const deps = resolveDeps(given);
  const app = new Koa();
  app.proxy = true;
  const registry = buildRegistry(deps);
  const rootRoutes = new RouteRegistry().add(...healthRoutes(deps), ...publicMediaRoutes(deps), ...publicFeedRoutes(deps));
  const openapi = new RouteRegistry()
    .add(...rootRoutes.routes, ...registry.routes)
    .openapi({ title: 'Catalog Enrichment and Management Service', version: '0.1.0' }, '/api');

  // One validator per app: compiled schemas are cached on it, never in module state.
  const validator = new Validator();
  // Limits are counted in PostgreSQL, so every API process shares them.
  const rateLimits = new RateLimits(deps.knex, deps.config.limits);
  const root = new Router();
  rootRoutes.mount(root, validator, { knex: deps.knex });
  root.get('/metrics', async (ctx) => {
    // METRICS_TOKEN protects the Prometheus text when the port is reachable from outside.
    if (deps.config.metricsToken && ctx.get('authorization') !== `Bearer ${deps.config.metricsToken}`) {
      ctx.status = 401;
      ctx.body = { detail: 'Not authenticated' };
      return;
    }
    ctx.type = metrics.contentType;
    ctx.body = await metrics.metrics();
  });
  root.get('/api/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  mountDocs(root);

  const api = new Router({ prefix: '/api' });
  api.use(apiHeaders);
  api.use(authThrottle(rateLimits));
  api.use(authMiddleware(deps.knex, deps.config.jwtSecret, new Set()));
  api.use(requestQuota(rateLimits));
  registry.mount(api, validator, {
    knex: deps.knex,
    idempotent: (org, key, hash, handler, atomic) => runIdempotent(deps.knex, org, key, hash, handler, atomic),
  });

  app.use(requestLog);
  app.use(errorHandler);
  app.use(bodyParser({ jsonLimit: JSON_BODY_LIMIT, enableTypes: ['json'], encoding: 'utf-8' }));
  app.use(methodNotAllowedBody);
  app.use(root.routes()).use(root.allowedMethods());
  const dashboard = dashboardRouter(deps, rateLimits);
  app.use(dashboard.routes()).use(dashboard.allowedMethods());
  app.use(api.routes()).use(api.allowedMethods());
  app.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { detail: 'Not found' };
  });
  return app;
}

/** `GET /docs`: Swagger UI (from the swagger-ui-dist package, served locally) over `/api/openapi.json`. */
function mountDocs(router: Router): void {
  const dist = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets: Record<string, string> = { 'swagger-ui.css': 'text/css', 'swagger-ui-bundle.js': 'application/javascript' };
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = `<!doctype html><html><head><meta charset="utf-8"><title>Catalog Enrichment API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#ui' });</script></body></html>`;
  });
  router.get('/docs/:asset', (ctx) => {
    const type = assets[ctx.params.asset];
    if (!type) {
      ctx.status = 404;
      ctx.body = { detail: 'Not found' };
      return;
    }
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(path.join(dist, ctx.params.asset));
  });
}
