/**
 * Replays the recorded histories of enrichmentJobWorkflow (completed, cancelled, continued-as-new
 * first and last run) against the current workflow code: a non-deterministic change fails here
 * and must be guarded with `patched()` (architecture.md, Temporal rule 9). Fixtures are made by
 * test/replay/record-histories.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { historyFromFixture } from '../../temporal/export-history';
import { quietTemporalRuntime, workflowBundle } from '../helpers/temporal';

const FIXTURES = fs.readdirSync(__dirname).filter((f) => f.startsWith('enrichment-') && f.endsWith('.json')).sort();

test('the fixtures cover every path of the workflow', () => {
  expect(FIXTURES).toEqual(['enrichment-cancelled.json', 'enrichment-completed.json', 'enrichment-continued-as-new.json', 'enrichment-continued-last-run.json']);
});

test('current workflow code replays every recorded history', async () => {
  quietTemporalRuntime();
  const histories = FIXTURES.map((file) => ({
    workflowId: file.replace(/\.json$/, ''),
    history: historyFromFixture(JSON.parse(fs.readFileSync(path.join(__dirname, file), 'utf8'))),
  }));
  const results: Array<{ workflowId: string; error?: unknown }> = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
    results.push({ workflowId: result.workflowId, error: result.error });
  }
  expect(results).toEqual(histories.map((h) => ({ workflowId: h.workflowId, error: undefined })));
});
