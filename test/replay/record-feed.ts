/**
 * The `feed` group of the replay fixtures (./record-histories.ts): a feedRunWorkflow of a
 * 7-item catalog in pages of 3 (three pages written by one pages activity, then the file:
 * `feed-run-streamed.json`; `feed-run-completed.json` was recorded before the
 * `feed-pages-streamed` patch, one activity per page, and is kept as it is), and a
 * feedScheduledRunWorkflow as its Temporal Schedule starts it, which creates its run and runs it
 * as a child (`feed-scheduled-run.json`).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { newId } from '../../src/lib/ids';
import { feedRunWorkflowId } from '../../src/contracts/feed-workflows';
import { createFeed } from '../../src/services/feeds/feeds';
import { insertFeedRun } from '../../src/services/feeds/runs';
import { exportHistory } from '../../temporal/export-history';
import { createTestCatalog } from '../helpers/catalogs';
import { testKnex } from '../helpers/db';

/** Records both fixtures on `taskQueue` (a worker of the current code polls it). */
export async function recordFeedRuns(env: TestWorkflowEnvironment, organizationId: string, taskQueue: string, out: (name: string) => string): Promise<void> {
  const knex = testKnex();
  const catalogId = await createTestCatalog(organizationId);
  await knex('catalog_items').insert(
    Array.from({ length: 7 }, (_, i) => ({
      id: newId(),
      catalog_id: catalogId,
      business_key: `F-${i}`,
      data: JSON.stringify({ sku: `F-${i}`, title: `oak table ${i}`, price: 10 + i }),
    })),
  );
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'replay', organizationIds: [organizationId] } };
  const { feed } = await createFeed(knex, scope, catalogId, {
    channel: 'google_merchant_center',
    format: 'tsv',
    target_country: 'US',
    language: 'en',
    currency: 'USD',
    mapping: { id: 'sku', title: 'title', price: 'price' },
  });
  const run = await insertFeedRun(knex, feed, false);
  await env.client.workflow.execute('feedRunWorkflow', { taskQueue, workflowId: feedRunWorkflowId(run.id), args: [{ run_id: run.id, page_items: 3 }] });
  console.log('feed run:', await exportHistory(env.client, feedRunWorkflowId(run.id), out('feed-run-streamed.json')), 'events');
  const scheduledId = `feed-scheduled-${feed.id}`;
  await env.client.workflow.execute('feedScheduledRunWorkflow', { taskQueue, workflowId: scheduledId, args: [{ feed_id: feed.id }] });
  console.log('scheduled feed run:', await exportHistory(env.client, scheduledId, out('feed-scheduled-run.json')), 'events');
}
