import type { Context } from 'koa';
import type { ActiveSession } from '../services/access/sessions';
import type { PageSession } from './views';

/**
 * What the dashboard router (src/dashboard/routes.ts) hands the modules that add pages to it:
 * one definition, so that every page module reads forms, checks CSRF and renders the same way.
 */
export interface DashboardRouteHelpers {
  /** A small urlencoded form body, at most `limitBytes` (default 16 KiB). @throws PayloadTooLargeError */
  readForm: (ctx: Context, limitBytes?: number) => Promise<URLSearchParams>;
  /**
   * {@link readForm} of a signed-in page's state change, its CSRF token (form field or header)
   * checked against the session. @throws ForbiddenError (403) when it is missing or wrong
   */
  readCheckedForm: (ctx: Context, limitBytes?: number) => Promise<URLSearchParams>;
  /** Answers `body` as HTML with `status`. */
  send: (ctx: Context, status: number, body: string) => void;
  /** What a page shows of a session (CSRF token, organization, person). */
  pageSession: (s: ActiveSession) => PageSession;
}
