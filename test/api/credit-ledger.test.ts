/**
 * The credit ledger (docs/workflows.md, "The credit ledger"): a job's successful rows are
 * charged in `credit_charges` by the very transaction that writes them, once however often the
 * write is retried, never for a failed row or a row carried from an earlier job; the job's
 * `credits_used` (as the API shows it) is the ledger's sum, even when that disagrees with the rows;
 * and the database refuses to change or remove a charge except with its job or organization.
 * Jobs are created through the API with a runner that starts nothing; their rows are written
 * through the same write the worker's activities call (src/services/enrichment/rows/row-results.ts).
 */
import request from 'supertest';
import type { Knex } from 'knex';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { chargeSucceededRows, chargedCredits } from '../../src/services/enrichment/rows/credit-charges';
import { finalizeJob } from '../../src/services/enrichment/rows/progress';
import { createEnrichmentCaches } from '../../src/services/enrichment/enrichment-caches';
import { RowWrite, writeRowResults } from '../../src/services/enrichment/rows/row-results';
import { acceptingJobs } from '../helpers/app';
import { echoResult } from '../helpers/temporal';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { bodyOf } from '../helpers/wire';

let knex: Knex;
let app: ReturnType<ReturnType<typeof createApp>['callback']>;
beforeAll(() => {
  knex = testKnex();
  app = createApp({ config: loadConfig(), knex, jobRunner: acceptingJobs }).callback();
});
afterAll(async () => {
  await closeTestKnex();
});

const field = { name: 'brand', type: 'string', description: 'Brand' };

/** `POST /api/public/enrich` as `org`; returns the job id. */
async function startJob(auth: Record<string, string>, body: Record<string, unknown>): Promise<string> {
  const res = await request(app).post('/api/public/enrich').set(auth).send(body);
  expect(res.status).toBe(200);
  return bodyOf<{ job_id: string }>(res).job_id;
}

/** A worker's outcome for row `rowIndex` of `item` (an item-level error when `failed`). */
function rowWrite(rowIndex: number, failed = false): RowWrite {
  const item = { name: `item ${rowIndex}` };
  const result = echoResult(item, failed);
  return { rowIndex, outcome: { result, evidence: null, usage: null } };
}

/** Writes rows as the worker's activity does (a fresh process: no evidence documents known). */
const write = (jobId: string, writes: RowWrite[]) => writeRowResults({ knex, knownEvidenceDocs: createEnrichmentCaches().knownEvidenceDocs }, jobId, writes);

/** The job's charges, by row. */
const chargesOf = (jobId: string): Promise<Array<{ row_index: number; credits: number }>> =>
  knex('credit_charges').where({ job_id: jobId }).orderBy('row_index').select('row_index', 'credits');

/** `credits_used` and `successful` as a client polls them. */
async function polled(auth: Record<string, string>, jobId: string): Promise<{ credits_used: number; successful: number; status: string }> {
  const res = await request(app).get(`/api/public/enrich/${jobId}`).set(auth);
  expect(res.status).toBe(200);
  return bodyOf<{ credits_used: number; successful: number; status: string }>(res);
}

test('a row write retried after it committed charges once; a failed row is not charged; credits_used is the ledger sum', async () => {
  const org = await createTestOrg('ledger retry');
  const items = Array.from({ length: 4 }, (_, i) => ({ name: `item ${i}` }));
  const jobId = await startJob(org.auth, { items, output_schema: [field], async_mode: true });

  // The first attempt writes rows 0 (success) and 1 (item-level error) and is then lost (its
  // activity failed after the write); the retry writes the same rows again.
  expect(await write(jobId, [rowWrite(0), rowWrite(1, true)])).toEqual([true, true]);
  const first = await chargesOf(jobId);
  expect(await write(jobId, [rowWrite(0), rowWrite(1, true)])).toEqual([false, false]);
  expect(await chargesOf(jobId)).toEqual([{ row_index: 0, credits: 1 }]);
  expect(await chargesOf(jobId)).toEqual(first);
  // Even a charge attempted again for a row already charged inserts nothing (unique per row).
  expect(await knex.transaction((trx) => chargeSucceededRows(trx, org.organizationId, jobId, [0, 1]))).toBe(0);

  expect(await write(jobId, [rowWrite(2), rowWrite(3)])).toEqual([true, true]);
  expect((await chargesOf(jobId)).map((c) => c.row_index)).toEqual([0, 2, 3]);
  await finalizeJob(knex, jobId, 'completed');
  await finalizeJob(knex, jobId, 'completed'); // idempotent: no charge, same figure
  expect(await chargedCredits(knex, jobId)).toBe(3);
  expect(await polled(org.auth, jobId)).toMatchObject({ status: 'completed', successful: 3, credits_used: 3 });
});

