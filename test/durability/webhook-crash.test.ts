/**
 * Durability of a job's webhook through real processes (docs/testing.md, "Durability: what each test proves and how it would fail"): the job is
 * created over HTTP on the production API entrypoint (`src/main.ts`) and run by the production
 * worker (`temporal/worker.ts`). Its receiver is first down (nothing listens on its port), then
 * up but holding the next attempt open while that worker is SIGKILLed; a second worker retries.
 *
 * What the receiver, not the sender, observes: every attempt carries the same `webhook-id` and a
 * valid Standard-Webhooks signature, the event reached it more than once (so the dedupe matters)
 * and its dedupe by `webhook-id` processes the event exactly once; the job itself is unchanged
 * by the failed deliveries. It fails if a retry minted a new id (the receiver would process the
 * event twice), if a signature did not verify, or if the killed worker's attempt were lost.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../src/services/enrichment/webhooks';
import { spawnApi, spawnWorker, stopWorker } from '../fixtures/worker-cluster';
import { createTestOrg } from '../helpers/db';
import { waitUntil } from '../helpers/wait';
import { useTestCluster } from '../fixtures/cluster-suite';

const TASK_QUEUE = 'test-webhook-durability';

const cluster = useTestCluster({
  setUp() {
    // The worker processes inherit it: a plain-http loopback receiver, as in development.
    process.env.ALLOW_HTTP_WEBHOOKS = 'true';
  },
  tearDown() {
    delete process.env.ALLOW_HTTP_WEBHOOKS;
  },
});

/** A port that nothing listens on now (taken from the kernel, then released). */
async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** One request as the receiver saw it. */
interface Seen {
  id: string;
  verified: boolean;
  answered: number | null;
}

/**
 * The receiver as a real one is written: verifies each request's signature, processes an event
 * only the first time its `webhook-id` is seen (the dedupe Standard Webhooks asks receivers to
 * keep), answers 200. Its first request is held open (never answered) until the test says.
 */
async function startReceiver(port: number, secret: string) {
  const seen: Seen[] = [];
  const processed = new Map<string, number>();
  let held: http.ServerResponse | null = null;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const entry: Seen = { id: String(req.headers['webhook-id']), verified: verifyWebhook(secret, req.headers, body), answered: null };
      seen.push(entry);
      if (seen.length === 1) {
        held = res;
        return;
      }
      if (entry.verified && !processed.has(entry.id)) processed.set(entry.id, JSON.parse(body).total_items);
      entry.answered = 200;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    seen,
    processed,
    held: () => held,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('receiver down, then a worker killed mid-delivery: one webhook-id, valid signatures, the event processed once', async () => {
  const { knex, temporal } = cluster;
  const org = await createTestOrg('webhook durability');
  const secret = (await knex('organizations').where({ id: org.organizationId }).first('webhook_secret')).webhook_secret as string;
  const port = await freePort();
  const first = cluster.track(await spawnWorker(temporal, TASK_QUEUE));
  const api = cluster.track(await spawnApi(temporal, TASK_QUEUE));
  const created = await fetch(`http://127.0.0.1:${api.port}/api/public/enrich`, {
    method: 'POST',
    headers: { ...org.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      items: [{ name: 'Oak table' }, { name: 'Pine shelf' }],
      output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }],
      async_mode: true,
      webhook_url: `http://127.0.0.1:${port}/hook`,
    }),
  });
  expect(created.status).toBe(200);
  const jobId = ((await created.json()) as { job_id: string }).job_id;
  const poll = async () =>
    (await (await fetch(`http://127.0.0.1:${api.port}/api/public/enrich/${jobId}`, { headers: org.auth })).json()) as {
      status: string;
      successful: number;
      credits_used: number;
      webhook?: { delivered: boolean; attempts: Array<{ error: string | null; status_code: number | null }> };
    };

  // Down: the job completes and its first attempt is refused (recorded on the job).
  const down = await waitUntil(
    async () => {
      const job = await poll();
      return job.webhook?.attempts.length ? job : null;
    },
    'a refused attempt',
    120_000,
  );
  expect(down.status).toBe('completed');
  expect(down.webhook!.delivered).toBe(false);

  // Up: the next attempt is held open and its worker is killed while it waits for the answer.
  const rx = await startReceiver(port, secret);
  try {
    await waitUntil(() => rx.held(), 'an attempt held open at the receiver', 120_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = cluster.track(await spawnWorker(temporal, TASK_QUEUE));
    const delivered = await waitUntil(
      async () => {
        const job = await poll();
        return job.webhook?.delivered ? job : null;
      },
      'the delivery through the second worker',
      240_000,
    );
    await stopWorker(second);

    expect(rx.seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(rx.seen.map((s) => s.id)).size).toBe(1);
    expect(rx.seen.every((s) => s.verified)).toBe(true);
    expect([...rx.processed.keys()]).toEqual([rx.seen[0].id]);
    expect(rx.processed.get(rx.seen[0].id)).toBe(2);
    // The failed deliveries changed nothing on the job.
    expect(delivered).toMatchObject({ status: 'completed', successful: down.successful, credits_used: down.credits_used });
  } finally {
    await rx.close();
  }
}, 600_000);
