/**
 * A wrong method on a route answers 405 `{detail: "Method not allowed"}` with `Allow` (RFC 9110 §15.5.6), under both prefixes and for routes outside `/api`; unknown paths stay 404.
 */
import request from 'supertest';
import { testApp } from '../helpers/app';
import { closeTestKnex, createTestOrg } from '../helpers/db';

const app = testApp().callback();
let org: Awaited<ReturnType<typeof createTestOrg>>;

beforeAll(async () => {
  org = await createTestOrg('method not allowed');
});
afterAll(() => closeTestKnex());

describe('405 Method not allowed', () => {
  it.each([
    ['delete', '/api/public/enrich', ['POST']],
    ['put', '/api/public/judge', ['POST']],
    ['post', '/api/public/enrich/jobs', ['GET', 'HEAD']],
    ['patch', '/api/public/infer-schema', ['POST']],
    ['post', '/healthz', ['GET', 'HEAD']],
  ])('%s %s answers 405 with Allow %j', async (method, path, allow) => {
    const res = await request(app)[method as 'delete' | 'put' | 'post' | 'patch'](path).set(org.auth);
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method not allowed' });
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(String(res.headers.allow).split(/,\s*/).sort()).toEqual([...allow].sort());
  });

  it('leaves unknown paths 404 and allowed methods alone', async () => {
    const missing = await request(app).delete('/api/public/no-such-route').set(org.auth);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Not found' });
    expect((await request(app).get('/api/public/enrich/jobs').set(org.auth)).status).toBe(200);
  });
});
