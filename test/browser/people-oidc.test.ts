/**
 * People sign in as themselves in a real browser: through a local OpenID Connect
 * provider (`oidc-provider` on 127.0.0.1, test/browser/oidc-test-provider.mjs; authorization code
 * + PKCE + state + nonce), a viewer cannot approve (the page says why; the API answers 403), and
 * the review shows who approved. Screenshots: the sign-in page with the provider's button, the
 * organization page's people section.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createPerson } from '../../src/services/access/people';
import { noJobs } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { launchChromium, requireChromium, shotAndCheck, type Browser, type Page } from './chromium';
import { createReviewFixture, type ReviewFixture } from './fixture';

requireChromium();

const CLIENT_ID = 'catalog-console';
const CLIENT_SECRET = 'people-test-client-secret';

/** Starts the local provider; resolves with its process and issuer once it listens. */
async function startProvider(redirectUri: string): Promise<{ child: ChildProcess; issuer: string }> {
  const child = spawn(process.execPath, [path.join(__dirname, 'oidc-test-provider.mjs'), redirectUri, CLIENT_ID, CLIENT_SECRET], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const issuer = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the OpenID provider exited (${code})`)));
    lines.on('line', (line) => {
      if (line.startsWith('{"issuer"')) resolve((JSON.parse(line) as { issuer: string }).issuer);
    });
  });
  return { child, issuer };
}

describe('people sign in through a local OpenID provider (Chromium)', () => {
  let server: http.Server;
  let base: string;
  let provider: ChildProcess;
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: ReviewFixture;
  const run = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  const reviewerLogin = `rev${run}`;
  const viewerLogin = `view${run}`;
  const browsers: Browser[] = [];

  beforeAll(async () => {
    org = await createTestOrg('oidc people org');
    fx = await createReviewFixture(org.organizationId);
    // Created beforehand by an admin: a viewer matched by the provider's verified email.
    await createPerson(testKnex(), org.organizationId, { email: `${viewerLogin}@example.org`, name: 'Vera Viewer', role: 'viewer' });
    server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const started = await startProvider(`${base}/dashboard/login/oidc/callback`);
    provider = started.child;
    const config = loadConfig();
    const oidc = {
      issuer: started.issuer,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      providerName: 'Test ID',
      role: 'reviewer',
      organizationId: org.organizationId,
    };
    server.on('request', createApp({ config: { ...config, publicUrl: base, oidc }, knex: testKnex(), jobRunner: noJobs }).callback());
  });

  afterAll(async () => {
    for (const b of browsers) await b.close();
    provider?.kill();
    await new Promise((resolve) => server?.close(resolve));
    await closeTestKnex();
  });

  const activityUrl = () => `${base}/dashboard/catalogs/${fx.catalogId}/activities/${fx.activityId}`;
  const rowStatus = (page: Page, sku: string) => page.$eval(`tbody[data-change-id="${fx.changes[sku]}"]`, (e) => e.getAttribute('data-status'));

  /** A fresh browser (its own provider session) signed in as `login` through the provider, back on the activity page. */
  async function signInWithProvider(login: string, shot?: string): Promise<Page> {
    const browser = await launchChromium();
    browsers.push(browser);
    const page = await browser.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(activityUrl());
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    if (shot) await shotAndCheck(page, shot);
    await Promise.all([page.waitForNavigation(), page.click('#oidc-sign-in')]);
    // The provider's own sign-in page, then its consent page.
    expect(page.url().startsWith(`${new URL(page.url()).origin}/interaction/`)).toBe(true);
    expect(new URL(page.url()).origin).not.toBe(base);
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'anything');
    await Promise.all([page.waitForNavigation(), page.click('button.login-submit')]);
    await Promise.all([page.waitForURL((u) => u.origin === base), page.click('button.login-submit')]);
    expect(page.url()).toBe(activityUrl());
    return page;
  }

  test('a new person signs in through the provider (created as OIDC_ROLE), approves, and the review shows who approved', async () => {
    const page = await signInWithProvider(reviewerLogin, 'people-login.png');
    expect(await page.$eval('.topbar .who', (e) => e.textContent)).toBe(`Person ${reviewerLogin} (reviewer)`);
    expect(await page.$('.role-notice')).toBeNull();
    const person = await testKnex()('people')
      .where({ organization_id: org.organizationId, email: `${reviewerLogin}@example.org` })
      .first();
    expect(person).toMatchObject({ role: 'reviewer', oidc_subject: reviewerLogin, password_hash: null });
    const cookie = (await page.context().cookies()).find((c) => c.name === 'catalog_dashboard_session');
    expect(cookie?.httpOnly).toBe(true);

    await Promise.all([page.waitForNavigation(), page.click(`tbody[data-change-id="${fx.changes['KB-100']}"] .change-head button.approve`)]);
    expect(await rowStatus(page, 'KB-100')).toBe('approved');
    const decided = await page.$eval(`tbody[data-change-id="${fx.changes['KB-100']}"] .decided-by`, (e) => e.textContent?.trim());
    expect(decided).toBe(`decided by Person ${reviewerLogin} <${reviewerLogin}@example.org>`);
    await shotAndCheck(page, 'people-review-decided-by.png');
  });

  test('the callback refuses a sign-in it did not start (no or wrong state): 401, no session', async () => {
    const res = await fetch(`${base}/dashboard/login/oidc/callback?code=stolen&state=guessed`, { redirect: 'manual' });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('Sign-in expired or was not started here');
    expect(res.headers.get('set-cookie') ?? '').not.toContain('catalog_dashboard_session=');
    // A started sign-in (cookie set) answered with another state is refused too.
    const start = await fetch(`${base}/dashboard/login/oidc?next=/dashboard`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const pending = (start.headers.get('set-cookie') ?? '').split(';')[0];
    const auth = new URL(start.headers.get('location')!);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('nonce')).toMatch(/^[\w-]{22}$/);
    const wrong = await fetch(`${base}/dashboard/login/oidc/callback?code=x&state=not-${auth.searchParams.get('state')}`, {
      redirect: 'manual',
      headers: { cookie: pending },
    });
    expect(wrong.status).toBe(401);
  });

  test('a viewer created beforehand signs in through the provider and cannot approve: the page says why, the API answers 403', async () => {
    const page = await signInWithProvider(viewerLogin);
    expect(await page.$eval('.topbar .who', (e) => e.textContent)).toBe('Vera Viewer (viewer)');
    const linked = await testKnex()('people')
      .where({ organization_id: org.organizationId, email: `${viewerLogin}@example.org` })
      .first();
    expect(linked.oidc_subject).toBe(viewerLogin);
    expect(await page.textContent('.role-notice')).toContain('You are signed in as a viewer');
    await page.click(`tbody[data-change-id="${fx.changes['MS-200']}"] .change-head button.approve`);
    await page.waitForSelector('#review-message.fail');
    expect(await page.$eval('#review-message', (e) => e.textContent)).toContain(
      'Your role is viewer: a viewer can only read (approving, rejecting and applying need a reviewer)',
    );
    expect(await rowStatus(page, 'MS-200')).toBe('pending');
    await shotAndCheck(page, 'people-review-viewer.png');
    // The page's own kind of call (session cookie + CSRF token), for every undecided change at once.
    const csrf = (await page.getAttribute('meta[name="csrf-token"]', 'content')) ?? '';
    const answer = await page.request.post(`${base}/api/public/activities/${fx.activityId}/staged-changes/bulk-review`, {
      headers: { 'X-CSRF-Token': csrf },
      data: { action: 'approve_all' },
    });
    const status = answer.status();
    expect((await answer.json()).detail).toMatch(/^Your role is viewer/);
    expect(status).toBe(403);
    expect((await testKnex()('staged_changes').where({ id: fx.changes['MS-200'] }).first()).status).toBe('pending');
    // The organization page is for admins.
    expect(await page.$$eval('.topbar .sections a', (els) => els.map((e) => e.getAttribute('href')))).not.toContain('/dashboard/organization');
    const res = await page.goto(`${base}/dashboard/organization`);
    expect(res?.status()).toBe(403);
  });

  test('an admin sees the people section: who signs in how, with which role', async () => {
    await createPerson(testKnex(), org.organizationId, { email: `admin${run}@example.org`, name: 'Alan Admin', role: 'admin', password: 'admin password 1' });
    const browser = await launchChromium();
    browsers.push(browser);
    const page = await browser.newPage();
    await page.goto(`${base}/dashboard/login?next=${encodeURIComponent('/dashboard/organization')}`);
    await page.fill('#email', `admin${run}@example.org`);
    await page.fill('#password', 'admin password 1');
    await Promise.all([page.waitForNavigation(), page.click('#password-sign-in')]);
    expect(new URL(page.url()).pathname).toBe('/dashboard/organization');
    const rows = await page.$$eval('table.people tbody tr', (els) => els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()));
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.includes('Vera Viewer'))).toContain('identity provider');
    expect(rows.find((r) => r.includes('Alan Admin'))).toContain('password');
    expect(await page.inputValue(`select[aria-label="Role of ${viewerLogin}@example.org"]`)).toBe('viewer');
    // Promote the viewer to reviewer through the form.
    await page.selectOption(`select[aria-label="Role of ${viewerLogin}@example.org"]`, 'reviewer');
    await Promise.all([page.waitForNavigation(), page.click(`button[aria-label="Save role of ${viewerLogin}@example.org"]`)]);
    expect(
      (
        await testKnex()('people')
          .where({ organization_id: org.organizationId, email: `${viewerLogin}@example.org` })
          .first()
      ).role,
    ).toBe('reviewer');
    await page.locator('#people').scrollIntoViewIfNeeded();
    await shotAndCheck(page, 'people-organization.png');
  });
});
