/**
 * Review dashboard sessions over HTTP: sign-in sets an httpOnly SameSite cookie
 * scoped to one organization; sign-out, key revocation and expiry end it; cookie-authenticated
 * writes need the CSRF token while Bearer calls are unaffected; `next` never leaves the dashboard.
 */
import { SignJWT } from 'jose';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { noJobs } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createReviewFixture, type ReviewFixture } from './fixture';

const JWT_SECRET = 'dashboard-session-test-secret';
const app = createApp({ config: { ...loadConfig(), jwtSecret: JWT_SECRET }, knex: testKnex(), jobRunner: noJobs }).callback();

let org: Awaited<ReturnType<typeof createTestOrg>>;
let fx: ReviewFixture;

beforeAll(async () => {
  org = await createTestOrg('session org');
  fx = await createReviewFixture(org.organizationId);
});

afterAll(closeTestKnex);

const pagePath = () => `/dashboard/catalogs/${fx.catalogId}/activities/${fx.activityId}`;

/** Signs in with `credential` and returns the session cookie (`name=value`) and the page's CSRF token. */
async function signIn(credential: string, extra: Record<string, string> = {}): Promise<{ cookie: string; csrf: string }> {
  const res = await request(app)
    .post('/dashboard/login')
    .type('form')
    .send({ credential, next: pagePath(), ...extra });
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe(pagePath());
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = setCookie.find((c) => c.startsWith('catalog_dashboard_session='));
  expect(cookie).toMatch(/; path=\/;.*samesite=lax; httponly/i);
  const pair = cookie!.split(';')[0];
  const page = await request(app).get(pagePath()).set('Cookie', pair);
  expect(page.status).toBe(200);
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(page.text)?.[1];
  expect(csrf).toBeTruthy();
  return { cookie: pair, csrf: csrf! };
}

test('pages without a session redirect to sign-in, keeping where to go back to', async () => {
  const res = await request(app).get(pagePath());
  expect(res.status).toBe(302);
  expect(res.headers.location).toBe(`/dashboard/login?next=${encodeURIComponent(pagePath())}`);
});

test('`next` never leaves the dashboard (no open redirect)', async () => {
  for (const next of ['https://evil.example/x', '//evil.example/x', '/api/public/catalogs', '/dashboard\\@evil.example']) {
    const res = await request(app).post('/dashboard/login').type('form').send({ credential: org.apiKey, next });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/dashboard');
  }
});

test('a wrong key is a 401 sign-in page and sets no cookie', async () => {
  const res = await request(app).post('/dashboard/login').type('form').send({ credential: 'ck_wrong' });
  expect(res.status).toBe(401);
  expect(res.headers['set-cookie']).toBeUndefined();
  expect(res.text).toContain('not valid');
});

test('the session reads the API; writes need the CSRF token; Bearer calls need none', async () => {
  const { cookie, csrf } = await signIn(org.apiKey);
  expect((await request(app).get(`/api/activities/${fx.activityId}`).set('Cookie', cookie)).status).toBe(200);
  const home = await request(app).get('/dashboard').set('Cookie', cookie);
  expect(home.status).toBe(200);
  expect(home.text).toContain(`href="/dashboard/catalogs/${fx.catalogId}"`);
  expect((await request(app).post('/api/public/catalogs').set('Cookie', cookie).send({})).status).toBe(403);
  expect((await request(app).post('/api/public/catalogs').set('Cookie', cookie).set('X-CSRF-Token', csrf).send({})).status).toBe(422);
  expect((await request(app).post('/api/public/catalogs').set(org.auth).send({})).status).toBe(422);
});

test('sign-out needs the CSRF token, then ends the session', async () => {
  const { cookie, csrf } = await signIn(org.apiKey);
  const refused = await request(app).post('/dashboard/logout').set('Cookie', cookie).type('form').send({});
  expect(refused.status).toBe(403);
  expect((await request(app).get(pagePath()).set('Cookie', cookie)).status).toBe(200);
  const out = await request(app).post('/dashboard/logout').set('Cookie', cookie).type('form').send({ csrf_token: csrf });
  expect(out.status).toBe(303);
  expect((await request(app).get(pagePath()).set('Cookie', cookie)).status).toBe(302);
  expect((await request(app).get(`/api/activities/${fx.activityId}`).set('Cookie', cookie)).status).toBe(401);
});

