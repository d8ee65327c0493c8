/**
 * `npm run ops -- <command>`: operator commands over PostgreSQL (DATABASE_URL) and Temporal
 * (TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE / TEMPORAL_TASK_QUEUE). The logic is in temporal/ops-commands.ts.
 *
 *   failed [--limit N]                 failed jobs and flow runs (PostgreSQL + Temporal visibility), JSON lines
 *   stuck [--minutes N]                running jobs without progress for N minutes (default 15)
 *   export-history <workflow-id> <file> [run-id]   a run's history as a replay fixture
 *   replay <file>                      replay a history against the current workflow code;
 *                                      exit 1 on nondeterminism (or any replay error)
 *   resume <job_id>                    start a new run of a failed job for its pending rows
 *   rerun <run_id> [--from-node N]     rerun a failed flow run from its failed node (or node N)
 *   org create <name> [--key ck_…]     a new organization with one API key (printed once)
 *   key create <organization_id> [--name N]   a new API key of an organization (printed once)
 *   key revoke <key_id>                revoke a key: refused from the next request on
 *   person create <organization_id> <email> --role R [--name N] [--password P]
 *                                      a person who signs in to the console
 *   person reset-password <organization_id> <email> [--password P]
 *                                      a new password (random unless given, printed once); ends their sessions
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../config';
import { createKnex } from '../db';
import { createOrganizationWithKey } from '../services/access/auth';
import { createApiKey, revokeApiKeyById } from '../services/access/api-keys';
import { createPerson, resetPassword } from '../services/access/people';
import { TemporalJobRunner } from '../../temporal/client';
import { exportHistory } from '../../temporal/export-history';
import { listFailedFlowRuns, listFailedJobs, listStuckJobs, replayHistoryFile, resumeJob } from '../../temporal/ops-commands';
import { rerunFlowRun } from '../services/flows/runs';

const USAGE = `usage: npm run ops -- <command>
  failed [--limit N]
  stuck [--minutes N]
  export-history <workflow-id> <file> [run-id]
  replay <file>
  resume <job_id>
  rerun <run_id> [--from-node N]
  org create <name> [--key ck_…]
  key create <organization_id> [--name N]
  key revoke <key_id>
  person create <organization_id> <email> --role viewer|editor|reviewer|admin [--name N] [--password P]
  person reset-password <organization_id> <email> [--password P]`;

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
  if (command === 'org' || command === 'key') return runAccess(command, args, print);
  if (command === 'person') return runPeople(args, print);
  if (!['failed', 'stuck', 'export-history', 'resume', 'rerun'].includes(command ?? '')) {
    print(USAGE);
    return 2;
  }
  const config = loadConfig();
  const connection = await Connection.connect({ address: config.temporalAddress });
  const client = new Client({ connection, namespace: config.temporalNamespace });
  const knex = createKnex(config.databaseUrl, { min: 0, max: 2 });
  try {
    switch (command) {
      case 'failed': {
        const limit = flag(args, '--limit', 50);
        printJobs([...(await listFailedJobs(knex, client, limit)), ...(await listFailedFlowRuns(knex, client, limit))], 'no failed jobs or flow runs', print);
        return 0;
      }
      case 'stuck':
        printJobs(await listStuckJobs(knex, client, flag(args, '--minutes', 15)), 'no stuck jobs', print);
        return 0;
      case 'export-history': {
        const [workflowId, file, runId] = args;
        if (!workflowId || !file) return (print(USAGE), 2);
        const events = await exportHistory(client, workflowId, path.resolve(file), runId);
        print(JSON.stringify({ workflow_id: workflowId, file, events }));
        return 0;
      }
      case 'rerun': {
        if (!args[0]) return (print(USAGE), 2);
        const runner = new TemporalJobRunner(client, config);
        print(JSON.stringify(await rerunFlowRun({ knex, jobRunner: runner }, args[0], option(args, '--from-node'))));
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

/** One JSON line per job, or `empty` when there is none (an empty output reads like a hang). */
function printJobs(jobs: unknown[], empty: string, print: (line: string) => void): void {
  if (jobs.length === 0) print(empty);
  for (const job of jobs) print(JSON.stringify(job));
}

/** The value after `name` in `args`, or undefined. */
function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}

/**
 * `org create` and `key create|revoke`: organization and key management for
 * operators, over PostgreSQL only. Prints one JSON line; a created key is printed once.
 * @returns the exit code (0 ok, 2 usage)
 */
async function runAccess(command: string, args: string[], print: (line: string) => void): Promise<number> {
  const [verb, target] = args;
  const valid = (command === 'org' && verb === 'create' && target) || (command === 'key' && (verb === 'create' || verb === 'revoke') && target);
  if (!valid) return (print(USAGE), 2);
  const knex = createKnex(loadConfig().databaseUrl, { min: 0, max: 2 });
  try {
    if (command === 'org') {
      const created = await createOrganizationWithKey(knex, target, option(args, '--key') ?? null);
      print(JSON.stringify({ organization_id: created.organizationId, api_key: created.apiKey, created: created.created }));
    } else if (verb === 'create') {
      const { key, apiKey } = await createApiKey(knex, target, option(args, '--name') ?? 'operator key');
      print(JSON.stringify({ organization_id: key.organization_id, key_id: key.id, key_prefix: key.key_prefix, api_key: apiKey }));
    } else {
      const key = await revokeApiKeyById(knex, target);
      print(JSON.stringify({ key_id: key.id, organization_id: key.organization_id, revoked_at: key.revoked_at }));
    }
    return 0;
  } finally {
    await knex.destroy();
  }
}

/**
 * `person create` and `person reset-password`: people of an organization for
 * operators, over PostgreSQL only. Prints one JSON line; a generated password is printed once.
 * @returns the exit code (0 ok, 2 usage)
 * @throws ValidationError / ConflictError / NotFoundError of the people service (exit 1 with its message)
 */
async function runPeople(args: string[], print: (line: string) => void): Promise<number> {
  const [verb, organizationId, email] = args;
  if (!(verb === 'create' || verb === 'reset-password') || !organizationId || !email) return (print(USAGE), 2);
  const knex = createKnex(loadConfig().databaseUrl, { min: 0, max: 2 });
  try {
    if (verb === 'create') {
      const password = option(args, '--password') ?? null;
      const person = await createPerson(knex, organizationId, { email, role: option(args, '--role') ?? '', name: option(args, '--name'), password });
      print(
        JSON.stringify({ person_id: person.id, organization_id: organizationId, email: person.email, role: person.role, has_password: person.has_password }),
      );
    } else {
      const { person, password } = await resetPassword(knex, organizationId, email, option(args, '--password'));
      print(JSON.stringify({ person_id: person.id, email: person.email, password }));
    }
    return 0;
  } finally {
    await knex.destroy();
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
