/**
 * Helpers of the tool-server tests: the real service listening on loopback (so the tool
 * server, a separate process, reaches it over HTTP), the tool server driven through the SDK's own
 * MCP client over stdio, and the person's side of the review in the dashboard (sign-in, approve,
 * apply through the dashboard's session and CSRF token, as its page script does).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type Koa from 'koa';
import { waitUntil } from './wait';

const ROOT = path.resolve(__dirname, '../..');

/** A Koa app listening on 127.0.0.1 (random port); `baseUrl` ends in `/api`. */
export interface ListeningApp {
  origin: string;
  baseUrl: string;
  close: () => Promise<void>;
}

/** Serves `app` on 127.0.0.1 at a random port. */
export async function listen(app: Koa): Promise<ListeningApp> {
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}/api`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The tool server as an agent host runs it: a child process over stdio, with the SDK's client. */
export interface McpSession {
  client: Client;
  /** Calls a tool and returns its JSON result; throws with the tool's error text when `isError`. */
  call: <T = Record<string, unknown>>(name: string, args: Record<string, unknown>) => Promise<T>;
  /** Calls a tool expecting `isError` and returns its parsed error body. */
  callError: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
  close: () => Promise<void>;
}

/** Starts `npm run mcp` (tsx packages/tool-server/src/main.ts) with `env` added to the default environment and connects the SDK client. */
export async function startMcp(env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: path.join(ROOT, 'node_modules/.bin/tsx'),
    args: ['packages/tool-server/src/main.ts'],
    cwd: ROOT,
    env: { LOG_LEVEL: 'silent', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'jest', version: '1.0.0' });
  await client.connect(transport);
  const text = (r: Awaited<ReturnType<Client['callTool']>>) => {
    const content = r.content as Array<{ type: string; text?: string }>;
    return content.map((c) => c.text ?? '').join('');
  };
  return {
    client,
    call: async <T>(name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
      if (r.isError) throw new Error(`${name} failed: ${text(r)}`);
      return JSON.parse(text(r)) as T;
    },
    callError: async (name, args) => {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
      if (!r.isError) throw new Error(`${name} was expected to fail but answered ${text(r).slice(0, 500)}`);
      return JSON.parse(text(r)) as Record<string, unknown>;
    },
    close: () => client.close(),
  };
}

/** A person signed in to the dashboard: the session cookie and the page's CSRF token. */
export interface DashboardPerson {
  /** GET a dashboard or API path with the session; returns status and text. */
  get: (p: string) => Promise<{ status: number; text: string }>;
  /** POST JSON to an API path with the session and CSRF token, as the dashboard's script does. */
  post: (p: string, body: unknown) => Promise<{ status: number; json: Record<string, unknown> }>;
}

/**
 * Signs in at `/dashboard/login` with `credential`, opens `reviewPath` (the path of a review_url)
 * and reads its CSRF token.
 * @throws when sign-in or the page fails
 */
export async function signInToDashboard(origin: string, credential: string, reviewPath: string): Promise<DashboardPerson> {
  const res = await fetch(`${origin}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ credential, next: reviewPath }).toString(),
  });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const cookie = (res.headers.getSetCookie?.() ?? []).find((c) => c.startsWith('catalog_dashboard_session='))?.split(';')[0];
  if (!cookie) throw new Error('sign-in set no session cookie');
  const page = await fetch(`${origin}${reviewPath}`, { headers: { Cookie: cookie }, redirect: 'manual' });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`review page answered ${page.status}`);
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(html)?.[1];
  if (!csrf) throw new Error('review page has no CSRF token');
  return {
    get: async (p) => {
      const r = await fetch(`${origin}${p}`, { headers: { Cookie: cookie }, redirect: 'manual' });
      return { status: r.status, text: await r.text() };
    },
    post: async (p, body) => {
      const r = await fetch(`${origin}${p}`, {
        method: 'POST',
        headers: { Cookie: cookie, 'X-CSRF-Token': csrf, 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    },
  };
}

/** The person approves every change of the activity and applies it from the dashboard, then waits until the apply completed. */
export async function approveAndApply(person: DashboardPerson, activityId: string): Promise<Record<string, unknown>> {
  const approved = await person.post(`/api/activities/${activityId}/staged-changes/bulk-review`, { action: 'approve_all' });
  if (approved.status !== 200) throw new Error(`approve_all answered ${approved.status}: ${JSON.stringify(approved.json)}`);
  const started = await person.post(`/api/activities/${activityId}/apply`, {});
  if (started.status !== 202) throw new Error(`apply answered ${started.status}: ${JSON.stringify(started.json)}`);
  return waitUntil(
    async () => {
      const r = await person.get(`/api/activities/${activityId}`);
      const a = JSON.parse(r.text) as Record<string, unknown>;
      const phase = (a.apply_progress as { phase?: string } | null)?.phase;
      if (phase === 'failed') throw new Error(`apply failed: ${JSON.stringify(a.apply_progress)}`);
      return a.status === 'completed' ? a : null;
    },
    `apply of ${activityId}`,
    60_000,
  );
}
