/**
 * The login helper (`npm run mcp -- login`): the tool server's loopback callback
 * receives a credential after the person signs in to the dashboard and allows it; the credential is
 * stored (owner-only) and works against the API. Refusals: a callback that is not loopback, a
 * missing CSRF token, "Deny". A person signed in hands the tool server a key of
 * their own: it acts with their role (an editor's stages but cannot apply), records them as the
 * actor, is listed on the organization page and stops working once revoked.
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
import { createPerson } from '../../src/services/access/people';
import { createReviewFixture } from '../browser/fixture';
import { acceptingJobs, noJobs, testApp } from '../helpers/app';
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

/**
 * The browser: signs in at the sign-in URL (following `next`) with the org's key, another
 * credential, or a person's email and password, then submits the confirmation form.
 */
async function browser(
  signInUrl: string,
  decision: 'allow' | 'deny',
  withCsrf = true,
  credential: string | { email: string; password: string } = org.apiKey,
): Promise<{ status: number; location: string | null }> {
  const u = new URL(signInUrl);
  const first = await fetch(signInUrl, { redirect: 'manual' });
  expect(first.status).toBe(302);
  const next = new URL(first.headers.get('location')!, u.origin).searchParams.get('next')!;
  const signIn = await fetch(`${u.origin}/dashboard/login${typeof credential === 'string' ? '' : '/password'}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(typeof credential === 'string' ? { credential, next } : { ...credential, next }).toString(),
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

test("a person's tool-server key acts as the person: an editor's stages but cannot apply; a reviewer's decisions and apply record the person; revocable", async () => {
  const jobs = await listen(testApp(acceptingJobs));
  try {
    const password = 'correct horse battery';
    const stamp = `${Date.now()}.${Math.floor(Math.random() * 1e6)}`;
    const editor = await createPerson(testKnex(), org.organizationId, {
      email: `tool.editor.${stamp}@example.org`,
      name: 'Tool Editor',
      role: 'editor',
      password,
    });
    const reviewer = await createPerson(testKnex(), org.organizationId, {
      email: `tool.reviewer.${stamp}@example.org`,
      name: 'Tool Reviewer',
      role: 'reviewer',
      password,
    });
    /** Runs the login as `email`; returns the stored token. */
    const loginAs = async (email: string, file: string) => {
      const config = { ...loadMcpConfig({ CATALOG_BASE_URL: jobs.baseUrl }, dir), credentialsFile: path.join(dir, file) };
      let followed: Promise<unknown> = Promise.resolve();
      await login(config, { open: false, log: () => undefined, onUrl: (url) => (followed = browser(url, 'allow', true, { email, password })) });
      await followed;
      return readCredentials(config.credentialsFile)!.token;
    };
    const editorToken = await loginAs(editor.email, 'editor.json');
    expect(editorToken).toMatch(/^ck_/);
    const editorKey = await testKnex()('api_keys')
      .where({ key_prefix: editorToken.slice(0, 10) })
      .first();
    expect(editorKey).toMatchObject({ organization_id: org.organizationId, person_id: editor.id, revoked_at: null });
    expect(editorKey.name).toMatch(/^MCP tool server \(127\.0\.0\.1:\d+, \d{4}-\d{2}-\d{2}\)$/);
    const asEditor = { Authorization: `Bearer ${editorToken}`, 'Content-Type': 'application/json' };

    const fx = await createReviewFixture(org.organizationId);
    // Staging works.
    const staged = await fetch(`${jobs.baseUrl}/public/catalogs/${fx.catalogId}/activities`, {
      method: 'POST',
      headers: asEditor,
      body: JSON.stringify({ type: 'custom_transform', description: 'staged by the tool server' }),
    });
    expect(staged.status).toBe(200);
    // Approving and applying are a reviewer's: 403 naming both roles, nothing changes.
    const apply = await fetch(`${jobs.baseUrl}/public/activities/${fx.activityId}/apply`, { method: 'POST', headers: asEditor, body: '{}' });
    expect(apply.status).toBe(403);
    expect(((await apply.json()) as { detail: string }).detail).toBe(
      'Your role is editor: only a reviewer or above may approve, reject, apply, restore and write the catalog directly',
    );
    const approveBody = JSON.stringify({ action: 'approve', change_ids: [fx.changes['KB-100']] });
    const bulk = `${jobs.baseUrl}/public/activities/${fx.activityId}/staged-changes/bulk-review`;
    expect((await fetch(bulk, { method: 'POST', headers: asEditor, body: approveBody })).status).toBe(403);
    expect((await testKnex()('staged_changes').where({ id: fx.changes['KB-100'] }).first()).status).toBe('pending');
    expect((await testKnex()('review_activities').where({ id: fx.activityId }).first()).applied_by).toBeNull();
    // Nor does the key manage keys, though a key of the organization would (it acts as admin).
    expect((await fetch(`${jobs.baseUrl}/public/api-keys`, { method: 'POST', headers: asEditor, body: JSON.stringify({ name: 'escalate' }) })).status).toBe(
      403,
    );

    // A reviewer's tool server approves and applies, recorded as the person.
    const reviewerToken = await loginAs(reviewer.email, 'reviewer.json');
    const asReviewer = { Authorization: `Bearer ${reviewerToken}`, 'Content-Type': 'application/json' };
    expect((await fetch(bulk, { method: 'POST', headers: asReviewer, body: approveBody })).status).toBe(200);
    expect((await testKnex()('staged_changes').where({ id: fx.changes['KB-100'] }).first()).decided_by).toBe(`person:${reviewer.id}`);
    const applied = await fetch(`${jobs.baseUrl}/public/activities/${fx.activityId}/apply`, { method: 'POST', headers: asReviewer, body: '{}' });
    expect(applied.status).toBe(202);
    expect((await testKnex()('review_activities').where({ id: fx.activityId }).first()).applied_by).toBe(`person:${reviewer.id}`);

    // Listed with its person (API and organization page); revoking it refuses the next request.
    const keys = (await (await fetch(`${jobs.baseUrl}/public/api-keys`, { headers: org.auth })).json()) as {
      api_keys: Array<{ id: string; person_id: string | null }>;
    };
    expect(keys.api_keys.find((k) => k.id === editorKey.id)?.person_id).toBe(editor.id);
    const signIn = await fetch(`${jobs.origin}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ credential: org.apiKey }).toString(),
    });
    const page = await fetch(`${jobs.origin}/dashboard/organization`, { headers: { Cookie: signIn.headers.getSetCookie()[0].split(';')[0] } });
    const row = new RegExp(`<tr data-key-id="${editorKey.id}">[\\s\\S]*?</tr>`).exec(await page.text())?.[0] ?? '';
    expect(row).toContain('Tool Editor (editor)');
    // The person lists and revokes their own keys on their page; another person cannot revoke them.
    const personSession = async (email: string) => {
      const res = await fetch(`${jobs.origin}/dashboard/login/password`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email, password, next: '/dashboard/tool-server-keys' }).toString(),
      });
      const cookie = res.headers.getSetCookie()[0].split(';')[0];
      const own = await fetch(`${jobs.origin}/dashboard/tool-server-keys`, { headers: { Cookie: cookie } });
      const text = await own.text();
      return { cookie, text, csrf: /<meta name="csrf-token" content="([^"]+)"/.exec(text)![1] };
    };
    const revoke = (s: { cookie: string; csrf: string }) =>
      fetch(`${jobs.origin}/dashboard/tool-server-keys/${editorKey.id}/revoke`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Cookie: s.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token: s.csrf }).toString(),
      });
    const editorPage = await personSession(editor.email);
    expect(editorPage.text).toContain(`<tr data-key-id="${editorKey.id}">`);
    const reviewerPage = await personSession(reviewer.email);
    expect(reviewerPage.text).not.toContain(editorKey.id);
    expect((await revoke(reviewerPage)).status).toBe(404);
    expect((await fetch(`${jobs.baseUrl}/public/catalogs`, { headers: asEditor })).status).toBe(200);
    expect((await revoke(editorPage)).status).toBe(303);
    expect((await testKnex()('api_keys').where({ id: editorKey.id }).first()).revoked_at).not.toBeNull();
    expect((await fetch(`${jobs.baseUrl}/public/catalogs`, { headers: asEditor })).status).toBe(401);
    // Pasted into the dashboard's key sign-in, a person's key opens a session of the person, with their role (never admin).
    const pasted = await fetch(`${jobs.origin}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ credential: reviewerToken }).toString(),
    });
    const pastedCookie = pasted.headers.getSetCookie()[0].split(';')[0];
    const orgPage = await fetch(`${jobs.origin}/dashboard/organization`, { headers: { Cookie: pastedCookie } });
    expect(orgPage.status).toBe(403);
    expect(await orgPage.text()).toContain('Your role is reviewer');
    // A disabled person's key stops working too.
    expect((await fetch(`${jobs.baseUrl}/public/catalogs`, { headers: asReviewer })).status).toBe(200);
    await testKnex()('people').where({ id: reviewer.id }).update({ disabled: true });
    expect((await fetch(`${jobs.baseUrl}/public/catalogs`, { headers: asReviewer })).status).toBe(401);
  } finally {
    await jobs.close();
  }
});
