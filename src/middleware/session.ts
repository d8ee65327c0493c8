import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import { ForbiddenError } from '../lib/errors';
import { findSession, type ActiveSession } from '../services/access/sessions';

/**
 * The review dashboard's session cookie and CSRF check. The cookie
 * holds a random token (src/services/access/sessions.ts keeps its hash); it is httpOnly (page
 * scripts never read it), SameSite=Lax (not sent on cross-site POSTs or sub-requests), Secure
 * behind HTTPS, and valid for the whole service so the dashboard's scripts can call `/api`.
 */

/** Name of the session cookie. */
export const SESSION_COOKIE = 'catalog_dashboard_session';
/** Header the dashboard's scripts send the session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** Form field the dashboard's own forms send the CSRF token in. */
export const CSRF_FIELD = 'csrf_token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session of the request's cookie, or null (no cookie, unknown, expired or revoked). */
export async function requestSession(ctx: Context, knex: Knex): Promise<ActiveSession | null> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (!token) return null;
  return findSession(knex, token);
}

/** Sets the session cookie (httpOnly, SameSite=Lax, path `/`, Secure when the request is HTTPS). */
export function setSessionCookie(ctx: Context, token: string, expiresAt: Date): void {
  ctx.cookies.set(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', path: '/', expires: expiresAt, secure: ctx.secure, overwrite: true });
}

/** Removes the session cookie. */
export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', path: '/', expires: new Date(0), secure: ctx.secure, overwrite: true });
}

/**
 * CSRF protection of cookie-authenticated requests: a state-changing method (anything but GET,
 * HEAD, OPTIONS) must carry the session's token in {@link CSRF_HEADER} or as `formToken` (the
 * {@link CSRF_FIELD} of a dashboard form). A cross-site page can make the browser send the
 * cookie but cannot read the token (synchronizer-token pattern). Bearer requests never get here.
 * @throws ForbiddenError (403) when the token is missing or wrong
 */
export function checkCsrf(ctx: Context, session: ActiveSession, formToken?: string): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const given = Buffer.from(ctx.get(CSRF_HEADER) || formToken || '');
  const expected = Buffer.from(session.csrfToken);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ForbiddenError('CSRF token missing or invalid');
}