test('revoking the key or expiry ends the session at once', async () => {
  const other = await createTestOrg('revoked org');
  const mine = await createReviewFixture(other.organizationId);
  const { cookie } = await request(app)
    .post('/dashboard/login')
    .type('form')
    .send({ credential: other.apiKey })
    .then((r) => ({ cookie: ([] as string[]).concat(r.headers['set-cookie'] ?? [])[0].split(';')[0] }));
  const url = `/dashboard/catalogs/${mine.catalogId}`;
  expect((await request(app).get(url).set('Cookie', cookie)).status).toBe(200);
  await testKnex()('api_keys').where({ organization_id: other.organizationId }).update({ revoked_at: new Date() });
  expect((await request(app).get(url).set('Cookie', cookie)).status).toBe(302);

  const { cookie: live } = await signIn(org.apiKey);
  await testKnex()('dashboard_sessions')
    .where({ organization_id: org.organizationId })
    .update({ expires_at: new Date(Date.now() - 1000) });
  expect((await request(app).get(pagePath()).set('Cookie', live)).status).toBe(302);
});

test('a user token signs in for the organization chosen; another organization is a 403 page', async () => {
  const second = await createTestOrg('second org');
  const token = await new SignJWT({ org_ids: [second.organizationId, org.organizationId] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('user-1')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  // Default organization: the token's first (second org) → this activity is another organization's.
  const first = await request(app).post('/dashboard/login').type('form').send({ credential: token });
  const firstCookie = ([] as string[]).concat(first.headers['set-cookie'] ?? [])[0].split(';')[0];
  const forbidden = await request(app).get(pagePath()).set('Cookie', firstCookie);
  expect(forbidden.status).toBe(403);
  expect(forbidden.text).toContain('another organization');
  // Choosing the organization at sign-in scopes the session to it.
  await signIn(token, { organization_id: org.organizationId });
  const refused = await request(app).post('/dashboard/login').type('form').send({ credential: token, organization_id: 'not-mine' });
  expect(refused.status).toBe(403);
});

test('an XSS probe in the URL query is escaped in the page', async () => {
  const { cookie } = await signIn(org.apiKey);
  const res = await request(app)
    .get(`${pagePath()}?q=${encodeURIComponent('"><script>alert(1)</script>')}&field=${encodeURIComponent('<b>x</b>')}`)
    .set('Cookie', cookie);
  expect(res.status).toBe(200);
  expect(res.text).not.toContain('<script>alert(1)</script>');
  expect(res.text).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(res.headers['content-security-policy']).toContain("script-src 'self'");
});

test('failed sign-ins count as failed authentications of the client address (429 after the limit)', async () => {
  const limited = createApp({
    config: { ...loadConfig(), limits: { ...loadConfig().limits, authFailuresPerMinute: 2 } },
    knex: testKnex(),
    jobRunner: noJobs,
  }).callback();
  const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
  const attempt = (credential: string) => request(limited).post('/dashboard/login').set('X-Forwarded-For', ip).type('form').send({ credential });
  expect((await attempt('ck_guess_1')).status).toBe(401);
  expect((await attempt('ck_guess_2')).status).toBe(401);
  const refused = await attempt(org.apiKey);
  expect(refused.status).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(refused.headers['set-cookie']).toBeUndefined();
});

test('the apply panel shows a running apply (no second apply) and a failed one with its error, escaped', async () => {
  const mine = await createReviewFixture(org.organizationId);
  await testKnex()('staged_changes').where({ id: mine.changes['KB-100'] }).update({ status: 'approved' });
  const { cookie } = await signIn(org.apiKey);
  const url = `/dashboard/catalogs/${mine.catalogId}/activities/${mine.activityId}`;
  const panel = async () => {
    const text = (await request(app).get(url).set('Cookie', cookie)).text;
    return text.slice(text.indexOf('id="apply-panel"'), text.indexOf('id="apply-result"'));
  };
  expect(await panel()).toMatch(/id="apply-button"\s*>/);
  await testKnex()('review_activities')
    .where({ id: mine.activityId })
    .update({ apply_progress: JSON.stringify({ phase: 'applying' }) });
  const running = await panel();
  expect(running).toMatch(/id="apply-button"\s+disabled/);
  expect(running).toContain('Applying: applying');
  await testKnex()('review_activities')
    .where({ id: mine.activityId })
    .update({ apply_progress: JSON.stringify({ phase: 'failed', error: 'lock timeout <b>' }) });
  const failed = await panel();
  expect(failed).toMatch(/id="apply-button"\s*>/);
  expect(failed).toContain('Apply failed: lock timeout &lt;b&gt;. Nothing was applied.');
});
