import type { Context, Next } from 'koa';

/**
 * The body of a wrong method on a known path: @koa/router's `allowedMethods()`
 * answers 405 with the `Allow` header (RFC 9110 §15.5.6) — or 501 for a method no route knows —
 * but no body; this gives it the error body of docs/api-reference.md "Errors", `{detail: "Method not allowed"}`
 * (`"Not implemented"` for 501). Mounted before the routers, it acts on the way out. No handler
 * of the service answers 405 or 501 itself, so these statuses always come from allowedMethods.
 */
export async function methodNotAllowedBody(ctx: Context, next: Next): Promise<void> {
  await next();
  // The catch-all 404 after the routers has set its body before allowedMethods turned it into 405/501.
  if (ctx.status === 405) ctx.body = { detail: 'Method not allowed' };
  else if (ctx.status === 501) ctx.body = { detail: 'Not implemented' };
}
