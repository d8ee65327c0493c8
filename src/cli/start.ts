/**
 * `npm start`: the whole service on one machine, for development and demos.
 *
 *   0. checks the programs the service runs and, as root with apt-get, installs the Debian
 *      packages of missing ones (bubblewrap, python3, chromium; unless START_INSTALL_PACKAGES=false;
 *      ./start-packages.ts); what stays missing is a capability that is off, with the reason;
 *   1. builds the Temporal CLI when missing (temporal/cli-binary.ts);
 *   2. unless TEMPORAL_ADDRESS is set, starts the Temporal dev server (SQLite in .data/, Web UI)
 *      and registers the search attributes (temporal/dev-server.ts);
 *   3. starts the local PostgreSQL cluster when it is down, creates the database when missing and applies the migrations;
 *   4. on first start creates a development organization and API key (or registers
 *      BOOTSTRAP_API_KEY), kept in .data/dev-api-key so later starts print the same key;
 *   5. runs the API (src/main.ts) and the worker (temporal/worker.ts) as child processes,
 *      restarting a crashed child with backoff; pids in .data/pids/{api,worker,temporal}.pid.
 *      From the sources (`npm start`) the children run through tsx; run from the build
 *      (`npm run start:prod`, i.e. `node dist/src/cli/start.js`) they are the compiled
 *      dist/src/main.js and dist/temporal/worker.js under plain node;
 *   6. prints the banner (./start-banner.ts): state, research sources, every capability with its
 *      state and reason, the URLs and the key. Ctrl-C / SIGTERM stops the children, then the dev server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ChildProcess, spawn } from 'node:child_process';
import { Config, loadConfig, REPO_ROOT } from '../config';
import { createKnex, ensureDatabase, migrateLatest } from '../db';
import { createOrganizationWithKey } from '../services/access/auth';
import { configuredSources, describeSources } from '../services/research-archives/sources';
import { ensureLocalPostgres } from '../lib/local-postgres';
import { capabilityReport } from '../services/capabilities';
import { startBanner } from './start-banner';
import { ensureServicePackages } from './start-packages';
import { ensureTemporalCli } from '../../temporal/cli-binary';
import { DevServerHandle, frontendAnswers, startDevServer } from '../../temporal/dev-server';

const log = (line: string): void => console.log(`[start] ${line}`);

/** A restart waits 1 s, doubling to at most 30 s; a child that ran 60 s resets the wait. */
const RESTART_MIN_MS = 1000;
const RESTART_MAX_MS = 30_000;
const HEALTHY_RUN_MS = 60_000;
/** Children get this long to stop after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 15_000;

/** The state of one `npm start` run: its configuration, where pid files go, and whether it is stopping. */
interface StartRun {
  config: Config;
  pidDir: string;
  stopping: boolean;
}

