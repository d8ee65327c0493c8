import type { AppDeps } from '../deps';
import { defineRoute, RouteDef } from './registry';

/** `GET /healthz` (process up) and `GET /readyz` (PostgreSQL and Temporal reachable), decisions.md §1. */
export function healthRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      summary: 'Liveness',
      tags: ['health'],
      public: true,
      handler: () => ({ status: 'ok' }),
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: PostgreSQL and Temporal reachable',
      tags: ['health'],
      public: true,
      handler: async ({ ctx }) => {
        const checks: Record<string, string> = {};
        await deps.knex.raw('select 1').then(
          () => (checks.postgres = 'ok'),
          (e) => (checks.postgres = `error: ${e.message}`),
        );
        await deps.jobRunner.ping().then(
          () => (checks.temporal = 'ok'),
          (e) => (checks.temporal = `error: ${e.message}`),
        );
        const ready = Object.values(checks).every((v) => v === 'ok');
        ctx.status = ready ? 200 : 503;
        ctx.body = { status: ready ? 'ready' : 'not_ready', checks };
      },
    }),
  ];
}
