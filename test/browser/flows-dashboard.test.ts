/**
 * The flows pages of the dashboard in a real browser: a flow saved from a
 * custom transform through the real route, run twice for real (a Temporal dev server, a worker of
 * temporal/worker.ts with the bubblewrap Python sandbox): one run completes, one fails in its
 * custom_code node. Chromium then walks flow list → flow → completed run (results table, node
 * selector, pagination) → failed run (failed node, error) → the review page the run left.
 * Skipped, with a message saying so, only when no Chromium is installed. Screenshots go to
 * `DASHBOARD_SCREENSHOTS` (e.g. docs/screenshots) when that is set.
 */
import { shotAndCheck } from './chromium';
import { useBrowserSession } from './dashboard-server';
import request from 'supertest';
import { newId } from '../../src/lib/ids';
import { FlowRun } from '../../src/models/flow-run';
import { FlowRunNode } from '../../src/models/flow-run-node';
import { createTestOrg, testKnex } from '../helpers/db';
import { fakeEngine, testApiFor } from '../helpers/temporal';
import { completedRunInput, createFlowFixture, FAILING_RUN_INPUT, FLOW_SCRIPT, FLOW_TIMEOUT_S, FLOW_XSS_PROBE, type FlowFixture } from './flows-fixture';

/** Rows of the completed run: more than one dashboard page (25). */
const COMPLETED_ROWS = 30;

