import type { Server } from 'node:http';
import type { Knex } from 'knex';
import type { CatalogClient, paths } from '@catalog-enrichment/client';
import { buildRegistry } from '../../src/app';
import { loadConfig } from '../../src/config';
import { ConflictError } from '../../src/lib/errors';
import { IDEMPOTENCY_LEASE_MS, runIdempotent } from '../../src/services/access/idempotency';
import { getWebhookSecret, rotateWebhookSecret } from '../../src/services/access/webhook-secret';
import type { JobRunner } from '../../src/services/job-runner';
import { acceptingJobs, testApp } from '../helpers/app';
import { createTestCatalog } from '../helpers/catalogs';
import { closeServer, listenTestApp, typedClient } from '../helpers/client';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { idempotentIdOf, loseAnswer } from '../helpers/idempotency';
import type { ValidationErrorBody } from '../helpers/wire';

/**
 * `Idempotency-Key` on POST routes: same key and request → the first answer, run once.
 * Called through the typed client (packages/client), the key in its `headers` option.
 */

/** Counts enrichment starts: a replayed POST /enrich must not start (or charge) a second job. */
const started: string[] = [];
/** Set to make the next start fail as an unreachable Temporal would. */
const refuse = { nextStart: false };
const countingJobs: JobRunner = {
  ...acceptingJobs,
  async startEnrichment(job) {
    if (refuse.nextStart) {
      refuse.nextStart = false;
      throw new Error('connect ECONNREFUSED 127.0.0.1:7233');
    }
    started.push(job.id);
  },
};

/** `POST /api/public/enrich`: the JSON body. */
type EnrichBody = NonNullable<paths['/api/public/enrich']['post']['requestBody']>['content']['application/json'];

let server: Server;
let org: Awaited<ReturnType<typeof createTestOrg>>;
let catalogId: string;
/** The typed client with `org`'s credential. */
let api: CatalogClient;

beforeAll(async () => {
  server = await listenTestApp(testApp(countingJobs));
  org = await createTestOrg('idempotency org');
  catalogId = await createTestCatalog(org.organizationId);
  api = typedClient(server, org.auth);
});

afterAll(async () => {
  await closeServer(server);
  await closeTestKnex();
});

/** The `headers` option of a call with `Idempotency-Key: key` (none when `key` is undefined). */
const idem = (key?: string) => (key === undefined ? {} : { headers: { 'Idempotency-Key': key } });
/** `POST /api/public/enrich` with `body` and the idempotency key `key` (if any), as `client`. */
const enrich = (body: EnrichBody, key?: string, client: CatalogClient = api) => client.POST('/api/public/enrich', { body, ...idem(key) });

const enrichBody: EnrichBody = { items: [{ name: 'Boots' }], output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }], async_mode: true };

it('creates one job for a retried POST /enrich and answers the retry with the first answer', async () => {
  const first = await enrich(enrichBody, 'enrich-1');
  expect(first.response.status).toBe(200);
  const again = await enrich(enrichBody, 'enrich-1');
  expect(again.response.status).toBe(200);
  expect(again.response.headers.get('idempotent-replayed')).toBe('true');
  expect(again.data!.job_id).toBe(first.data!.job_id);
  expect(started.filter((id) => id === first.data!.job_id)).toHaveLength(1);
  const [{ n }] = await testKnex()('enrichment_jobs').where({ organization_id: org.organizationId }).count({ n: '*' });
  expect(Number(n)).toBe(1);
});

it('refuses the same key with another request (422) and runs requests without a key every time', async () => {
  const other = await enrich({ ...enrichBody, items: [{ name: 'Shoes' }] }, 'enrich-1');
  expect(other.response.status).toBe(422);
  expect((other.error as ValidationErrorBody).detail[0].loc).toEqual(['header', 'idempotency-key']);
  const before = started.length;
  await enrich(enrichBody);
  await enrich(enrichBody);
  expect(started.length).toBe(before + 2);
});