function pidFile(run: StartRun, name: string): string {
  return path.join(run.pidDir, `${name}.pid`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops processes left by an earlier `npm start` that was killed hard: a pid file whose process
 * still runs one of our commands (checked in /proc, so a reused pid is never signalled).
 */
async function stopLeftovers({ pidDir }: StartRun): Promise<void> {
  if (!fs.existsSync(pidDir)) return;
  for (const file of fs.readdirSync(pidDir).filter((f) => f.endsWith('.pid'))) {
    const pid = Number(fs.readFileSync(path.join(pidDir, file), 'utf8').trim());
    fs.rmSync(path.join(pidDir, file), { force: true });
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) continue;
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    if (!/src\/main\.[jt]s|temporal\/worker\.[jt]s|server start-dev/.test(cmdline)) continue;
    log(`stopping leftover ${file.replace('.pid', '')} process ${pid} from an earlier start`);
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** A supervised child process (API or worker). */
interface Supervised {
  name: string;
  child: ChildProcess | null;
  exited: Promise<void>;
}

/**
 * How to run one of our entrypoints, given as a path relative to `src/` (e.g. `main`,
 * `../temporal/worker`): the compiled sibling under plain node when this file is itself compiled
 * (tsx is a development dependency), else the TypeScript source through tsx.
 */
function nodeArgs(entry: string): string[] {
  const compiled = path.extname(__filename) === '.js';
  const script = path.relative(REPO_ROOT, path.join(__dirname, '..', entry + (compiled ? '.js' : '.ts')));
  return compiled ? ['--enable-source-maps', script] : ['--import', 'tsx', script];
}

/**
 * Runs `node <args>` ({@link nodeArgs}) in its own process group (a terminal's Ctrl-C reaches
 * only this supervisor, which stops children in order), restarting it with backoff when it exits
 * while the service is not stopping.
 */
function supervise(run: StartRun, name: string, args: string[]): Supervised {
  const entry: Supervised = { name, child: null, exited: Promise.resolve() };
  let delay = RESTART_MIN_MS;
  const launch = (): void => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: process.env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    entry.child = child;
    fs.writeFileSync(pidFile(run, name), String(child.pid));
    entry.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        resolve();
        if (run.stopping) return;
        if (Date.now() - started > HEALTHY_RUN_MS) delay = RESTART_MIN_MS;
        log(`${name} exited (${signal ?? `code ${code}`}); restarting in ${delay / 1000} s`);
        setTimeout(() => !run.stopping && launch(), delay);
        delay = Math.min(delay * 2, RESTART_MAX_MS);
      });
    });
  };
  launch();
  return entry;
}

/** SIGTERM, then SIGKILL after {@link STOP_GRACE_MS}; resolves when the child is gone. */
async function stopChild(run: StartRun, entry: Supervised): Promise<void> {
  const child = entry.child;
  if (child && child.exitCode === null && child.signalCode === null) {
    log(`stopping ${entry.name} (pid ${child.pid})`);
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await entry.exited;
    clearTimeout(killer);
  }
  fs.rmSync(pidFile(run, entry.name), { force: true });
}

/** The development API key: BOOTSTRAP_API_KEY, else the one stored by an earlier start, else new. */
async function developmentKey(config: Config): Promise<{ apiKey: string; created: boolean }> {
  const keyFile = path.join(config.dataDir, 'dev-api-key');
  const stored = fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8').trim() || null : null;
  const knex = createKnex(config.databaseUrl, { min: 0, max: 1 });
  try {
    const { apiKey, created } = await createOrganizationWithKey(knex, 'Development', config.bootstrapApiKey ?? stored);
    fs.writeFileSync(keyFile, apiKey + '\n', { mode: 0o600 });
    return { apiKey, created };
  } finally {
    await knex.destroy();
  }
}

