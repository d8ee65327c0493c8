import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { authenticate, resolveScope } from '../services/access/auth';

/**
 * Bearer authentication for `/api` routes (decisions.md §1): sets `ctx.state.scope`.
 * Public routes (docs, OpenAPI) are listed in `publicPaths` and pass through.
 */
export function authMiddleware(knex: Knex, jwtSecret: string | null, publicPaths: Set<string>) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (publicPaths.has(ctx.path)) return next();
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const principal = await authenticate(knex, match?.[1]?.trim(), jwtSecret);
    ctx.state.scope = resolveScope(principal, ctx.get('x-organization-id') || undefined);
    await next();
  };
}