it('writes a bulk upsert once and replays its counts; a failed first request is forgotten', async () => {
  const items = { items: [{ sku: 'idem-1', title: 'A' }] };
  const bulk = () => api.POST('/api/public/catalogs/{catalog_id}/items/bulk', { params: { path: { catalog_id: catalogId } }, body: items, ...idem('bulk-1') });
  const first = await bulk();
  const again = await bulk();
  expect(again.data).toEqual(first.data);
  expect(again.response.headers.get('idempotent-replayed')).toBe('true');
  const row = await testKnex()('catalog_items').where({ catalog_id: catalogId, business_key: 'idem-1' }).first('current_version');
  expect(row.current_version).toBe(1);

  const missing = '00000000-0000-4000-8000-000000000000';
  const snapshot = (catalog_id: string) =>
    api.POST('/api/public/catalogs/{catalog_id}/snapshots', { params: { path: { catalog_id } }, body: {}, ...idem('snap-1') });
  const failed = await snapshot(missing);
  expect(failed.response.status).toBe(404);
  const retried = await snapshot(catalogId);
  // Another request than the failed first one: accepted, because the failure was forgotten.
  expect(retried.response.status).toBe(200);
  expect(Number((await testKnex()('catalog_snapshots').where({ catalog_id: catalogId }).count({ n: '*' }))[0].n)).toBe(1);
});