/** Polls the API's /healthz until it answers 200 (true) or `timeoutMs` passes (false). */
async function apiAnswers(run: StartRun, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !run.stopping) {
    try {
      if ((await fetch(`http://127.0.0.1:${run.config.port}/healthz`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

/**
 * Polls the API's /readyz until it answers 200 or `timeoutMs` passes: the checks (PostgreSQL,
 * Temporal, a worker polling the task queue) and the indexed archives it reports, or null when
 * it never answered.
 */
async function readiness(run: StartRun, timeoutMs: number): Promise<{ ready: boolean; checks: Record<string, string>; indexed?: { ready: number } } | null> {
  const deadline = Date.now() + timeoutMs;
  let last: { ready: boolean; checks: Record<string, string>; indexed?: { ready: number } } | null = null;
  while (Date.now() < deadline && !run.stopping) {
    try {
      const res = await fetch(`http://127.0.0.1:${run.config.port}/readyz`);
      const body = (await res.json()) as { checks: Record<string, string>; research?: { indexed_archives?: { ready: number } | null } };
      last = { ready: res.ok, checks: body.checks, indexed: body.research?.indexed_archives ?? undefined };
      if (res.ok) return last;
    } catch {
      // not answering yet
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  return last;
}

/** Starts the service (see the file comment). Long on purpose: the start-up steps in their order. */
async function main(): Promise<void> {
  const config = loadConfig();
  const run: StartRun = { config, pidDir: path.join(config.dataDir, 'pids'), stopping: false };
  fs.mkdirSync(run.pidDir, { recursive: true });
  await stopLeftovers(run);

  log(
    config.startInstallPackages
      ? 'checking the programs the service runs...'
      : 'checking the programs the service runs (START_INSTALL_PACKAGES=false: nothing is installed)...',
  );
  const notInstalled = ensureServicePackages(config, { log });

  let devServer: DevServerHandle | null = null;
  let uiUrl: string | null = null;
  if (config.startLocalTemporal) {
    log('checking the Temporal CLI...');
    const binary = await ensureTemporalCli(config.temporalCliCache, log);
    log(`Temporal CLI: ${binary}`);
    const [host, portText] = config.temporalAddress.split(':');
    const port = Number(portText);
    uiUrl = `http://${host}:${port + 1000}`;
    if (await frontendAnswers(config.temporalAddress)) {
      log(`a Temporal server already answers at ${config.temporalAddress}; using it`);
    } else {
      devServer = await startDevServer({ binary, dataDir: config.dataDir, namespace: config.temporalNamespace, ip: host, port, uiPort: port + 1000, log });
      fs.writeFileSync(pidFile(run, 'temporal'), String(devServer.pid));
      log(`Temporal dev server ready at ${devServer.address}`);
      void devServer.exited.then((code) => {
        if (!run.stopping) log(`Temporal dev server exited unexpectedly (${code}); see ${path.join(config.dataDir, 'temporal.log')}; stop with Ctrl-C`);
      });
    }
  } else {
    log(`using Temporal at ${config.temporalAddress} (TEMPORAL_ADDRESS); no local dev server`);
  }

  const safeUrl = config.databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  log(`PostgreSQL: ${safeUrl}`);
  await ensureLocalPostgres(config.databaseUrl, log);
  if (await ensureDatabase(config.databaseUrl)) log('created the database');
  const knex = createKnex(config.databaseUrl, { min: 0, max: 1 });
  try {
    const applied = await migrateLatest(knex);
    log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'migrations up to date');
  } finally {
    await knex.destroy();
  }
  const { apiKey, created } = await developmentKey(config);
  log(created ? 'created the development organization and its API key' : 'development organization present');

  const api = nodeArgs('main');
  const worker = nodeArgs('../temporal/worker');
  log(`starting the API (${api[api.length - 1]}) and the worker (${worker[worker.length - 1]})...`);
  const children = [supervise(run, 'api', api), supervise(run, 'worker', worker)];

  const shutdown = async (signal: string): Promise<void> => {
    if (run.stopping) return;
    run.stopping = true;
    log(`${signal}: stopping`);
    await Promise.all(children.map((child) => stopChild(run, child)));
    if (devServer) {
      log(`stopping the Temporal dev server (pid ${devServer.pid})`);
      await devServer.stop();
      fs.rmSync(pidFile(run, 'temporal'), { force: true });
    }
    log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const up = await apiAnswers(run, 120_000);
  if (run.stopping) return;
  // "running" only once a worker polls the task queue, as /readyz says.
  const ready = up ? await readiness(run, 120_000) : null;
  if (run.stopping) return;
  const research = describeSources(configuredSources(config));
  if (ready?.indexed?.ready) research.push(`${ready.indexed.ready} configured web archive(s) indexed`);
  console.log(
    startBanner({
      up,
      readiness: ready,
      research,
      capabilities: capabilityReport(config, { notInstalled }),
      publicUrl: config.publicUrl,
      temporalUiUrl: uiUrl,
      apiKey,
      keyFile: path.relative(REPO_ROOT, path.join(config.dataDir, 'dev-api-key')),
    }),
  );
}

main().catch((err) => {
  console.error('[start] failed:', err);
  process.exit(1);
});
