/**
 * The login helper (docs/mcp.md "Configuration"): `npm run mcp -- login`
 * opens the dashboard's sign-in (`/dashboard/cli-login`), where the person signs in and allows the
 * tool server; the dashboard then redirects the browser to a one-time callback on 127.0.0.1 with a
 * new credential and the `state` this run chose (the OAuth loopback-redirect pattern, RFC 8252 §7.3).
 * The credential is stored (credentials.ts) and used by later runs.
 */
import { spawn } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { McpConfig } from './config';
import { writeCredentials } from './credentials';

/** Options of {@link login}. */
export interface LoginOptions {
  /** Open the browser (default true); otherwise only print the URL. */
  open: boolean;
  /** How long to wait for the callback, ms (default 5 minutes). */
  timeoutMs?: number;
  /** Called with the sign-in URL once the callback listens (tests follow it themselves). */
  onUrl?: (url: string) => void;
  /** Where messages go (default stderr). */
  log?: (line: string) => void;
}

/** The dashboard's origin: the base URL without its `/api` suffix. */
export function dashboardOrigin(baseUrl: string): string {
  return baseUrl.replace(/\/api\/?$/, '');
}

/** Opens `url` in the desktop's browser, best effort (the URL is printed anyway). */
function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    spawn(cmd, args, { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  } catch {
    // No browser here: the printed URL is the way.
  }
}

/** Constant-time comparison of two strings. */
function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Runs the login: listens on 127.0.0.1 (random port), opens the sign-in URL, waits for the callback
 * with the matching `state`, stores the credential in `config.credentialsFile`.
 * @returns the organization id the credential belongs to (null when the dashboard did not say)
 * @throws Error on timeout or when the person refused
 */
export async function login(config: McpConfig, options: LoginOptions): Promise<{ organizationId: string | null }> {
  const state = randomBytes(24).toString('hex');
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  let settle: (v: { token: string; organizationId: string | null } | Error) => void = () => undefined;
  const result = new Promise<{ token: string; organizationId: string | null } | Error>((resolve) => (settle = resolve));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const token = url.searchParams.get('token') ?? '';
    const error = url.searchParams.get('error');
    if (!same(url.searchParams.get('state') ?? '', state)) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('State mismatch: start the login again.');
      return;
    }
    res
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Signed in</title><p>The tool server is signed in. You can close this window.</p>');
    settle(error || !token ? new Error(`login refused: ${error ?? 'no token'}`) : { token, organizationId: url.searchParams.get('organization_id') });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const callback = `http://127.0.0.1:${port}/callback`;
  const url = `${dashboardOrigin(config.baseUrl)}/dashboard/cli-login?callback=${encodeURIComponent(callback)}&state=${state}`;
  log(`Sign in to allow the tool server: ${url}`);
  options.onUrl?.(url);
  if (options.open) openBrowser(url);
  const timer = setTimeout(() => settle(new Error('login timed out')), options.timeoutMs ?? 300_000);
  try {
    const got = await result;
    if (got instanceof Error) throw got;
    writeCredentials(config.credentialsFile, {
      token: got.token,
      base_url: config.baseUrl,
      organization_id: got.organizationId,
      saved_at: new Date().toISOString(),
    });
    log(`Signed in; credential stored in ${config.credentialsFile}`);
    return { organizationId: got.organizationId };
  } finally {
    clearTimeout(timer);
    server.close();
  }
}
