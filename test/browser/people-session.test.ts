/**
 * People, not keys over HTTP: email + password sign-in (scrypt hash), a wrong
 * password throttled (429), the `ops` CLI's password reset, role checks on the dashboard's API
 * calls (a viewer gets 403 approving; a reviewer's approve and apply record who), the
 * organization page's people section (admins only), and API keys keep working as admin.
 */
import request from 'supertest';
import { runOps } from '../../src/cli/ops';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createPerson } from '../../src/services/access/people';
import { verifyPassword } from '../../src/services/access/passwords';
import { acceptingJobs } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { createReviewFixture, type ReviewFixture } from './fixture';

const app = createApp({ config: loadConfig(), knex: testKnex(), jobRunner: acceptingJobs }).callback();

let org: Awaited<ReturnType<typeof createTestOrg>>;
let fx: ReviewFixture;
const PASSWORD = 'correct horse battery';
/** A unique email per run (people are unique per organization, and the throttle is per email). */
const email = (who: string) => `${who}.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.org`;

beforeAll(async () => {
  org = await createTestOrg('people org');
  fx = await createReviewFixture(org.organizationId);
});

afterAll(closeTestKnex);

const pagePath = () => `/dashboard/catalogs/${fx.catalogId}/activities/${fx.activityId}`;

/** Signs in by email + password; returns the cookie pair and the page's CSRF token. */
async function signIn(address: string, password = PASSWORD): Promise<{ cookie: string; csrf: string }> {
  const res = await request(app).post('/dashboard/login/password').type('form').send({ email: address, password, next: pagePath() });
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe(pagePath());
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('catalog_dashboard_session='));
  expect(cookie).toMatch(/httponly/i);
  const pair = cookie!.split(';')[0];
  const page = await request(app).get(pagePath()).set('Cookie', pair);
  expect(page.status).toBe(200);
  return { cookie: pair, csrf: /<meta name="csrf-token" content="([^"]+)"/.exec(page.text)![1] };
}

test('passwords are stored as salted scrypt hashes, never in clear', async () => {
  const address = email('hash');
  const p = await createPerson(testKnex(), org.organizationId, { email: address, role: 'viewer', password: PASSWORD });
  const row = await testKnex()('people').where({ id: p.id }).first();
  expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  expect(row.password_hash).not.toContain(PASSWORD);
  expect(await verifyPassword(PASSWORD, row.password_hash)).toBe(true);
  expect(await verifyPassword('correct horse battery!', row.password_hash)).toBe(false);
  // Same password, another person: another salt, another hash.
  const q = await createPerson(testKnex(), org.organizationId, { email: email('hash2'), role: 'viewer', password: PASSWORD });
  expect((await testKnex()('people').where({ id: q.id }).first()).password_hash).not.toBe(row.password_hash);
});

test('email + password sign-in: the person, their role in the top bar; a wrong password is refused', async () => {
  const address = email('ada');
  await createPerson(testKnex(), org.organizationId, { email: address, name: 'Ada Lovelace', role: 'reviewer', password: PASSWORD });
  const wrong = await request(app).post('/dashboard/login/password').type('form').send({ email: address, password: 'not the password' });
  expect(wrong.status).toBe(401);
  expect(wrong.text).toContain('Wrong email or password.');
  expect(wrong.headers['set-cookie']).toBeUndefined();
  const unknown = await request(app)
    .post('/dashboard/login/password')
    .type('form')
    .send({ email: email('nobody'), password: PASSWORD });
  expect(unknown.status).toBe(401);
  const { cookie } = await signIn(address.toUpperCase());
  const page = await request(app).get('/dashboard').set('Cookie', cookie);
  expect(page.text).toContain('<span class="who">Ada Lovelace (reviewer)</span>');
});

test('a wrong password is rate-limited per email: 429 after the limit, even with the right password', async () => {
  const limited = createApp({
    config: { ...loadConfig(), limits: { ...loadConfig().limits, authFailuresPerMinute: 2 } },
    knex: testKnex(),
    jobRunner: acceptingJobs,
  }).callback();
  const address = email('guessed');
  await createPerson(testKnex(), org.organizationId, { email: address, role: 'admin', password: PASSWORD });
  // Each guess from another client address: the per-email budget still runs out.
  const attempt = (password: string, n: number) =>
    request(limited).post('/dashboard/login/password').set('X-Forwarded-For', `198.51.100.${n}`).type('form').send({ email: address, password });
  expect((await attempt('guess one', 1)).status).toBe(401);
  expect((await attempt('guess two', 2)).status).toBe(401);
  const refused = await attempt(PASSWORD, 3);
  expect(refused.status).toBe(429);
  expect(refused.text).toContain('Too many failed sign-ins');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(refused.headers['set-cookie']).toBeUndefined();
});

