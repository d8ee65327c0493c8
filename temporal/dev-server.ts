/**
 * Local Temporal for development: runs `temporal server start-dev` (the Temporal CLI's dev
 * server, SQLite persistence, Web UI), waits until its frontend answers and registers the
 * search attributes. Used by `npm start` (src/cli/start.ts) unless TEMPORAL_ADDRESS is set.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { ensureSearchAttributes } from './search-attributes';

/** How to run the dev server. */
export interface DevServerOptions {
  /** Path of the Temporal CLI binary (temporal/cli-binary.ts `ensureTemporalCli`). */
  binary: string;
  /** Folder for `temporal.db` (SQLite, survives restarts) and `temporal.log`. */
  dataDir: string;
  namespace: string;
  /** Bind address; default 127.0.0.1. */
  ip?: string;
  /** Frontend gRPC port; default 7233. */
  port?: number;
  /** Web UI port; default 8233. */
  uiPort?: number;
  /** Progress lines; default console.log. */
  log?: (line: string) => void;
  /** Give up waiting for the frontend after this many ms; default 60 000. */
  startTimeoutMs?: number;
  /**
   * SQLite pragmas (`--sqlite-pragma NAME=VALUE`), e.g. `{journal_mode: 'wal', synchronous:
   * 'off'}`: without fsync per commit the server is many times faster, and its state still
   * survives a server process restart (not a machine crash). Tests and benchmarks use it.
   */
  sqlitePragmas?: Record<string, string>;
  /** Run without the Web UI. */
  headless?: boolean;
}

/** A running dev server. */
export interface DevServerHandle {
  pid: number;
  /** Frontend `host:port`. */
  address: string;
  /** Web UI URL. */
  uiUrl: string;
  /** Resolves with the exit code (or signal name) when the process ends, for whatever reason. */
  exited: Promise<number | string | null>;
  /** Stops the server: SIGTERM, then SIGKILL after 10 s. Resolves once the process is gone. */
  stop(): Promise<void>;
}

/**
 * True when a Temporal frontend answers GetSystemInfo at `address` within `timeoutMs`.
 * Never throws.
 */
export async function frontendAnswers(address: string, timeoutMs = 2000): Promise<boolean> {
  let connection: Connection | null = null;
  try {
    connection = await Connection.connect({ address, connectTimeout: timeoutMs });
    const conn = connection;
    await conn.withDeadline(Date.now() + timeoutMs, () => conn.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/**
 * Starts the dev server as a child process in its own process group (so a terminal's Ctrl-C
 * reaches the supervisor, which stops it last), waits for the frontend, registers the search
 * attributes (temporal/search-attributes.ts). Output goes to `<dataDir>/temporal.log`.
 * @throws Error when the process exits early or the frontend does not answer in time (the log
 *   tail is in the message); the process is stopped first
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServerHandle> {
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? 7233;
  const uiPort = options.uiPort ?? 8233;
  const log = options.log ?? console.log;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const logFile = path.join(options.dataDir, 'temporal.log');
  const out = fs.openSync(logFile, 'a');
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    path.join(options.dataDir, 'temporal.db'),
    '--ip',
    ip,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--namespace',
    options.namespace,
    '--log-level',
    'warn',
    ...Object.entries(options.sqlitePragmas ?? {}).flatMap(([k, v]) => ['--sqlite-pragma', `${k}=${v}`]),
    ...(options.headless ? ['--headless'] : []),
  ];
  const child = spawn(options.binary, args, { stdio: ['ignore', out, out], detached: true });
  fs.closeSync(out);
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const address = `${ip}:${port}`;
  const handle: DevServerHandle = {
    pid: child.pid!,
    address,
    uiUrl: `http://${ip}:${uiPort}`,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
  const tail = (): string => fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');

  let early: number | string | null | undefined;
  void exited.then((code) => (early = code));
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  log(`Temporal dev server starting (pid ${child.pid}, SQLite ${path.join(options.dataDir, 'temporal.db')}, log ${logFile})`);
  while (!(await frontendAnswers(address, 1000))) {
    if (early !== undefined) throw new Error(`Temporal dev server exited (${early}) before answering:\n${tail()}`);
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`Temporal dev server did not answer at ${address} in time:\n${tail()}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const connection = await Connection.connect({ address });
  try {
    const added = await ensureSearchAttributes(connection, options.namespace);
    log(added.length ? `Registered search attributes: ${added.join(', ')}` : 'Search attributes already registered');
  } catch (err) {
    await handle.stop();
    throw err;
  } finally {
    await connection.close();
  }
  return handle;
}
