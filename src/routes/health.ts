import type { AppDeps } from '../deps';
import { capabilityReport } from '../services/capabilities';
import { configuredSources, indexedArchiveCounts } from '../services/research-archives/sources';
import { defineRoute, RouteDef } from './registry';

/**
 * `GET /healthz` (process up) and `GET /readyz` (docs/api-reference.md "URLs"): PostgreSQL and Temporal
 * reachable, and a worker polling the task queue for workflow and activity tasks (a
 * deployment whose worker is down is not ready); the body also lists the research sources and
 * every capability with its state and reason (src/services/capabilities.ts), which readiness
 * does not depend on.
 */
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
      summary:
        'Readiness: PostgreSQL and Temporal reachable, a worker polling the task queue; the active research sources and the capabilities (on/off, reason)',
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
        const pollers = deps.jobRunner.taskQueuePollers;
        if (pollers && checks.temporal === 'ok') {
          await pollers.call(deps.jobRunner).then(
            (p) =>
              (checks.worker =
                p.workflow > 0 && p.activity > 0
                  ? 'ok'
                  : `error: no worker polls task queue ${p.task_queue} (workflow pollers ${p.workflow}, activity pollers ${p.activity})`),
            (e) => (checks.worker = `error: ${e.message}`),
          );
        }
        const ready = Object.values(checks).every((v) => v === 'ok');
        const research = {
          ...configuredSources(deps.config),
          indexed_archives: checks.postgres === 'ok' ? await indexedArchiveCounts(deps.knex).catch(() => null) : null,
        };
        ctx.status = ready ? 200 : 503;
        // What this deployment can do (informational: readiness is the checks above only).
        ctx.body = { status: ready ? 'ready' : 'not_ready', checks, research, capabilities: capabilityReport(deps.config) };
      },
    }),
  ];
}