test('the ops CLI resets a password: the old one stops working, the printed one works, open sessions end', async () => {
  const address = email('forgetful');
  await createPerson(testKnex(), org.organizationId, { email: address, role: 'editor', password: PASSWORD });
  const before = await signIn(address);
  const lines: string[] = [];
  expect(await runOps(['person', 'reset-password', org.organizationId, address], (l) => lines.push(l))).toBe(0);
  const out = JSON.parse(lines[0]) as { email: string; password: string };
  expect(out.email).toBe(address);
  expect(out.password).toMatch(/^[\w-]{20}$/);
  expect((await request(app).get('/dashboard').set('Cookie', before.cookie)).status).toBe(302);
  expect((await request(app).post('/dashboard/login/password').type('form').send({ email: address, password: PASSWORD })).status).toBe(401);
  await signIn(address, out.password);
  // Usage errors and unknown people are clear.
  expect(await runOps(['person', 'reset-password'], () => undefined)).toBe(2);
  await expect(runOps(['person', 'reset-password', org.organizationId, email('ghost')], () => undefined)).rejects.toThrow(/No person/);
  // `person create` makes a person who can sign in.
  const made = email('made');
  lines.length = 0;
  expect(await runOps(['person', 'create', org.organizationId, made, '--role', 'viewer', '--password', PASSWORD], (l) => lines.push(l))).toBe(0);
  expect(JSON.parse(lines[0])).toMatchObject({ email: made, role: 'viewer', has_password: true });
  await signIn(made);
});

test("role checks on the dashboard's API calls: a viewer gets 403 approving; a reviewer's approve and apply record who", async () => {
  const viewer = email('viewer');
  const reviewer = email('reviewer');
  await createPerson(testKnex(), org.organizationId, { email: viewer, role: 'viewer', password: PASSWORD });
  await createPerson(testKnex(), org.organizationId, { email: reviewer, name: 'Grace Hopper', role: 'reviewer', password: PASSWORD });
  const approve = { action: 'approve', change_ids: [fx.changes['KB-100']] };
  const bulk = `/api/public/activities/${fx.activityId}/staged-changes/bulk-review`;

  const v = await signIn(viewer);
  const refused = await request(app).post(bulk).set('Cookie', v.cookie).set('X-CSRF-Token', v.csrf).send(approve);
  expect(refused.status).toBe(403);
  expect(refused.body.detail).toMatch(/Your role is viewer/);
  expect((await testKnex()('staged_changes').where({ id: fx.changes['KB-100'] }).first()).status).toBe('pending');
  // A viewer still reads.
  expect((await request(app).get(`/api/public/activities/${fx.activityId}`).set('Cookie', v.cookie)).status).toBe(200);
  // An editor stages but does not approve or apply.
  const editorEmail = email('editor');
  await createPerson(testKnex(), org.organizationId, { email: editorEmail, role: 'editor', password: PASSWORD });
  const e = await signIn(editorEmail);
  const editorRefused = await request(app).post(bulk).set('Cookie', e.cookie).set('X-CSRF-Token', e.csrf).send(approve);
  expect(editorRefused.status).toBe(403);
  expect(editorRefused.body.detail).toMatch(/only a reviewer or above may approve/);
  const applyRefused = await request(app).post(`/api/public/activities/${fx.activityId}/apply`).set('Cookie', e.cookie).set('X-CSRF-Token', e.csrf).send({});
  expect(applyRefused.status).toBe(403);

  const r = await signIn(reviewer);
  const ok = await request(app).post(bulk).set('Cookie', r.cookie).set('X-CSRF-Token', r.csrf).send(approve);
  expect(ok.status).toBe(200);
  const person = await testKnex()('people').where({ organization_id: org.organizationId, email: reviewer }).first();
  expect((await testKnex()('staged_changes').where({ id: fx.changes['KB-100'] }).first()).decided_by).toBe(`person:${person.id}`);
  const applied = await request(app).post(`/api/public/activities/${fx.activityId}/apply`).set('Cookie', r.cookie).set('X-CSRF-Token', r.csrf).send({});
  expect(applied.status).toBe(202);
  expect((await testKnex()('review_activities').where({ id: fx.activityId }).first()).applied_by).toBe(`person:${person.id}`);
  const page = await request(app).get(pagePath()).set('Cookie', r.cookie);
  expect(page.text).toContain(`decided by Grace Hopper &lt;${reviewer}&gt;`);
  expect(page.text).toContain(`Apply requested by Grace Hopper &lt;${reviewer}&gt;`);
  // The item's history names who approved its applied change (the apply itself runs in Temporal: marked applied here).
  await testKnex()('staged_changes').where({ id: fx.changes['KB-100'] }).update({ applied_at: new Date() });
  const itemPage = await request(app).get(`/dashboard/catalogs/${fx.catalogId}/items/${fx.items['KB-100']}`).set('Cookie', r.cookie);
  expect(itemPage.status).toBe(200);
  expect(itemPage.text).toContain(`approved by Grace Hopper &lt;${reviewer}&gt;`);

  // API keys stay for programs: a key acts as admin and is recorded by its prefix.
  const byKey = await request(app)
    .post(bulk)
    .set(org.auth)
    .send({ action: 'reject', change_ids: [fx.changes['MS-200']] });
  expect(byKey.status).toBe(200);
  const keyPage = await request(app).get(pagePath()).set('Cookie', r.cookie);
  expect(keyPage.text).toContain(`decided by API key ${org.apiKey.slice(0, 10)}…`);
});

