/**
 * Every route checks roles: the minimum role of every state-changing API route is
 * declared in src/services/access/route-roles.ts. Walks every such route of the route table as an
 * editor's session and expects a 403 naming the role held and the role needed exactly where the
 * table says reviewer or admin, and no 403 where it says editor. A route added without a declared
 * role fails here (and the app refuses to start). API keys keep acting as admin.
 */
import request from 'supertest';
import { buildRegistry, createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { newId } from '../../src/lib/ids';
import { createPerson } from '../../src/services/access/people';
import { API_ROUTE_ROLES, apiRouteRole, DASHBOARD_ROUTE_ROLES, dashboardRouteRole } from '../../src/services/access/route-roles';
import { ROLES } from '../../src/services/access/roles';
import { acceptingJobs } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

const deps = { config: loadConfig(), knex: testKnex(), jobRunner: acceptingJobs };
const app = createApp(deps).callback();
const PASSWORD = 'correct horse battery';

let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;

beforeAll(async () => {
  org = await createTestOrg('route roles org');
  catalogId = await createTestCatalog(org.organizationId, { schema_definition: { type: 'object', properties: { sku: { type: 'string' } } } });
});
afterAll(closeTestKnex);

/** Signs a new person of `role` in by email + password; returns the session cookie and its CSRF token. */
async function personSession(role: 'viewer' | 'editor' | 'reviewer' | 'admin'): Promise<{ cookie: string; csrf: string }> {
  const email = `${role}.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.org`;
  await createPerson(testKnex(), org.organizationId, { email, name: `Route ${role}`, role, password: PASSWORD });
  const res = await request(app).post('/dashboard/login/password').type('form').send({ email, password: PASSWORD, next: '/dashboard' });
  expect(res.status).toBe(303);
  const cookie = ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('catalog_dashboard_session='))!
    .split(';')[0];
  const page = await request(app).get('/dashboard').set('Cookie', cookie);
  return { cookie, csrf: /<meta name="csrf-token" content="([^"]+)"/.exec(page.text)![1] };
}

/** A route's path with its parameters filled: unknown ids (nothing of this organization is touched), the catalog id for `:catalog_id`. */
function concretePath(path: string): string {
  return `/api${path.replace(/:(\w+)/g, (_, name: string) => (name === 'catalog_id' ? catalogId : newId()))}`;
}

const stateChanging = buildRegistry(deps).routes.filter((r) => r.method !== 'get' && !r.public);

test('the table names every state-changing route, each with a known role', () => {
  const declared = stateChanging.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
  // Every route has an entry, and the table names no route that does not exist.
  expect(Object.keys(API_ROUTE_ROLES).sort()).toEqual(declared);
  for (const role of Object.values(API_ROUTE_ROLES)) expect(ROLES).toContain(role);
  // A route without a declared role cannot be mounted; reading needs a viewer.
  expect(() => apiRouteRole('post', '/public/new-route-without-a-role')).toThrow(/declares no role/);
  expect(apiRouteRole('get', '/public/anything')).toBe('viewer');
  expect(() => dashboardRouteRole('POST', '/catalogs/:catalog_id/new-form')).toThrow(/declares no role/);
  for (const role of Object.values(DASHBOARD_ROUTE_ROLES)) expect([...ROLES, 'public']).toContain(role);
});

test('an editor session: 403 naming both roles on every reviewer or admin route, no 403 on every editor route', async () => {
  const editor = await personSession('editor');
  const outcomes: string[] = [];
  for (const route of stateChanging) {
    const needed = apiRouteRole(route.method, route.path);
    const res = await request(app)[route.method](concretePath(route.path)).set('Cookie', editor.cookie).set('X-CSRF-Token', editor.csrf).send({});
    const refused = res.status === 403;
    outcomes.push(`${route.method.toUpperCase()} ${route.path} needs ${needed}: ${res.status}`);
    if (needed === 'editor') {
      expect({ route: route.path, method: route.method, refused, detail: res.body.detail }).toEqual({
        route: route.path,
        method: route.method,
        refused: false,
        detail: res.body.detail,
      });
      expect(res.status).toBeLessThan(500);
    } else {
      expect({ route: route.path, method: route.method, status: res.status }).toEqual({ route: route.path, method: route.method, status: 403 });
      expect(res.body.detail).toBe(
        `Your role is editor: only ${needed === 'admin' ? 'an' : 'a'} ${needed} or above may ${
          needed === 'admin' ? 'manage API keys, people and settings, and delete catalogs' : 'approve, reject, apply, restore and write the catalog directly'
        }`,
      );
    }
  }
  // Both kinds were walked.
  expect(outcomes.filter((o) => o.includes('needs editor')).length).toBeGreaterThan(10);
  expect(outcomes.filter((o) => o.includes('needs reviewer')).length).toBeGreaterThan(20);
  expect(outcomes.filter((o) => o.includes('needs admin')).length).toBeGreaterThanOrEqual(6);
});

