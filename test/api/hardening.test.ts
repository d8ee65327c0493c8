import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { noJobs, testApp } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';

/** Hardening headers on `/api` answers and the optional token on `/metrics`. */

afterAll(async () => {
  await closeTestKnex();
});

describe('API response headers', () => {
  it('sends nosniff and no-store on successes and errors', async () => {
    const org = await createTestOrg('headers org');
    const app = testApp().callback();
    for (const res of [await request(app).get('/api/public/catalogs').set(org.auth), await request(app).get('/api/public/catalogs')]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('GET /metrics', () => {
  it('is open without METRICS_TOKEN', async () => {
    const res = await request(testApp().callback()).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_request_duration_seconds');
  });

  it('requires the bearer token when METRICS_TOKEN is set', async () => {
    const config = { ...loadConfig(), metricsToken: 'm3trics-t0ken' };
    const app = createApp({ config, knex: testKnex(), jobRunner: noJobs }).callback();
    expect((await request(app).get('/metrics')).status).toBe(401);
    expect((await request(app).get('/metrics').set('Authorization', 'Bearer wrong')).status).toBe(401);
    const ok = await request(app).get('/metrics').set('Authorization', 'Bearer m3trics-t0ken');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('http_request_duration_seconds');
  });
});