it('scopes keys to the organization and validates them', async () => {
  const other = await createTestOrg('idempotency other');
  const mine = await enrich(enrichBody, 'shared-key');
  const theirs = await enrich(enrichBody, 'shared-key', typedClient(server, other.auth));
  expect(theirs.response.status).toBe(200);
  expect(theirs.data!.job_id).not.toBe(mine.data!.job_id);
  const bad = await enrich(enrichBody, 'has space');
  expect(bad.response.status).toBe(422);
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

it('stores an atomic route’s answer in the transaction of its writes: both commit or neither does', async () => {
  const knex = testKnex();
  const scope = { organizationId: org.organizationId, principal: { kind: 'api_key' as const, id: 'test', organizationIds: [org.organizationId] } };
  const secret = async () => (await getWebhookSecret(knex, scope)).webhook_secret;
  // The handler writes (a new webhook secret), then its answer cannot be stored (jsonb refuses
  // U+0000): the failure a process dying between the writes and the stored answer stands for.
  const unstorable = async (db: Knex) => ({ status: 200, body: { secret: (await rotateWebhookSecret(db, scope)).webhook_secret, note: 'nul \u0000' } });
  const before = await secret();
  await expect(runIdempotent(knex, org.organizationId, 'atomic-1', 'h', unstorable, true)).rejects.toThrow();
  // Atomic: the write was rolled back with the answer, and the key is free for a retry.
  expect(await secret()).toBe(before);
  expect(await knex('idempotency_keys').where({ organization_id: org.organizationId, idempotency_key: 'atomic-1' }).first()).toBeUndefined();
  // Not atomic (a route that starts workflows): the write stands though no answer was stored;
  // a retry after the lease would run it again. This is what atomic routes are spared.
  await expect(runIdempotent(knex, org.organizationId, 'plain-1', 'h', unstorable, false)).rejects.toThrow();
  expect(await secret()).not.toBe(before);
  // A successful atomic run: its write and its answer are both there, and a repeat replays it.
  const rotate = async (db: Knex) => ({ status: 200, body: await rotateWebhookSecret(db, scope) });
  const first = await runIdempotent(knex, org.organizationId, 'atomic-2', 'h', rotate, true);
  expect(first.replayed).toBe(false);
  expect(await secret()).toBe((first.body as { webhook_secret: string }).webhook_secret);
  expect(await runIdempotent(knex, org.organizationId, 'atomic-2', 'h', rotate, true)).toEqual({ ...first, replayed: true });
  expect(await secret()).toBe((first.body as { webhook_secret: string }).webhook_secret);
});

it('runs the database-only POST routes in one transaction with their answer (RouteDef.atomic)', async () => {
  // Over HTTP: a replayed atomic create (an API key) answers the same key once, and one key exists.
  const before = (await api.GET('/api/public/api-keys')).data!.api_keys.length;
  const first = await api.POST('/api/public/api-keys', { body: { name: 'idempotent key' }, ...idem('atomic-http-1') });
  const again = await api.POST('/api/public/api-keys', { body: { name: 'idempotent key' }, ...idem('atomic-http-1') });
  expect(first.response.status).toBe(200);
  expect(again.response.headers.get('idempotent-replayed')).toBe('true');
  expect(again.data).toEqual(first.data);
  expect((await api.GET('/api/public/api-keys')).data!.api_keys.length).toBe(before + 1);
  // The routes that only touch the database are atomic; those that start or wait for workflows are not.
  const routes = buildRegistry({ config: loadConfig(), knex: testKnex(), jobRunner: acceptingJobs }).routes;
  const atomic = new Set(routes.filter((r) => r.atomic).map((r) => `${r.method} ${r.path}`));
  for (const r of [
    'post /public/catalogs',
    'post /public/api-keys',
    'post /public/catalogs/:catalog_id/items/bulk',
    'post /public/catalogs/:catalog_id/snapshots',
    'post /public/image-runs',
    'post /public/enrich/:job_id/to-catalog',
  ])
    expect(atomic).toContain(r);
  for (const r of ['post /public/enrich', 'post /public/catalogs/:catalog_id/snapshots/:snapshot_id/restore', 'post /public/catalogs/:catalog_id/items/import'])
    expect(atomic).not.toContain(r);
});

it('a retried POST /enrich whose first attempt died before its answer was stored finds that job: nothing created or charged again', async () => {
  const knex = testKnex();
  const jobs = async () => Number((await knex('enrichment_jobs').where({ organization_id: org.organizationId }).count({ n: '*' }))[0].n);
  const first = await enrich(enrichBody, 'enrich-crash-1');
  expect(first.response.status).toBe(200);
  const jobId = first.data!.job_id;
  expect(jobId).toBe(await idempotentIdOf(knex, org.organizationId, 'enrich-crash-1'));
  const before = await jobs();
  // The process died after the job was stored and started, before the answer was.
  await loseAnswer(knex, org.organizationId, 'enrich-crash-1');
  const retry = await enrich(enrichBody, 'enrich-crash-1');
  expect(retry.response.status).toBe(200);
  expect(retry.response.headers.get('idempotent-replayed')).toBeNull();
  expect(retry.data!.job_id).toBe(jobId);
  expect(await jobs()).toBe(before);
  expect((await knex('enrichment_jobs').where('id', jobId).first('status')).status).toBe('running');
});

it('a key claimed anew (after a failed attempt was forgotten, or after its 24 h) creates a new job', async () => {
  const knex = testKnex();
  // A 503 (the workflow could not be started): the key is forgotten, the job stays failed with why.
  refuse.nextStart = true;
  const failed = await enrich(enrichBody, 'enrich-503-1');
  expect(failed.response.status).toBe(503);
  const failedJob = await knex('enrichment_jobs')
    .where({ organization_id: org.organizationId, status: 'failed' })
    .orderBy('created_at', 'desc')
    .first('id', 'error');
  expect(failedJob.error).toBe('The job could not be started; retry later');
  const retry = await enrich(enrichBody, 'enrich-503-1');
  expect(retry.response.status).toBe(200);
  expect(retry.data!.job_id).not.toBe(failedJob.id);
  expect(started).toContain(retry.data!.job_id);
  // The same key a day later is a new request: a new job.
  await knex('idempotency_keys')
    .where({ organization_id: org.organizationId, idempotency_key: 'enrich-503-1' })
    .update({ created_at: new Date(Date.now() - 25 * 60 * 60 * 1000) });
  const nextDay = await enrich(enrichBody, 'enrich-503-1');
  expect(nextDay.response.status).toBe(200);
  expect(nextDay.response.headers.get('idempotent-replayed')).toBeNull();
  expect(nextDay.data!.job_id).not.toBe(retry.data!.job_id);
});