test('an editor cannot write items or the schema directly (API and dashboard form); a reviewer can; only an admin makes keys', async () => {
  const editor = await personSession('editor');
  const reviewer = await personSession('reviewer');
  const item = { unique_identifier: 'sku', data: { sku: 'RR-1' } };
  const asEditor = await request(app).post(`/api/public/catalogs/${catalogId}/items`).set('Cookie', editor.cookie).set('X-CSRF-Token', editor.csrf).send(item);
  expect(asEditor.status).toBe(403);
  expect(await testKnex()('catalog_items').where({ catalog_id: catalogId }).count({ n: '*' })).toEqual([{ n: '0' }]);
  const field = { field_name: 'colour', field_type: 'string' };
  const schemaByEditor = await request(app)
    .post(`/api/public/catalogs/${catalogId}/schema/fields`)
    .set('Cookie', editor.cookie)
    .set('X-CSRF-Token', editor.csrf)
    .send(field);
  expect(schemaByEditor.status).toBe(403);
  const asReviewer = await request(app)
    .post(`/api/public/catalogs/${catalogId}/items`)
    .set('Cookie', reviewer.cookie)
    .set('X-CSRF-Token', reviewer.csrf)
    .send(item);
  expect(asReviewer.status).toBe(200);
  // The dashboard's schema form is a direct write too.
  const form = await request(app)
    .post(`/dashboard/catalogs/${catalogId}/schema/fields`)
    .set('Cookie', editor.cookie)
    .type('form')
    .send({ csrf_token: editor.csrf, add_name: 'colour', add_type: 'string' });
  expect(form.status).toBe(403);
  expect(form.text).toContain('Your role is editor: only a reviewer or above may approve, reject, apply, restore and write the catalog directly');
  // A reviewer cannot manage keys; an admin can.
  const keyByReviewer = await request(app).post('/api/public/api-keys').set('Cookie', reviewer.cookie).set('X-CSRF-Token', reviewer.csrf).send({ name: 'r' });
  expect(keyByReviewer.status).toBe(403);
  const admin = await personSession('admin');
  const keyByAdmin = await request(app).post('/api/public/api-keys').set('Cookie', admin.cookie).set('X-CSRF-Token', admin.csrf).send({ name: 'a' });
  expect(keyByAdmin.status).toBe(200);
});

test('API keys keep acting as admin on every role-checked route', async () => {
  const snap = await request(app).post(`/api/public/catalogs/${catalogId}/snapshots`).set(org.auth).send({ reason: 'by key' });
  expect(snap.status).toBe(200);
  const key = await request(app).post('/api/public/api-keys').set(org.auth).send({ name: 'program' });
  expect(key.status).toBe(200);
  expect(key.body.person_id).toBeNull();
});

test('the OpenAPI document states the minimum role of role-checked operations', async () => {
  const doc = (await request(app).get('/api/openapi.json')).body as { paths: Record<string, Record<string, { description?: string }>> };
  expect(doc.paths['/api/public/catalogs/{catalog_id}/items'].post.description).toMatch(/Needs role reviewer or above/);
  expect(doc.paths['/api/public/enrich'].post.description).toMatch(/Needs role editor or above/);
  expect(doc.paths['/api/public/api-keys'].post.description).toMatch(/Needs role admin or above/);
  expect(doc.paths['/api/public/catalogs'].get.description).toBeUndefined();
});
