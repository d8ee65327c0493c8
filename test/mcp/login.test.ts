/**
 * The login helper (issue 21 "Shape": `npm run mcp -- login`): the tool server's loopback callback
 * receives a credential after the person signs in to the dashboard and allows it; the credential is
 * stored (owner-only) and works against the API. Refusals: a callback that is not loopback, a
 * missing CSRF token, "Deny".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadMcpConfig } from '../../packages/tool-server/src/config';
import { readCredentials } from '../../packages/tool-server/src/credentials';
import { login } from '../../packages/tool-server/src/login';
import { jwtVerify } from 'jose';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { issueUserToken } from '../../src/services/access/auth';
import { noJobs, testApp } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { listen, ListeningApp } from '../helpers/mcp';

let service: ListeningApp;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let dir: string;

beforeAll(async () => {
  org = await createTestOrg('mcp login');
  service = await listen(testApp());
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-login-'));
});
afterAll(async () => {
  await service.close();
  await closeTestKnex();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The browser: signs in with the org's key at the sign-in URL (following `next`), then submits the confirmation form. */
async function browser(
  signInUrl: string,
  decision: 'allow' | 'deny',
  withCsrf = true,
  credential = org.apiKey,
): Promise<{ status: number; location: string | null }> {
  const u = new URL(signInUrl);
  const first = await fetch(signInUrl, { redirect: 'manual' });
  expect(first.status).toBe(302);
  const next = new URL(first.headers.get('location')!, u.origin).searchParams.get('next')!;
  const signIn = await fetch(`${u.origin}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ credential, next }).toString(),
  });
  const cookie = signIn.headers.getSetCookie()[0].split(';')[0];
  const page = await fetch(`${u.origin}${next}`, { headers: { Cookie: cookie } });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${new URL(u.searchParams.get('callback')!).origin}`);
  const text = await page.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(text)?.[1] ?? '';
  const form = new URLSearchParams({ callback: field('callback').replace(/&amp;/g, '&'), state: field('state'), decision });
  if (withCsrf) form.set('csrf_token', field('csrf_token'));
  const res = await fetch(`${u.origin}/dashboard/cli-login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const location = res.headers.get('location');
  if (res.status === 303 && location) await fetch(location); // the browser follows to the tool server's callback
  return { status: res.status, location };
}

test('allow: the callback receives a new key, stored owner-only, and it works against the API', async () => {
  const credentialsFile = path.join(dir, 'creds/credentials.json');
  const config = { ...loadMcpConfig({ CATALOG_BASE_URL: service.baseUrl }, dir), credentialsFile };
  let followed: Promise<unknown> = Promise.resolve();
  const result = await login(config, { open: false, log: () => undefined, onUrl: (url) => (followed = browser(url, 'allow')) });
  await followed;
  expect(result.organizationId).toBe(org.organizationId);
  const stored = readCredentials(credentialsFile)!;
  expect(stored).toMatchObject({ base_url: service.baseUrl, organization_id: org.organizationId });
  expect(stored.token).toMatch(/^ck_/);
  expect(fs.statSync(credentialsFile).mode & 0o777).toBe(0o600);
  const keys = await fetch(`${service.baseUrl}/public/api-keys`, { headers: { Authorization: `Bearer ${stored.token}` } });
  expect(keys.status).toBe(200);
  // Later runs read the stored credential when the environment names none.
  expect(loadMcpConfig({}, dir, stored.token).token).toBe(stored.token);
});

test('a person signed in with a user token hands the tool server a user token of their own, which works against the API', async () => {
  const secret = 'login-test-secret';
  const users = await listen(createApp({ config: { ...loadConfig(), jwtSecret: secret }, knex: testKnex(), jobRunner: noJobs }));
  try {
    const toolServerKeys = async () =>
      Number((await testKnex()('api_keys').where({ organization_id: org.organizationId }).where('name', 'like', 'MCP tool server%').count())[0].count);
    const keysBefore = await toolServerKeys();
    const personToken = await issueUserToken(secret, 'person-1', [org.organizationId]);
    const credentialsFile = path.join(dir, 'user-creds/credentials.json');
    const config = { ...loadMcpConfig({ CATALOG_BASE_URL: users.baseUrl }, dir), credentialsFile };
    let followed: Promise<unknown> = Promise.resolve();
    await login(config, { open: false, log: () => undefined, onUrl: (url) => (followed = browser(url, 'allow', true, personToken)) });
    await followed;
    const stored = readCredentials(credentialsFile)!;
    expect(stored.token).not.toMatch(/^ck_/);
    const { payload } = await jwtVerify(stored.token, new TextEncoder().encode(secret));
    expect(payload).toMatchObject({ sub: 'person-1', org_ids: [org.organizationId] });
    expect(payload.exp! - payload.iat!).toBe(30 * 24 * 3600);
    expect((await fetch(`${users.baseUrl}/public/catalogs`, { headers: { Authorization: `Bearer ${stored.token}` } })).status).toBe(200);
    // No API key was made for it.
    expect(await toolServerKeys()).toBe(keysBefore);
  } finally {
    await users.close();
  }
});

test('deny ends the login with an error and stores nothing', async () => {
  const credentialsFile = path.join(dir, 'denied.json');
  const config = { ...loadMcpConfig({ CATALOG_BASE_URL: service.baseUrl }, dir), credentialsFile };
  await expect(login(config, { open: false, log: () => undefined, onUrl: (url) => void browser(url, 'deny') })).rejects.toThrow(/access_denied/);
  expect(fs.existsSync(credentialsFile)).toBe(false);
});

test('a callback that is not loopback is refused; a form without the CSRF token is refused', async () => {
  const bad = await fetch(`${service.origin}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ credential: org.apiKey }).toString(),
  });
  const cookie = bad.headers.getSetCookie()[0].split(';')[0];
  for (const callback of ['https://evil.example/callback', 'http://127.0.0.1/callback', 'http://127.0.0.1:9/other', 'http://10.0.0.1:80/callback']) {
    const res = await fetch(`${service.origin}/dashboard/cli-login?callback=${encodeURIComponent(callback)}&state=${'a'.repeat(32)}`, {
      headers: { Cookie: cookie },
    });
    expect(res.status).toBe(422);
  }
  const noCsrf = await browser(
    `${service.origin}/dashboard/cli-login?callback=${encodeURIComponent('http://127.0.0.1:9/callback')}&state=${'b'.repeat(32)}`,
    'allow',
    false,
  );
  expect(noCsrf.status).toBe(403);
});
