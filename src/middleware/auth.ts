import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { authenticate, resolveScope } from '../services/access/auth';
import { hasRole } from '../services/access/roles';
import { ForbiddenError } from '../lib/errors';
import { checkCsrf, requestSession } from './session';

/**
 * Bearer authentication for `/api` routes (docs/api-reference.md "Authentication"): sets `ctx.state.scope`.
 * Public routes (docs, OpenAPI) are listed in `publicPaths` and pass through. A request without
 * an `Authorization` header but with a review dashboard session cookie acts for the session's
 * organization, and must pass the session's CSRF check when it changes state; a
 * person's session changes state only with a role above viewer.
 */
export function authMiddleware(knex: Knex, jwtSecret: string | null, publicPaths: Set<string>) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (publicPaths.has(ctx.path)) return next();
    const header = ctx.get('authorization');
    if (!header) {
      const session = await requestSession(ctx, knex);
      if (session) {
        checkCsrf(ctx, session);
        // A viewer reads only; stronger roles are checked by each use case.
        if (!['GET', 'HEAD', 'OPTIONS'].includes(ctx.method) && !hasRole(session.scope, 'editor')) {
          throw new ForbiddenError('Your role is viewer: a viewer can only read (approving, rejecting and applying need a reviewer)');
        }
        ctx.state.scope = session.scope;
        return next();
      }
    }
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const principal = await authenticate(knex, match?.[1]?.trim(), jwtSecret);
    ctx.state.scope = resolveScope(principal, ctx.get('x-organization-id') || undefined);
    await next();
  };
}
