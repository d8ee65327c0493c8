/**
 * Durability of a flow run (a killed worker resumes the run without
 * running a finished node again): the worker PROCESS is SIGKILLed while the custom_code node is
 * half way through its pages. Its sandboxed interpreter dies with it; a new worker resumes the
 * node at its next page (pages commit with their rows), the input node is not run again, and
 * the run completes with every row exactly once in every node's output and staged once.
 *
 * Real everything, as test/durability/apply-crash.test.ts: the production worker entrypoint
 * (`node --import tsx temporal/worker.ts`) with the real Python sandbox, a dev server, the
 * PostgreSQL test database; node activities get a 3 s heartbeat timeout.
 */
import { executeFlow } from '../../src/services/flows/runs';
import { TemporalJobRunner } from '../../temporal/client';
import { flowRunWorkflowId } from '../../src/contracts/workflows';
import { saveCodeFlow } from '../fixtures/flows';
import { spawnWorker } from '../fixtures/worker-cluster';
import { createTestCatalog } from '../helpers/catalogs';
import { sandboxProcessesOf } from '../helpers/processes';
import { scopeOf } from '../helpers/review-apply';
import { waitUntil } from '../helpers/wait';

const TASK_QUEUE = 'test-flow-durability';
const ROWS = 6000;
const CODE = `
import time
def transform(rows):
    time.sleep(0.7)
    print(f"page starting {rows[0]['sku']}")
    return [{**r, "title": r["title"].upper()} for r in rows]
`;
import { useTestCluster } from '../fixtures/cluster-suite';

let runner: TemporalJobRunner;

const cluster = useTestCluster({
  organization: 'flow durability',
  setUp({ client }) {
    runner = new TemporalJobRunner(
      client,
      { taskQueue: TASK_QUEUE, enrichConcurrency: 2 },
      {},
      {},
      {},
      { heartbeat_timeout_s: 3, retry_initial_interval_s: 0.5 },
    );
  },
});

test('a worker killed in the middle of a custom_code node: the run resumes at the next page and completes, every row once', async () => {
  const { knex, temporal, organizationId } = cluster;
  const catalogId = await createTestCatalog(organizationId);
  const scope = scopeOf(organizationId);
  const flow = await saveCodeFlow(knex, scope, catalogId, CODE, 'slow pages', 600);
  const first = cluster.track(await spawnWorker(temporal, TASK_QUEUE));
  const input = Array.from({ length: ROWS }, (_, i) => ({ sku: `D${String(i).padStart(5, '0')}`, title: `item ${i}` }));
  const { run } = await executeFlow({ knex: knex, jobRunner: runner }, scope, flow.id, { input });

  await waitUntil(
    async () => (await knex('flow_run_nodes').where({ run_id: run.id, node_id: 'custom_code' }).first()).pages_done >= 2,
    'two pages done',
    60_000,
    50,
  );
  // The killed worker's sandbox is running now (one interpreter serves the node's pages); the
  // interpreter does not outlive its worker (bubblewrap --die-with-parent). It is frozen first
  // (SIGSTOP), so no further page can finish before the kill, however fast the machine: at most
  // the page whose answer the worker already holds commits, and the node is certainly mid-way.
  const firstPid = first.child.pid!;
  const sandbox = sandboxProcessesOf(firstPid);
  expect(sandbox.length).toBeGreaterThan(0);
  for (const entry of sandbox) process.kill(Number(entry.split(':')[0]), 'SIGSTOP');
  first.child.kill('SIGKILL');
  await first.exited;
  await waitUntil(() => sandboxProcessesOf(firstPid).length === 0, 'the sandbox of the killed worker to be gone', 10_000);
  const atKill = await knex('flow_run_nodes').where({ run_id: run.id, node_id: 'custom_code' }).first();
  const [{ count: rowsAtKill }] = await knex('flow_run_rows').where({ run_id: run.id, node_id: 'custom_code' }).count();
  // Pages commit whole: the rows written are exactly the pages counted done.
  expect(Number(rowsAtKill)).toBe(atKill.pages_done * 1000);
  expect(atKill.output_count).toBe(atKill.pages_done * 1000);
  expect(atKill.pages_done).toBeLessThan(ROWS / 1000);

  const second = cluster.track(await spawnWorker(temporal, TASK_QUEUE));
  await runner.waitForClose(flowRunWorkflowId(run.id));
  const done = await knex('flow_runs').where('id', run.id).first();
  expect(done.status).toBe('completed');
  const nodes = await knex('flow_run_nodes').where({ run_id: run.id }).orderBy('position');
  expect(nodes.map((n) => [n.node_id, n.status, n.executions, n.output_count])).toEqual([
    ['input', 'completed', 1, ROWS],
    ['custom_code', 'completed', 2, ROWS],
    ['stage', 'completed', 1, ROWS],
  ]);
  const perNode = await knex('flow_run_rows')
    .where({ run_id: run.id })
    .groupBy('node_id')
    .select(
      'node_id',
      knex.raw('count(*)::int AS rows'),
      knex.raw('count(DISTINCT row_index)::int AS distinct_rows'),
      knex.raw("count(*) FILTER (WHERE data->>'title' LIKE 'ITEM %')::int AS upper"),
    );
  expect(Object.fromEntries(perNode.map((r) => [r.node_id, [r.rows, r.distinct_rows, r.upper]]))).toEqual({
    input: [ROWS, ROWS, 0],
    custom_code: [ROWS, ROWS, ROWS],
    stage: [ROWS, ROWS, ROWS],
  });
  // Every row staged once; every page's print recorded once (an uncommitted page's print went with it).
  const [{ staged, skus }] = await knex('staged_changes')
    .where('activity_id', done.activity_id)
    .select(knex.raw('count(*)::int AS staged'), knex.raw("count(DISTINCT after_data->>'sku')::int AS skus"));
  expect({ staged, skus }).toEqual({ staged: ROWS, skus: ROWS });
  expect(done.updates.filter((u: string) => u.includes('page starting'))).toHaveLength(ROWS / 1000);
  expect(sandboxProcessesOf(firstPid)).toEqual([]);
  expect(sandboxProcessesOf(second.child.pid!)).toEqual([]);
});