test('the organization page and its people forms are for admins; an admin adds a person and sets roles', async () => {
  const viewer = email('orgviewer');
  const admin = email('admin');
  await createPerson(testKnex(), org.organizationId, { email: viewer, role: 'viewer', password: PASSWORD });
  await createPerson(testKnex(), org.organizationId, { email: admin, role: 'admin', password: PASSWORD });
  const v = await signIn(viewer);
  const page = await request(app).get('/dashboard/organization').set('Cookie', v.cookie);
  expect(page.status).toBe(403);
  expect(page.text).toContain('Your role is viewer');
  const keys = await request(app).post('/api/public/api-keys').set('Cookie', v.cookie).set('X-CSRF-Token', v.csrf).send({ name: 'sneaky' });
  expect(keys.status).toBe(403);
  // The dashboard's own forms change nothing for a viewer either.
  const snapshotsBefore = await testKnex()('catalog_snapshots').where({ catalog_id: fx.catalogId }).count({ n: '*' });
  const form = await request(app)
    .post(`/dashboard/catalogs/${fx.catalogId}/snapshots`)
    .set('Cookie', v.cookie)
    .type('form')
    .send({ csrf_token: v.csrf, reason: 'viewer snapshot' });
  expect(form.status).toBe(403);
  expect(form.text).toContain('Your role is viewer: a viewer can only read');
  expect(await testKnex()('catalog_snapshots').where({ catalog_id: fx.catalogId }).count({ n: '*' })).toEqual(snapshotsBefore);
  // The tool server's login hands a non-admin person a key of their own, acting with their role
  //, never an organization key that would act as admin (test/mcp/login.test.ts).
  const editorEmail = email('cli-editor');
  const editor = await createPerson(testKnex(), org.organizationId, { email: editorEmail, role: 'editor', password: PASSWORD });
  const ed = await signIn(editorEmail);
  const cli = await request(app)
    .post('/dashboard/cli-login')
    .set('Cookie', ed.cookie)
    .type('form')
    .send({ csrf_token: ed.csrf, callback: 'http://127.0.0.1:45678/callback', state: 'abcdefghijklmnop', decision: 'allow' });
  expect(cli.status).toBe(303);
  const token = new URL(cli.headers.location).searchParams.get('token')!;
  expect(token).toMatch(/^ck_/);
  const created = await testKnex()('api_keys')
    .where({ key_prefix: token.slice(0, 10) })
    .first();
  expect(created.person_id).toBe(editor.id);
  const keysByEditor = await request(app).post('/api/public/api-keys').set('Authorization', `Bearer ${token}`).send({ name: 'sneaky' });
  expect(keysByEditor.status).toBe(403);
  expect(keysByEditor.body.detail).toContain('Your role is editor: only an admin or above may manage API keys');

  const a = await signIn(admin);
  const added = email('newcomer');
  const add = await request(app)
    .post('/dashboard/organization/people')
    .set('Cookie', a.cookie)
    .type('form')
    .send({ csrf_token: a.csrf, email: added, name: 'New <b>comer</b>', role: 'editor', password: PASSWORD });
  expect(add.status).toBe(303);
  const people = await request(app).get('/dashboard/organization').set('Cookie', a.cookie);
  expect(people.status).toBe(200);
  expect(people.text).toContain('New &lt;b&gt;comer&lt;/b&gt;');
  const dup = await request(app)
    .post('/dashboard/organization/people')
    .set('Cookie', a.cookie)
    .type('form')
    .send({ csrf_token: a.csrf, email: added, role: 'editor' });
  expect(dup.status).toBe(409);
  expect(dup.text).toContain('already a person of this organization');
  const bad = await request(app)
    .post('/dashboard/organization/people')
    .set('Cookie', a.cookie)
    .type('form')
    .send({ csrf_token: a.csrf, email: 'not-an-email', role: 'boss' });
  expect(bad.status).toBe(422);
  const id = (await testKnex()('people').where({ organization_id: org.organizationId, email: added }).first()).id;
  const promote = await request(app)
    .post(`/dashboard/organization/people/${id}`)
    .set('Cookie', a.cookie)
    .type('form')
    .send({ csrf_token: a.csrf, role: 'reviewer' });
  expect(promote.status).toBe(303);
  expect((await testKnex()('people').where({ id }).first()).role).toBe('reviewer');
  // Without the CSRF token nothing changes.
  const forged = await request(app).post(`/dashboard/organization/people/${id}`).set('Cookie', a.cookie).type('form').send({ role: 'admin' });
  expect(forged.status).toBe(403);
  // Disabled people are signed out at once and cannot sign in.
  const n = await signIn(added);
  await request(app)
    .post(`/dashboard/organization/people/${id}`)
    .set('Cookie', a.cookie)
    .type('form')
    .send({ csrf_token: a.csrf, role: 'reviewer', disabled: '1' });
  expect((await request(app).get('/dashboard').set('Cookie', n.cookie)).status).toBe(302);
  expect((await request(app).post('/dashboard/login/password').type('form').send({ email: added, password: PASSWORD })).status).toBe(401);
});
