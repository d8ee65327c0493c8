/**
 * The chaos soak's audit (test/fixtures/chaos-audit.ts) can fail: over a small dataset shaped like
 * a soak's, built through the real services (jobs, apply, flow run, import) with the write-audit
 * triggers on, the audit finds nothing; then a lost row, a doubled row write, a doubled webhook
 * delivery, a skipped apply, a wrong flow output, an import line reported `unchanged` that no
 * earlier import wrote, an item written twice, a missing credit charge and a charge for a failed
 * row are injected, and the audit names each one
 * (docs/testing.md, "What the chaos soak proves").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import { createCatalogCaches } from '../../src/services/catalog/catalog-caches';
import type { EnrichmentResult } from '../../src/enrichment/types';
import { createEnrichmentJob } from '../../src/services/enrichment/jobs/jobs';
import { finalizeJob } from '../../src/services/enrichment/rows/progress';
import { createEnrichmentCaches } from '../../src/services/enrichment/enrichment-caches';
import { writeRowResults } from '../../src/services/enrichment/rows/row-results';
import { executeFlow } from '../../src/services/flows/runs';
import { writeNodeRows } from '../../src/services/flows/rows';
import { finishImport, importBatch, stageImport } from '../../src/services/sheets/import';
import { requestApply, runApply } from '../../src/services/review/apply';
import { AuditLedger, auditSoak } from '../fixtures/chaos-audit';
import { acceptingJobs } from '../fixtures/job-runners';
import { saveCodeFlow } from '../fixtures/flows';
import { createTestCatalog } from '../helpers/catalogs';
import { echoResult } from '../helpers/temporal';
import { closeTestKnex, createTestOrg, testKnex } from '../helpers/db';
import { scopeOf, seedReviewActivity } from '../helpers/review-apply';
import { installWriteAudit } from '../helpers/write-audit';

const CODE = 'def transform(rows):\n    return [dict(r, title=str(r.get("title", "")).upper()) for r in rows]\n';
const upper = (r: Record<string, unknown>) => ({ ...r, title: String(r.title).toUpperCase() });

let knex: Knex;
beforeAll(async () => {
  knex = testKnex();
  await installWriteAudit(knex);
});
afterAll(async () => {
  await closeTestKnex();
});

/** The result a worker writes for an item (an item-level `error` when `failed`). */
const resultFor = (item: Record<string, unknown>, failed: boolean): EnrichmentResult => echoResult(item, failed);

/**
 * A job of `count` items (sku `<tag>-<i>`), finished as a worker finishes it: each row written once
 * through the real write (charging each success in the credit ledger), rows in `failing` with an
 * item-level error, then finalized (credits_used from the ledger); its webhook delivered once.
 */
async function finishedJob(
  organizationId: string,
  tag: string,
  count: number,
  webhooks: Map<string, number>,
  failing: number[] = [],
): Promise<AuditLedger['jobs'][number]> {
  const items = Array.from({ length: count }, (_, i) => ({ sku: `${tag}-${i}`, name: `item ${i}` }));
  const page = await createEnrichmentJob({ knex, jobRunner: acceptingJobs } as Parameters<typeof createEnrichmentJob>[0], scopeOf(organizationId), {
    items,
    async_mode: true,
    speed: 'fast',
    output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }],
  } as Parameters<typeof createEnrichmentJob>[2]);
  const jobId = page.job.id;
  const written = await writeRowResults(
    { knex, knownEvidenceDocs: createEnrichmentCaches().knownEvidenceDocs },
    jobId,
    items.map((item, i) => ({ rowIndex: i, outcome: { result: resultFor(item, failing.includes(i)), evidence: null, usage: null } })),
  );
  expect(written).toEqual(items.map(() => true));
  await finalizeJob(knex, jobId, 'completed');
  const webhookId = `msg_${jobId}_completed`;
  await knex('webhook_deliveries').insert({
    job_id: jobId,
    webhook_id: webhookId,
    url: 'http://127.0.0.1/hook',
    attempt: 1,
    status_code: 204,
    duration_ms: 3,
    delivered_at: new Date(),
  });
  webhooks.set(webhookId, 1);
  return { jobId, skus: items.map((it) => it.sku), webhook: true };
}

