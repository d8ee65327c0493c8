import type { Server } from 'node:http';
import request from 'supertest';
import { ConflictError } from '../../src/lib/errors';
import { IDEMPOTENCY_LEASE_MS, runIdempotent } from '../../src/services/access/idempotency';
import type { JobRunner } from '../../src/services/job-runner';
import { acceptingJobs, testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bodyOf } from '../helpers/wire';

/** `Idempotency-Key` on POST routes (issue 18): same key and request → the first answer, run once. */

/** Counts enrichment starts: a replayed POST /enrich must not start (or charge) a second job. */
const started: string[] = [];
const countingJobs: JobRunner = {
  ...acceptingJobs,
  async startEnrichment(job) {
    started.push(job.id);
  },
};

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;

beforeAll(async () => {
  server = testApp(countingJobs).listen(0);
  org = await createTestOrg('idempotency org');
  catalogId = await createTestCatalog(org.organizationId);
});

afterAll(async () => {
  server.close();
  await closeTestKnex();
});

const enrichBody = { items: [{ name: 'Boots' }], output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }], async_mode: true };

it('creates one job for a retried POST /enrich and answers the retry with the first answer', async () => {
  const first = await request(server).post('/api/public/enrich').set(org.auth).set('Idempotency-Key', 'enrich-1').send(enrichBody);
  expect(first.status).toBe(200);
  const again = await request(server).post('/api/public/enrich').set(org.auth).set('Idempotency-Key', 'enrich-1').send(enrichBody);
  expect(again.status).toBe(200);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(bodyOf<{ job_id: string }>(again).job_id).toBe(bodyOf<{ job_id: string }>(first).job_id);
  expect(started.filter((id) => id === bodyOf<{ job_id: string }>(first).job_id)).toHaveLength(1);
  const [{ n }] = await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId }).count({ n: '*' });
  expect(Number(n)).toBe(1);
});

it('refuses the same key with another request (422) and runs requests without a key every time', async () => {
  const other = await request(server)
    .post('/api/public/enrich')
    .set(org.auth)
    .set('Idempotency-Key', 'enrich-1')
    .send({ ...enrichBody, items: [{ name: 'Shoes' }] });
  expect(other.status).toBe(422);
  expect(bodyOf<{ detail: Array<{ loc: unknown[] }> }>(other).detail[0].loc).toEqual(['header', 'idempotency-key']);
  const before = started.length;
  await request(server).post('/api/public/enrich').set(org.auth).send(enrichBody);
  await request(server).post('/api/public/enrich').set(org.auth).send(enrichBody);
  expect(started.length).toBe(before + 2);
});

it('writes a bulk upsert once and replays its counts; a failed first request is forgotten', async () => {
  const items = { items: [{ sku: 'idem-1', title: 'A' }] };
  const first = await request(server).post(`/api/public/catalogs/${catalogId}/items/bulk`).set(org.auth).set('Idempotency-Key', 'bulk-1').send(items);
  const again = await request(server).post(`/api/public/catalogs/${catalogId}/items/bulk`).set(org.auth).set('Idempotency-Key', 'bulk-1').send(items);
  expect(again.body).toEqual(first.body);
  expect(again.headers['idempotent-replayed']).toBe('true');
  const row = await testKnex()('catalog_items').where({ catalog_id: catalogId, business_key: 'idem-1' }).first('current_version');
  expect(row.current_version).toBe(1);

  const missing = '00000000-0000-4000-8000-000000000000';
  const failed = await request(server).post(`/api/public/catalogs/${missing}/snapshots`).set(org.auth).set('Idempotency-Key', 'snap-1').send({});
  expect(failed.status).toBe(404);
  const retried = await request(server).post(`/api/public/catalogs/${catalogId}/snapshots`).set(org.auth).set('Idempotency-Key', 'snap-1').send({});
  // Another request than the failed first one: accepted, because the failure was forgotten.
  expect(retried.status).toBe(200);
  expect(Number((await testKnex()('catalog_snapshots').where({ catalog_id: catalogId }).count({ n: '*' }))[0].n)).toBe(1);
});

it('scopes keys to the organization and validates them', async () => {
  const other = await createTestOrg('idempotency other');
  const mine = await request(server).post('/api/public/enrich').set(org.auth).set('Idempotency-Key', 'shared-key').send(enrichBody);
  const theirs = await request(server).post('/api/public/enrich').set(other.auth).set('Idempotency-Key', 'shared-key').send(enrichBody);
  expect(theirs.status).toBe(200);
  expect(bodyOf<{ job_id: string }>(theirs).job_id).not.toBe(bodyOf<{ job_id: string }>(mine).job_id);
  const bad = await request(server).post('/api/public/enrich').set(org.auth).set('Idempotency-Key', 'has space').send(enrichBody);
  expect(bad.status).toBe(422);
});

it('takes over the key of a request whose process died (its lease lapsed); a live claim still answers 409', async () => {
  const knex = testKnex();
  const claim = (key: string, leaseUntil: Date) =>
    knex('idempotency_keys').insert({ organization_id: org.organizationId, idempotency_key: key, request_hash: 'h', status: null, lease_until: leaseUntil });
  // A dead process left its claim behind: the lease ran out, so a repeat runs the request.
  await claim('died-1', new Date(Date.now() - 1000));
  let runs = 0;
  const handler = async () => ({ status: 200, body: { run: ++runs } });
  expect(await runIdempotent(knex, org.organizationId, 'died-1', 'h', handler)).toEqual({ status: 200, body: { run: 1 }, replayed: false });
  expect(await runIdempotent(knex, org.organizationId, 'died-1', 'h', handler)).toEqual({ status: 200, body: { run: 1 }, replayed: true });
  // A claim whose lease still holds belongs to a request that is running: 409, nothing runs.
  await claim('running-1', new Date(Date.now() + IDEMPOTENCY_LEASE_MS));
  await expect(runIdempotent(knex, org.organizationId, 'running-1', 'h', handler)).rejects.toBeInstanceOf(ConflictError);
  expect(runs).toBe(1);
});
