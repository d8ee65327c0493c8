/**
 * Replays the recorded histories of every workflow type against the current workflow code: a
 * non-deterministic change fails here and must be guarded with `patched()` (docs/workflows.md
 * "Rules of the craft", Temporal rule 9). Fixtures are made by test/replay/record-histories.ts:
 *
 * - enrichmentJobWorkflow before row batching (`enrichment-{completed,cancelled,
 *   continued-as-new,continued-last-run}.json`, one processRow per row: the `row-batches` patch
 *   keeps them replaying) and with it (`enrichment-batched-*.json`);
 * - a worker process SIGKILLed mid-job (`enrichment-worker-crash.json`: heartbeat timeouts,
 *   retried batches, a workflow task picked up by another worker);
 * - the webhook path: the parent that starts its delivery child (`enrichment-webhook.json`) and
 *   webhookDeliveryWorkflow with one failed and one successful attempt (`webhook-delivery.json`);
 * - searchIndexBuildWorkflow: a catalog's search count index built, then the cool-down timer
 *   (`search-index-build.json`, recorded with a plain sleep before the `searchWordsPending`
 *   signal existed), and a build signalled during its cool-down, which catches up a restored
 *   catalog's word index (`search-index-words-signal.json`);
 * - activityApplyWorkflow: an apply that completes, then catches up the word index
 *   (`activity-apply-completed.json`), and one that fails for good and records the failure
 *   (`activity-apply-failed.json`);
 * - catalogImportWorkflow: a spreadsheet import with a failing line that completes
 *   (`catalog-import-completed.json`);
 * - flowRunWorkflow: a run through custom_code, the child enrichment job of an enrich node and
 *   stage (`flow-run-completed.json`), one whose code raised (`flow-run-failed.json`) and one
 *   cancelled while its code ran (`flow-run-cancelled.json`);
 * - snapshotRestoreWorkflow: a restore that completes and one that fails as not applicable
 *   (`snapshot-restore-{completed,failed}.json`);
 * - researchArchiveIndexWorkflow: an uploaded WARC indexed (`research-archive-ready.json`) and a
 *   file that is no WARC, failed without retries (`research-archive-failed.json`);
 * - bulkStageWorkflow: a console bulk action staged in three pages (`bulk-stage-completed.json`);
 * - gridIndexWorkflow: a sort index built, then dropped after a signal while the workflow lingered
 *   (`grid-index-built-dropped.json`);
 * - feedRunWorkflow: a feed run in three pages, then its file, one activity per page
 *   (`feed-run-completed.json`, before the `feed-pages-streamed` patch) and all three in one
 *   pages activity (`feed-run-streamed.json`);
 * - feedScheduledRunWorkflow: a scheduled start that creates its run and runs it as a child
 *   (`feed-scheduled-run.json`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { historyFromFixture } from '../../temporal/export-history';
import * as registeredWorkflows from '../../workflows';
import { quietTemporalRuntime, workflowBundle } from '../helpers/temporal';

const FIXTURES = fs
  .readdirSync(__dirname)
  .filter((f) => f.endsWith('.json'))
  .sort();

test('the fixtures cover every registered workflow type', () => {
  // The types the worker registers are the bundle entry's exports (workflows/index.ts), read here
  // rather than listed, so a workflow type added without a recorded history fails this test.
  const registered = Object.entries(registeredWorkflows)
    .filter(([, value]) => typeof value === 'function')
    .map(([name]) => name)
    .sort();
  expect(registered.length).toBeGreaterThanOrEqual(11);
  const recorded = new Set(
    FIXTURES.map(
      (f) => JSON.parse(fs.readFileSync(path.join(__dirname, f), 'utf8')).events[0].workflowExecutionStartedEventAttributes.workflowType.name as string,
    ),
  );
  expect(registered.filter((type) => !recorded.has(type))).toEqual([]);
  // Every fixture is of a registered type (a renamed type would leave its histories unreplayable).
  expect([...recorded].filter((type) => !registered.includes(type))).toEqual([]);
});

test('current workflow code replays every recorded history', async () => {
  quietTemporalRuntime();
  const histories = FIXTURES.map((file) => {
    const json = JSON.parse(fs.readFileSync(path.join(__dirname, file), 'utf8'));
    // A parent's child id `<parent id>/webhook` is derived from its own id: replay under the recorded id.
    const events: Array<{ startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId: string } }> = json.events;
    const child = events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)?.startChildWorkflowExecutionInitiatedEventAttributes;
    return { workflowId: child ? String(child.workflowId).replace(/\/webhook$/, '') : file.replace(/\.json$/, ''), history: historyFromFixture(json) };
  });
  const results: Array<{ workflowId: string; error?: unknown }> = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
    results.push({ workflowId: result.workflowId, error: result.error });
  }
  expect(results).toEqual(histories.map((h) => ({ workflowId: h.workflowId, error: undefined })));
  expect(results).toHaveLength(FIXTURES.length);
});
