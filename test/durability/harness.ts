/**
 * Harness of the durability tests (and of the worker-crash replay fixture): a Temporal dev server
 * on a fixed port with its SQLite file in a temp folder (so it can be stopped and started again
 * with its state), real worker PROCESSES (`node --import tsx temporal/worker.ts`, the production
 * entrypoint) on the PostgreSQL test database with the real deterministic engine over the offline
 * archive, and jobs of real product items.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ChildProcess, spawn } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { loadConfig, REPO_ROOT } from '../../src/config';
import { pageItem, PAGES_SCHEMA } from '../../src/eval/pages';
import { createEnrichmentJob } from '../../src/services/enrichment-jobs';
import { EnrichmentTuning, TemporalJobRunner } from '../../temporal/client';
import { DevServerHandle, startDevServer } from '../../temporal/dev-server';
import { SHARED_DATA } from '../helpers/data';
import { TEST_DATABASE_URL } from '../setup/env';

/** A free TCP port on 127.0.0.1 (bound then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A dev server that can be restarted on the same port over the same SQLite file. */
export class RestartableTemporal {
  handle: DevServerHandle | null = null;
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'durability-temporal-'));
  constructor(readonly port: number, readonly uiPort: number) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Starts (or starts again) the server; resolves once its frontend answers. */
  async start(): Promise<void> {
    this.handle = await startDevServer({
      binary: path.join(loadConfig().temporalCliCache, 'temporal'), dataDir: this.dataDir, namespace: 'default',
      port: this.port, uiPort: this.uiPort, log: () => undefined, headless: true,
      sqlitePragmas: { journal_mode: 'wal', synchronous: 'off' },
    });
  }

  /** Stops the server (SIGTERM); its state stays in the SQLite file. */
  async stop(): Promise<void> {
    await this.handle?.stop();
    this.handle = null;
  }

  /** Stops the server and removes its folder. */
  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** A worker process. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<number | string | null>;
  /** Everything the process printed (pino JSON lines). */
  output(): string;
}

/**
 * Spawns `node --import tsx temporal/worker.ts` against `address` and the test database, and
 * waits for its "worker running" line.
 * @throws Error when the process exits first or does not get ready within 60 s
 */
export async function spawnWorker(address: string, taskQueue: string): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'temporal/worker.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', TEMPORAL_TASK_QUEUE: taskQueue,
      DATABASE_URL: TEST_DATABASE_URL, LOG_LEVEL: 'info', ENRICH_CONCURRENCY: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const deadline = Date.now() + 60_000;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!out.includes('worker running')) {
    if (gone) throw new Error(`worker exited before it was ready:\n${out.slice(-2000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker not ready in 60 s:\n${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, exited, output: () => out };
}

/** Stops a worker process gracefully (SIGTERM), SIGKILL after 15 s. */
export async function stopWorker(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  worker.child.kill('SIGTERM');
  const killer = setTimeout(() => worker.child.kill('SIGKILL'), 15_000);
  await worker.exited;
  clearTimeout(killer);
}

/** The 98 labelled product pages of the Zyte archive as enrich items (tier A: name + URL hints). */
export function archiveItems(): Array<Record<string, unknown>> {
  const dir = path.join(SHARED_DATA, 'zyte-product-extraction');
  const index: Array<Record<string, any>> = JSON.parse(fs.readFileSync(path.join(dir, 'page-index.json'), 'utf8'));
  const labels: Record<string, Record<string, any>> = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8'));
  return index.map((p) => pageItem(p as any, labels[p.id], 'A'));
}

/** A Temporal client on `address` (close its connection when done). */
export async function clientFor(address: string): Promise<Client> {
  return new Client({ connection: await Connection.connect({ address }), namespace: 'default' });
}

/**
 * Creates an async job of `count` real items (the archive's pages, repeated) through the real
 * service and starts it with `tuning`.
 */
export async function createArchiveJob(knex: Knex, client: Client, taskQueue: string, organizationId: string, count: number, tuning: EnrichmentTuning): Promise<{ jobId: string; workflowId: string; runner: TemporalJobRunner }> {
  const pages = archiveItems();
  const items = Array.from({ length: count }, (_, i) => pages[i % pages.length]);
  const runner = new TemporalJobRunner(client, { taskQueue, enrichConcurrency: 2 }, tuning);
  const scope = { organizationId, principal: { kind: 'api_key' as const, id: 'test', organizationIds: [organizationId] } };
  const job = await createEnrichmentJob({ knex, jobRunner: runner }, scope, { items, async_mode: true, output_schema: PAGES_SCHEMA, speed: 'fast' });
  return { jobId: job.job_id as string, workflowId: `enrichment-${job.job_id}`, runner };
}

/** The invariants of a finished job, from SQL: one result per item, counters and credits from the rows. */
export async function jobInvariants(knex: Knex, jobId: string) {
  const job = await knex('enrichment_jobs').where({ id: jobId }).first();
  const [rows] = await knex('enrichment_rows').where({ job_id: jobId }).select(
    knex.raw('count(*)::int as rows'),
    knex.raw("count(*) filter (where status = 'pending')::int as pending"),
    knex.raw("count(*) filter (where status = 'succeeded')::int as succeeded"),
    knex.raw('count(result)::int as with_result'),
    knex.raw('count(distinct row_index)::int as distinct_rows'),
  );
  return { job, rows: rows as unknown as { rows: number; pending: number; succeeded: number; with_result: number; distinct_rows: number } };
}
