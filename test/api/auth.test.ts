import request from 'supertest';
import { SignJWT } from 'jose';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { testApp } from '../helpers/app';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { noJobs } from '../helpers/app';

describe('bearer authentication (docs/api-reference.md "Authentication")', () => {
  afterAll(closeTestKnex);

  it('refuses a request without a token with 401 and a JSON detail', async () => {
    const res = await request(testApp().callback()).get('/api/public/enrich/jobs');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
  });

  it('refuses an unknown API key with 401', async () => {
    const res = await request(testApp().callback()).get('/api/public/enrich/jobs').set('Authorization', 'Bearer ck_doesnotexist');
    expect(res.status).toBe(401);
  });

  it('accepts a valid API key and stores only its SHA-256', async () => {
    const org = await createTestOrg();
    const res = await request(testApp().callback()).get('/api/public/enrich/jobs').set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jobs: [], total: 0, limit: 20, offset: 0 });
    const stored = await testKnex()('api_keys').where({ organization_id: org.organizationId }).first();
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(org.apiKey);
    expect(org.apiKey).toMatch(/^ck_[0-9A-Za-z]{40,}$/);
  });

  it('honours X-Organization-Id only for an organization of the principal (403 otherwise)', async () => {
    const a = await createTestOrg('a');
    const b = await createTestOrg('b');
    const app = testApp().callback();
    expect((await request(app).get('/api/public/enrich/jobs').set(a.auth).set('X-Organization-Id', a.organizationId)).status).toBe(200);
    const res = await request(app).get('/api/public/enrich/jobs').set(a.auth).set('X-Organization-Id', b.organizationId);
    expect(res.status).toBe(403);
    expect(typeof res.body.detail).toBe('string');
  });

  it('accepts an HS256 user token naming its organizations, and rejects a forged one', async () => {
    const a = await createTestOrg('user org a');
    const b = await createTestOrg('user org b');
    const secret = 'test-secret-for-user-tokens';
    const app = createApp({ config: { ...loadConfig(), jwtSecret: secret }, knex: testKnex(), jobRunner: noJobs }).callback();
    const token = await new SignJWT({ org_ids: [a.organizationId, b.organizationId] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user-1')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(secret));
    expect((await request(app).get('/api/public/enrich/jobs').set('Authorization', `Bearer ${token}`).set('X-Organization-Id', b.organizationId)).status).toBe(
      200,
    );
    const forged = await new SignJWT({ org_ids: [a.organizationId] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user-1')
      .sign(new TextEncoder().encode('wrong'));
    expect((await request(app).get('/api/public/enrich/jobs').set('Authorization', `Bearer ${forged}`)).status).toBe(401);
  });

  it('serves /healthz without auth and /readyz reports an unreachable Temporal as 503', async () => {
    const app = testApp().callback();
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.postgres).toBe('ok');
    expect(ready.body.checks.temporal).toMatch(/^error/);
  });

  it('answers unknown paths with 404 JSON', async () => {
    const res = await request(testApp().callback()).get('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found' });
  });
});