test('the audit passes a clean dataset and names a lost row, a doubled row, a doubled webhook, a skipped apply and more', async () => {
  const { organizationId } = await createTestOrg('chaos audit');
  const scope = scopeOf(organizationId);
  const webhooks = new Map<string, number>();
  const ledger: AuditLedger = { jobs: [], applies: [], bulk: [], imports: [], flowRuns: [], restores: [] };

  // Three finished jobs; job C's row 3 fails at item level (no charge).
  const lostJob = await finishedJob(organizationId, 'L', 4, webhooks);
  const doubledJob = await finishedJob(organizationId, 'D', 4, webhooks);
  const chargedJob = await finishedJob(organizationId, 'C', 4, webhooks, [3]);
  ledger.jobs.push(lostJob, doubledJob, chargedJob);

  // An apply of 4 approved new items, through the real apply.
  const applyCatalog = await createTestCatalog(organizationId);
  const { activityId } = await seedReviewActivity(
    knex,
    organizationId,
    applyCatalog,
    Array.from({ length: 4 }, (_, i) => ({ after_data: { sku: `A-${i}`, title: `a ${i}` }, is_new_item: true, status: 'approved' as const })),
  );
  await requestApply({ knex, jobRunner: acceptingJobs }, scope, activityId, false);
  await runApply({ knex, caches: createCatalogCaches() }, { activity_id: activityId, force: false, actor: { kind: 'api_key', id: 'test' } }, newId());
  ledger.applies.push({ activityId, catalogId: applyCatalog });

  // A flow run whose custom_code node wrote its output (as the worker would).
  const flowCatalog = await createTestCatalog(organizationId);
  const flow = await saveCodeFlow(knex, scope, flowCatalog, CODE, 'audit flow', 60);
  const input = Array.from({ length: 5 }, (_, i) => ({ sku: `F-${i}`, title: `item ${i}` }));
  const { run } = await executeFlow({ knex, jobRunner: acceptingJobs }, scope, flow.id, { input } as Parameters<typeof executeFlow>[3]);
  await writeNodeRows(knex, run.id, 'custom_code', 0, input.map(upper));
  await knex('flow_runs').where({ id: run.id }).update({ status: 'completed' });
  ledger.flowRuns.push({ runId: run.id, expected: input.map(upper) });

  // An import of 6 lines into a strict catalog, one of them invalid, run batch by batch.
  const importCatalog = await createTestCatalog(organizationId, { strict_mode: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-audit-'));
  const file = path.join(dir, 'items.csv');
  const lines = Array.from({ length: 6 }, (_, i) => ({ sku: `I-${i}`, good: i !== 5 }));
  fs.writeFileSync(file, `sku,title,price\n${lines.map((l, i) => `${l.sku},title ${i},${l.good ? i : 'not a price'}`).join('\n')}\n`);
  const imp = await stageImport(knex, scope, importCatalog, { path: file, name: 'items.csv' }, {});
  fs.rmSync(dir, { recursive: true, force: true });
  for (let after = 0, done = false; !done; after += 1000) done = (await importBatch(knex, createCatalogCaches(), imp.id, after, 1000)).done;
  await finishImport(knex, imp.id, 'completed');
  ledger.imports.push({ importId: imp.id, catalogId: importCatalog, lines });

  const clean = await auditSoak(knex, ledger, webhooks);
  expect(clean.violations).toEqual([]);
  expect(clean.figures).toMatchObject({ jobs: 3, rows: 12, webhooks: 3, applies: 1, changes_applied: 4, import_lines: 6, flow_runs: 1, flow_rows: 5 });

  // Injections.
  // 1. A lost row: job L's row 2 is gone (its charge stays in the ledger).
  await knex('enrichment_rows').where({ job_id: lostJob.jobId, row_index: 2 }).delete();
  // 2. A doubled row: job D's row 1 written a second time (the write record shows it).
  await knex('enrichment_rows')
    .where({ job_id: doubledJob.jobId, row_index: 1 })
    .update({ result: knex.raw('result') });
  // 3. A doubled webhook delivery: job D's message received twice, two delivered attempts recorded.
  const webhookId = `msg_${doubledJob.jobId}_completed`;
  webhooks.set(webhookId, 2);
  await knex('webhook_deliveries').insert({
    job_id: doubledJob.jobId,
    webhook_id: webhookId,
    url: 'http://127.0.0.1/hook',
    attempt: 2,
    status_code: 204,
    duration_ms: 3,
    delivered_at: new Date(),
  });
  // 4. A skipped apply: an approved change of the activity that the apply never applied.
  await knex('staged_changes').insert({
    id: newId(),
    activity_id: activityId,
    organization_id: organizationId,
    catalog_id: applyCatalog,
    after_data: { sku: 'A-4', title: 'a 4' },
    is_new_item: true,
    row_index: 4,
    status: 'approved',
  });
  // 5. A flow output row that is not its input through the transform.
  await knex('flow_run_rows')
    .where({ run_id: run.id, node_id: 'custom_code', row_index: 3 })
    .update({ data: { sku: 'F-3', title: 'item 3' } });
  // 6. An import line reported `unchanged` though no earlier import wrote its item.
  await knex('catalog_import_lines').where({ import_id: imp.id }).whereRaw("data->>'sku' = 'I-0'").update({ status: 'unchanged' });
  // 7. An imported item written a second time.
  const line1 = await knex('catalog_import_lines').where({ import_id: imp.id }).whereRaw("data->>'sku' = 'I-1'").first('item_id');
  await knex('catalog_items')
    .where({ id: line1.item_id })
    .update({ data: knex.raw('data') });

  // 8. A missing charge: job C's row 0 succeeded but its charge is gone. The ledger refuses a
  // direct DELETE, so the fault is made with the table's triggers off for one transaction.
  await expect(knex('credit_charges').where({ job_id: chargedJob.jobId, row_index: 0 }).delete()).rejects.toThrow(/append-only/);
  await knex.transaction(async (trx) => {
    await trx.raw('SET LOCAL session_replication_role = replica');
    await trx('credit_charges').where({ job_id: chargedJob.jobId, row_index: 0 }).delete();
  });
  // 9. A charge for a failed row: job C's row 3 (item-level error) charged. With 8, the sums still
  // agree (3 charges, 3 successes, credits_used 3): only the per-row checks name these two.
  await knex('credit_charges').insert({ organization_id: organizationId, job_id: chargedJob.jobId, row_index: 3, credits: 1 });

  const found = (await auditSoak(knex, ledger, webhooks)).violations.map((v) => `${v.check} ${v.subject}`).sort();
  expect(found).toEqual(
    [
      `job_row_missing ${lostJob.jobId}:2`,
      `credits_mismatch ${lostJob.jobId}`,
      `charge_without_success ${lostJob.jobId}:2`,
      `success_without_charge ${chargedJob.jobId}:0`,
      `charge_without_success ${chargedJob.jobId}:3`,
      `job_row_written_twice ${doubledJob.jobId}:1`,
      `webhook_delivered_twice ${doubledJob.jobId}`,
      `apply_change_not_applied ${activityId}:4`,
      `flow_run_output_differs ${run.id}`,
      `import_line_unchanged_unwritten ${imp.id}:I-0`,
      `import_item_written_twice ${imp.id}:I-1`,
    ].sort(),
  );
}, 120_000);