test('credits_used is read from the ledger, so it can disagree with the rows', async () => {
  const org = await createTestOrg('ledger disagrees');
  const jobId = await startJob(org.auth, { items: [{ name: 'item 0' }, { name: 'item 1' }], output_schema: [field], async_mode: true });
  expect(await write(jobId, [rowWrite(0), rowWrite(1, true)])).toEqual([true, true]);
  // A wrong charge for the failed row: the figure follows the ledger (2), not the one success.
  await knex('credit_charges').insert({ organization_id: org.organizationId, job_id: jobId, row_index: 1, credits: 1 });
  await finalizeJob(knex, jobId, 'completed');
  expect(await polled(org.auth, jobId)).toMatchObject({ successful: 1, credits_used: 2 });
  const job = await knex('enrichment_jobs').where({ id: jobId }).first('credits_used', 'service_usage');
  expect(job).toMatchObject({ credits_used: 2, service_usage: { credits: 2 } });
});

test('a resumed job charges only the rows it processes, not those carried from the earlier job', async () => {
  const org = await createTestOrg('ledger resume');
  const items = Array.from({ length: 3 }, (_, i) => ({ name: `item ${i}` }));
  const earlier = await startJob(org.auth, { items, output_schema: [field], async_mode: true });
  expect(await write(earlier, [rowWrite(0), rowWrite(1, true)])).toEqual([true, true]);
  await finalizeJob(knex, earlier, 'cancelled');
  const resumed = await startJob(org.auth, { source_activity_id: earlier, async_mode: true });
  // Row 0 is carried (succeeded there); rows 1 (failed there) and 2 are processed again here.
  expect(await write(resumed, [rowWrite(0), rowWrite(1), rowWrite(2)])).toEqual([false, true, true]);
  expect((await chargesOf(resumed)).map((c) => c.row_index)).toEqual([1, 2]);
  expect((await chargesOf(earlier)).map((c) => c.row_index)).toEqual([0]);
  await finalizeJob(knex, resumed, 'completed');
  expect(await polled(org.auth, resumed)).toMatchObject({ successful: 3, credits_used: 2 });
});

test('the ledger is append-only: UPDATE, DELETE and TRUNCATE are refused; a charge goes only with its job or organization', async () => {
  const org = await createTestOrg('ledger append-only');
  const [a, b] = [
    await startJob(org.auth, { items: [{ name: 'item 0' }], output_schema: [field], async_mode: true }),
    await startJob(org.auth, { items: [{ name: 'item 0' }], output_schema: [field], async_mode: true }),
  ];
  await write(a, [rowWrite(0)]);
  await write(b, [rowWrite(0)]);

  await expect(knex('credit_charges').where({ job_id: a }).update({ credits: 0 })).rejects.toThrow(/append-only: UPDATE refused/);
  await expect(knex('credit_charges').where({ job_id: a }).update({ charged_at: new Date() })).rejects.toThrow(/append-only: UPDATE refused/);
  await expect(knex('credit_charges').where({ job_id: a }).delete()).rejects.toThrow(/append-only: DELETE refused/);
  await expect(knex.raw('TRUNCATE credit_charges')).rejects.toThrow(/append-only: TRUNCATE refused/);
  await expect(knex('credit_charges').insert({ organization_id: org.organizationId, job_id: a, row_index: 0, credits: 1 })).rejects.toThrow(
    /credit_charges_job_id_row_index_unique/,
  );
  expect(await chargesOf(a)).toEqual([{ row_index: 0, credits: 1 }]);

  // Deleting the job (through its review activity) takes its charges with it; the other job's stay.
  await knex('review_activities').where({ id: a }).delete();
  expect(await chargesOf(a)).toEqual([]);
  expect(await chargesOf(b)).toHaveLength(1);
  // Deleting the organization takes all of its charges.
  await knex('organizations').where({ id: org.organizationId }).delete();
  expect(await knex('credit_charges').where({ organization_id: org.organizationId }).count({ n: '*' })).toEqual([{ n: '0' }]);
});
