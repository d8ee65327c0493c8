/**
 * `npm run ops -- <command>`: operator commands over PostgreSQL (DATABASE_URL) and Temporal
 * (TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE / TEMPORAL_TASK_QUEUE). The logic is in temporal/ops.ts.
 *
 *   failed [--limit N]                 failed jobs (PostgreSQL + Temporal visibility), JSON lines
 *   stuck [--minutes N]                running jobs without progress for N minutes (default 15)
 *   export-history <workflow-id> <file> [run-id]   a run's history as a replay fixture
 *   replay <file>                      replay a history against the current workflow code;
 *                                      exit 1 on nondeterminism (or any replay error)
 *   resume <job_id>                    start a new run of a failed job for its pending rows
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../config';
import { createKnex } from '../db';
import { TemporalJobRunner } from '../../temporal/client';
import { exportHistory } from '../../temporal/export-history';
import { listFailedJobs, listStuckJobs, replayHistoryFile, resumeJob } from '../../temporal/ops';

const USAGE = `usage: npm run ops -- <command>
  failed [--limit N]
  stuck [--minutes N]
  export-history <workflow-id> <file> [run-id]
  replay <file>
  resume <job_id>`;

function flag(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} needs a non-negative number`);
  return n;
}

/**
 * Runs one command. @returns the process exit code (0 ok, 1 failure/nondeterminism, 2 usage)
 */
export async function runOps(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'replay') {
    if (!args[0]) return (print(USAGE), 2);
    const outcome = await replayHistoryFile(path.resolve(args[0]));
    print(JSON.stringify({ file: args[0], ...outcome }));
    return outcome.ok ? 0 : 1;
  }
  if (!['failed', 'stuck', 'export-history', 'resume'].includes(command ?? '')) {
    print(USAGE);
    return 2;
  }
  const config = loadConfig();
  const connection = await Connection.connect({ address: config.temporalAddress });
  const client = new Client({ connection, namespace: config.temporalNamespace });
  const knex = createKnex(config.databaseUrl, { min: 0, max: 2 });
  try {
    switch (command) {
      case 'failed':
        for (const job of await listFailedJobs(knex, client, flag(args, '--limit', 50))) print(JSON.stringify(job));
        return 0;
      case 'stuck':
        for (const job of await listStuckJobs(knex, client, flag(args, '--minutes', 15))) print(JSON.stringify(job));
        return 0;
      case 'export-history': {
        const [workflowId, file, runId] = args;
        if (!workflowId || !file) return (print(USAGE), 2);
        const events = await exportHistory(client, workflowId, path.resolve(file), runId);
        print(JSON.stringify({ workflow_id: workflowId, file, events }));
        return 0;
      }
      case 'resume': {
        if (!args[0]) return (print(USAGE), 2);
        const runner = new TemporalJobRunner(client, config);
        print(JSON.stringify({ job_id: args[0], ...(await resumeJob(knex, runner, client, args[0])) }));
        return 0;
      }
    }
    return 2;
  } finally {
    await knex.destroy();
    await connection.close();
  }
}

if (require.main === module) {
  runOps(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err?.message ?? err);
      process.exit(1);
    },
  );
}
