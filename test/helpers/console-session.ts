/**
 * A console (dashboard) session on an API served over HTTP, signed in as a person does: the
 * login form (`POST /dashboard/login` with an API key), then the session's CSRF token read from
 * a console page's `<meta name="csrf-token">`. For tests that drive a real API process
 * (test/fixtures/worker-cluster.ts `spawnApi`) the way the console's forms do.
 */
import { SESSION_COOKIE } from '../../src/middleware/session';

/** A signed-in console session: the `Cookie` header value and the CSRF token its forms carry. */
export interface ConsoleSession {
  cookie: string;
  csrf: string;
}

/**
 * Signs in to the console at `base` (`http://host:port`) with `apiKey`.
 * @throws Error when the login is not answered with a session cookie, or no page carries a CSRF token
 */
export async function consoleSession(base: string, apiKey: string): Promise<ConsoleSession> {
  const login = await fetch(`${base}/dashboard/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ credential: apiKey, next: '/dashboard' }).toString(),
    redirect: 'manual',
  });
  const set = login.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (login.status !== 303 || !set) throw new Error(`console login answered ${login.status}: ${await login.text()}`);
  const cookie = set.split(';')[0];
  const page = await fetch(`${base}/dashboard`, { headers: { cookie } });
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error(`no CSRF token on the console page (status ${page.status})`);
  return { cookie, csrf };
}

/**
 * Posts a console form (`path` under `base`, e.g. `/dashboard/catalogs/<id>/items/bulk`) with the
 * session's cookie and CSRF token, not following the redirect.
 * @returns the response (a form's success is a 303)
 */
export function postConsoleForm(base: string, session: ConsoleSession, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
    body: new URLSearchParams({ ...fields, csrf_token: session.csrf }).toString(),
    redirect: 'manual',
  });
}