/** Waits until a run is no longer running (the worker finished it). */
async function settled(runId: string): Promise<FlowRun> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const run = await FlowRun.query(testKnex()).findById(runId).throwIfNotFound();
    if (run.status !== 'running') return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still running: ${run.message}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('flows dashboard in Chromium', () => {
  const TASK_QUEUE = 'test-browser-flows';
  let org: Awaited<ReturnType<typeof createTestOrg>>;
  let fx: FlowFixture;
  let completed: FlowRun;
  let failed: FlowRun;

  const ui = useBrowserSession({
    worker: { taskQueue: TASK_QUEUE, engine: fakeEngine() },
    async setUp({ env }) {
      org = await createTestOrg('flows dashboard org');
      const app = testApiFor(env, TASK_QUEUE);
      fx = await createFlowFixture(testKnex(), app, org);
      const execute = async (input: Array<Record<string, unknown>>) => {
        const res = await request(app).post(`/api/public/workflows/${fx.flowId}/execute`).set(org.auth).send({ input });
        if (res.status !== 200 && res.status !== 201 && res.status !== 202) throw new Error(`execute answered ${res.status}: ${JSON.stringify(res.body)}`);
        return settled(res.body.workflow_run_id as string);
      };
      completed = await execute(completedRunInput(COMPLETED_ROWS));
      failed = await execute(FAILING_RUN_INPUT);
      return app;
    },
    timeoutMs: 240_000,
  });

  const shot = (name: string) => shotAndCheck(ui.page, name);

  const flowPath = () => `/dashboard/flows/${fx.flowId}`;
  const runPath = (run: FlowRun) => `/dashboard/flows/${fx.flowId}/runs/${run.id}`;
  const texts = (selector: string) => ui.page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').trim()));
  const attrs = (selector: string, name: string) => ui.page.$$eval(selector, (els, n) => els.map((e) => e.getAttribute(n) ?? ''), name);
  const click = (selector: string) => Promise.all([ui.page.waitForNavigation(), ui.page.click(selector)]);
  const noXss = async () => expect(await ui.page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();

  test('the runs really ran: one completed, one failed in its custom_code node', () => {
    expect({ status: completed.status, error: completed.error, activity: typeof completed.activity_id }).toEqual({
      status: 'completed',
      error: null,
      activity: 'string',
    });
    expect({ status: failed.status, node: failed.failed_node_id }).toEqual({ status: 'failed', node: 'custom_code' });
    expect(fx.workflowUrl.endsWith(flowPath())).toBe(true);
  });

  test('sign in from the flow list; the top bar links the flows; the list shows the flow', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/flows`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await page.type('#credential', org.apiKey);
    await click('button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/dashboard/flows');
    expect(await attrs('.topbar .sections a', 'href')).toEqual(['/dashboard', '/dashboard/flows', '/dashboard/jobs', '/dashboard/organization']);
    expect(await attrs('table.flows tbody tr', 'data-flow-id')).toEqual([fx.flowId]);
    const row = await texts('table.flows tbody tr:first-child td');
    expect(row.slice(0, 4)).toEqual(['VAT prices', `Adds VAT to prices ${FLOW_XSS_PROBE}`, '3', 'input → custom_code → stage']);
    expect(await page.$$('table.flows img')).toHaveLength(0);
    await noXss();
    await shot('flows-list.png');
    // The search narrows the list.
    await page.type('input[name=q]', 'no such flow');
    await click('form.filters button[type=submit]');
    expect(await page.$$('table.flows tbody tr')).toHaveLength(0);
    // The home page links the flows too.
    await page.goto(`${base}/dashboard`);
    expect(await attrs('main a[href="/dashboard/flows"]', 'href')).toEqual(['/dashboard/flows']);
  });

  test('the flow page: nodes in order with the code and timeout, the stage catalog, the source activity, the runs', async () => {
    const { page, base } = ui;
    await page.goto(`${base}/dashboard/flows`);
    await click(`table.flows a[href="${flowPath()}"]`);
    expect(new URL(page.url()).pathname).toBe(flowPath());
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('VAT prices');
    expect(await page.$eval('.flow-description', (e) => e.textContent)).toBe(`Adds VAT to prices ${FLOW_XSS_PROBE}`);
    expect(await attrs('ol.nodes li.node', 'data-node-id')).toEqual(['input', 'custom_code', 'stage']);
    expect(await page.$eval('li.node[data-node-id="custom_code"] pre.code', (e) => e.textContent)).toBe(FLOW_SCRIPT);
    expect(await page.$eval('li.node[data-node-id="custom_code"] .timeout', (e) => e.textContent)).toBe(`${FLOW_TIMEOUT_S} s`);
    expect(await page.$eval('li.node[data-node-id="stage"] a.catalog-link', (e) => [e.getAttribute('href'), e.textContent])).toEqual([
      `/dashboard/catalogs/${fx.catalogId}`,
      fx.catalogName,
    ]);
    expect(await page.$eval('a.source-activity', (e) => [e.getAttribute('href'), e.textContent])).toEqual([
      `/dashboard/catalogs/${fx.catalogId}/activities/${fx.activityId}`,
      'Title case and VAT prices',
    ]);
    // Newest first: the failed run, then the completed one.
    expect(await attrs('table.runs tbody tr', 'data-run-id')).toEqual([failed.id, completed.id]);
    expect(await texts('table.runs tbody tr td:nth-child(2)')).toEqual(['failed', 'completed']);
    expect(await texts('table.runs tbody tr td:nth-child(4)')).toEqual(['2', String(COMPLETED_ROWS)]);
    expect(await attrs('table.runs tbody tr td:nth-child(3) progress', 'value')).toEqual([String(failed.progress), '1']);
    await noXss();
    await shot('flow.png');
  });

  test('the completed run: progress, nodes, updates, the results table (values, JSON, metadata), pagination and the node selector', async () => {
    const { page, base } = ui;
    await page.goto(`${base}${flowPath()}`);
    await click(`table.runs a[href="${runPath(completed)}"]`);
    expect(await page.$eval('#run', (e) => e.getAttribute('data-status'))).toBe('completed');
    expect(await page.$eval('.title-row .badge', (e) => e.textContent)).toBe('completed');
    expect(await page.$eval('.run-progress progress', (e) => e.getAttribute('value'))).toBe('1');
    expect(await page.$('meta[name="dashboard-refresh-seconds"]')).toBeNull();
    expect(await attrs('table.run-nodes tbody tr', 'data-status')).toEqual(['completed', 'completed', 'completed']);
    expect(await texts('table.run-nodes tbody tr td:nth-child(5)')).toEqual([String(COMPLETED_ROWS), String(COMPLETED_ROWS), String(COMPLETED_ROWS)]);
    expect(await page.$eval('#updates', (e) => e.textContent)).toContain(`[custom_code] transformed ${COMPLETED_ROWS} rows`);
    // The results: the stage node's output (what reached the review), page 1 of 2.
    expect(await page.$eval('table.results', (e) => e.getAttribute('data-node-id'))).toBe('stage');
    expect(await texts('table.results thead th')).toEqual(['Row', 'price', 'sku', 'tags', 'title', '__note']);
    expect(await page.$$('table.results tbody tr')).toHaveLength(25);
    const first = await texts('table.results tbody tr:first-child td');
    expect(first).toEqual(['1', '36', 'ACC-001', '["vat-included"]', 'Desk Lamp', 'price with 20% VAT']);
    expect(await page.$eval('table.results tbody tr td[data-column="__note"]', (e) => e.className)).toBe('meta');
    // The probe in row 2 (title-cased by the script) is text, not an element.
    const probe = await page.$eval('table.results tbody tr:nth-child(2) td[data-column="title"]', (e) => ({
      text: e.textContent,
      imgs: e.querySelectorAll('img').length,
    }));
    expect(probe.imgs).toBe(0);
    expect(probe.text).toContain('<Img Src=X');
    await noXss();
    await shot('flow-run-completed.png');
    await click('.results-card nav.pager a[rel=next]');
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    expect(await texts('table.results tbody tr td:first-child')).toEqual(['26', '27', '28', '29', '30']);
    expect(await page.$eval('table.results tbody tr td[data-column="sku"]', (e) => e.textContent)).toBe('ACC-026');
    // The node selector: the input node's output is the rows as given.
    await page.selectOption('#node-select', 'input');
    await click('form.node-select button[type=submit]');
    expect(new URL(page.url()).searchParams.get('node')).toBe('input');
    expect(await page.$eval('table.results', (e) => e.getAttribute('data-node-id'))).toBe('input');
    expect(await texts('table.results thead th')).toEqual(['Row', 'price', 'sku', 'title']);
    expect(await texts('table.results tbody tr:first-child td')).toEqual(['1', '30', 'ACC-001', 'desk lamp']);
    await page.selectOption('#node-select', 'custom_code');
    await click('form.node-select button[type=submit]');
    expect(await texts('table.results tbody tr:first-child td')).toEqual(['1', '36', 'ACC-001', '["vat-included"]', 'Desk Lamp', 'price with 20% VAT']);
  });

  test('the failed run: the failed node and its error; only the input has an output', async () => {
    const { page, base } = ui;
    await page.goto(`${base}${flowPath()}`);
    await click(`table.runs a[href="${runPath(failed)}"]`);
    expect(await page.$eval('#run', (e) => e.getAttribute('data-status'))).toBe('failed');
    expect(await page.$eval('.failure .failed-node-id', (e) => e.textContent)).toBe('custom_code');
    const error = await page.$eval('.failure pre.run-error', (e) => e.textContent ?? '');
    expect(error).toContain("could not convert string to float: 'n/a'");
    expect(await attrs('table.run-nodes tbody tr', 'data-status')).toEqual(['completed', 'failed', 'pending']);
    expect(await page.$eval('table.run-nodes tr.failed-node', (e) => e.getAttribute('data-node-id'))).toBe('custom_code');
    expect(await page.$('#review-activity')).toBeNull();
    expect(await page.$eval('table.results', (e) => e.getAttribute('data-node-id'))).toBe('input');
    expect(await page.$$eval('#node-select option', (els) => els.map((e) => [e.getAttribute('value'), e.hasAttribute('disabled')]))).toEqual([
      ['input', false],
      ['custom_code', true],
      ['stage', true],
    ]);
    await shot('flow-run-failed.png');
  });

  test('the completed run links the review activity it left; the review page lists its staged changes', async () => {
    const { page, base } = ui;
    await page.goto(`${base}${runPath(completed)}`);
    await click('#review-activity');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/catalogs/${fx.catalogId}/activities/${completed.activity_id}`);
    expect(await page.$eval('#activity', (e) => e.getAttribute('data-activity-id'))).toBe(completed.activity_id);
    expect(await page.$eval('.counts a.count.status-pending .n', (e) => e.textContent)).toBe(String(COMPLETED_ROWS));
    expect(await page.$eval(`tbody.change tr[data-field="title"] td.after`, (e) => e.textContent)).toContain('Desk Lamp');
  });

  test('a running run refreshes itself (run and node rows seeded as running, no workflow)', async () => {
    const { page, base } = ui;
    const running = await FlowRun.query(testKnex()).insertAndFetch({
      id: newId(),
      flow_id: fx.flowId,
      organization_id: org.organizationId,
      catalog_id: fx.catalogId,
      status: 'running',
      nodes: completed.nodes,
      input_count: 1,
      progress: 0.4,
      current_step: 'custom_code',
      message: 'Running custom_code node custom_code',
      workflow_id: `flow-run-seeded`,
      updates: ['[custom_code] page 1 of 1'],
    });
    await FlowRunNode.query(testKnex()).insert([
      { run_id: running.id, node_id: 'input', position: 0, node_type: 'input', status: 'completed', output_count: 1, executions: 1, completed_at: new Date() },
      { run_id: running.id, node_id: 'custom_code', position: 1, node_type: 'custom_code', status: 'running', executions: 1, started_at: new Date() },
      { run_id: running.id, node_id: 'stage', position: 2, node_type: 'stage', status: 'pending' },
    ]);
    try {
      await page.goto(`${base}${runPath(running)}`);
      expect(await page.$eval('meta[name="dashboard-refresh-seconds"]', (e) => e.getAttribute('content'))).toBe('3');
      expect(await page.$eval('.run-progress progress', (e) => e.getAttribute('value'))).toBe('0.4');
      expect(await attrs('table.run-nodes tbody tr', 'data-status')).toEqual(['completed', 'running', 'pending']);
      expect(await page.$eval('#results', (e) => e.textContent)).toContain('Results appear when the run has completed.');
      await shot('flow-run-running.png');
      // The page script reloads it (a liveness bound, not a timing check).
      await page.waitForEvent('load', { timeout: 60_000 });
      expect(new URL(page.url()).pathname).toBe(runPath(running));
    } finally {
      await FlowRun.query(testKnex()).deleteById(running.id);
    }
  });

  test("404 for an unknown flow or a run under another flow; 403 for another organization's flow", async () => {
    const { page, base } = ui;
    expect((await page.goto(`${base}/dashboard/flows/${newId()}`))?.status()).toBe(404);
    expect((await page.goto(`${base}/dashboard/flows/not-a-uuid`))?.status()).toBe(404);
    expect((await page.goto(`${base}/dashboard/flows/${newId()}/runs/${completed.id}`))?.status()).toBe(404);
    const otherOrg = await createTestOrg('other flows org');
    const otherFlow = await request(base).get('/api/public/workflows').set(otherOrg.auth);
    expect(otherFlow.body.total).toBe(0);
    const res = await request(base).get(`/dashboard/flows/${fx.flowId}`);
    expect(res.status).toBe(302);
    const theirs = await createFlowFixture(testKnex(), base, otherOrg);
    const forbidden = await page.goto(`${base}/dashboard/flows/${theirs.flowId}`);
    expect(forbidden?.status()).toBe(403);
    expect(await page.$eval('h1', (e) => e.textContent)).toContain('403');
  });
});
