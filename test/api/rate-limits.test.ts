import request from 'supertest';
import { createApp } from '../../src/app';
import { Config, loadConfig } from '../../src/config';
import type { JobRunner } from '../../src/services/job-runner';
import { acceptingJobs, noJobs } from '../helpers/app';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bodyOf } from '../helpers/wire';

/**
 * Rate limits and quotas: counted in PostgreSQL, so two apps (two API processes)
 * share them; 429 with Retry-After and RateLimit-* headers; key guessing slowed per IP.
 */

function appWith(limits: Partial<Config['limits']>, jobRunner: JobRunner = noJobs): ReturnType<ReturnType<typeof createApp>['callback']> {
  const base = loadConfig();
  const config: Config = {
    ...base,
    limits: { requestsPerSecond: 0, burst: 1, authFailuresPerMinute: 0, concurrentJobs: 0, monthlyCredits: null, ...limits },
  };
  return createApp({ config, knex: testKnex(), jobRunner }).callback();
}

afterAll(async () => {
  await closeTestKnex();
});

it('allows a burst, then answers 429 with Retry-After, shared by two API processes', async () => {
  const org = await createTestOrg('rate org');
  // A burst of 5 at 0.001 requests/s: a window of 5,000 s, which no slow machine outlasts between
  // the sixth request and the fifth (at 1/s the window was 5 s, and a busy machine saw a 200).
  const limits = { requestsPerSecond: 0.001, burst: 5 };
  const [a, b] = [appWith(limits), appWith(limits)];
  const statuses: number[] = [];
  let last: request.Response | undefined;
  for (let i = 0; i < 6; i++) {
    last = await request(i % 2 ? b : a)
      .get('/api/public/catalogs')
      .set(org.auth);
    statuses.push(last.status);
  }
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(last!.headers['ratelimit-limit']).toBe('5');
  expect(last!.headers['ratelimit-remaining']).toBe('0');
  expect(bodyOf<{ detail: string }>(last!).detail).toMatch(/Too many requests/);

  // Another organization has its own budget.
  const other = await createTestOrg('rate bystander');
  const theirs = await request(a).get('/api/public/catalogs').set(other.auth);
  expect(theirs.status).toBe(200);
  expect(theirs.headers['ratelimit-remaining']).toBe('4');
});

it('slows down guessing of API keys per client address', async () => {
  const app = appWith({ authFailuresPerMinute: 3 });
  const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    statuses.push((await request(app).get('/api/public/catalogs').set('X-Forwarded-For', ip).set('Authorization', `Bearer ck_guess${i}`)).status);
  }
  expect(statuses).toEqual([401, 401, 401, 429, 429]);
  // Even a right key is refused from that address until the minute is over; other addresses are not.
  const org = await createTestOrg('rate keys');
  expect((await request(app).get('/api/public/catalogs').set('X-Forwarded-For', ip).set(org.auth)).status).toBe(429);
  expect((await request(app).get('/api/public/catalogs').set('X-Forwarded-For', '198.51.100.250').set(org.auth)).status).toBe(200);
});

it('limits running jobs and monthly credits per organization', async () => {
  const org = await createTestOrg('quota org');
  const body = { items: [{ name: 'Boots' }], output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }], async_mode: true };
  const app = appWith({ concurrentJobs: 2 }, acceptingJobs);
  expect((await request(app).post('/api/public/enrich').set(org.auth).send(body)).status).toBe(200);
  expect((await request(app).post('/api/public/enrich').set(org.auth).send(body)).status).toBe(200);
  const third = await request(app).post('/api/public/enrich').set(org.auth).send(body);
  expect(third.status).toBe(429);
  expect(third.headers['retry-after']).toBe('30');

  // Finish the jobs with 3 credits used; a quota of 3 credits then refuses new jobs.
  await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId }).update({ status: 'completed' });
  const [first] = await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId }).orderBy('created_at').select('id');
  await testKnex()('enrichment_jobs').where({ id: first.id }).update({ credits_used: 3 });
  const quota = appWith({ monthlyCredits: 3 }, acceptingJobs);
  const refused = await request(quota).post('/api/public/enrich').set(org.auth).send(body);
  expect(refused.status).toBe(429);
  expect(bodyOf<{ detail: string }>(refused).detail).toMatch(/credits/);
  expect(
    (
      await request(appWith({ monthlyCredits: 4 }, acceptingJobs))
        .post('/api/public/enrich')
        .set(org.auth)
        .send(body)
    ).status,
  ).toBe(200);
});
