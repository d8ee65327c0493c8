/**
 * The isolated Python of flows' custom_code nodes (docs/sandbox.md, "The Python
 * sandbox"). One {@link PythonTransformSession} is one confined CPython process for one node run:
 * the code is compiled once, then pages of rows go through its `transform` one at a time.
 *
 * Always close a session (`finally { await session.close() }`): that kills its process tree and
 * removes its scratch directory. A session fails for good on its first error; later calls reject
 * with the same {@link SandboxError}.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { PythonSandboxConfig } from '../config';
import { logger } from '../lib/logger';
import { JsonLineReader, PrintCapture } from './output-streams';
import { assertSandboxPrograms, RUNNER_FD, sandboxCommand, sandboxUid } from './sandbox-command';
import { SandboxError } from './sandbox-error';
import { exitError, parseResponse, SandboxResponse } from './sandbox-protocol';
import { createScratchDir, removeScratchDir } from './scratch-dir';

export { SandboxError } from './sandbox-error';
export type { SandboxErrorKind } from './sandbox-error';

/** Default cap of one page's result, as JSON bytes. */
export const DEFAULT_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Default cap of what one node may print (stdout and stderr together), bytes. */
export const DEFAULT_PRINT_BYTES = 1024 * 1024;
/** Bounds of a node's `timeout_seconds` (docs/api-review.md "Save as workflow"). */
export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 1800;
/** How long close() waits for the killed process tree to be reaped before it gives up waiting. */
const REAP_TIMEOUT_MS = 10_000;
/** Bytes of the interpreter's own stderr kept for error messages. */
const STDERR_TAIL_BYTES = 64 * 1024;

/** How one session is confined: the configured programs and memory, plus the node's budget. */
export interface PythonSandboxOptions extends PythonSandboxConfig {
  /** The node's `timeout_seconds`, 1–1800: the CPU limit and the wall-clock budget of start + all transform calls. */
  timeoutSeconds: number;
  /** Cap of one page's result as JSON, bytes (default {@link DEFAULT_OUTPUT_BYTES}). */
  outputBytes?: number;
  /** Cap of everything the node prints, bytes (default {@link DEFAULT_PRINT_BYTES}). */
  printBytes?: number;
  /**
   * The audit hook that turns forbidden actions into clear errors (default true). False only in
   * tests that show the kernel confinement holds without it.
   */
  auditGuard?: boolean;
  /**
   * The clock the budget is measured with, in ms (default `Date.now`). Only the time inside calls
   * counts; tests inject a clock to show that time between calls does not.
   */
  now?: () => number;
}

/** One page through `transform`: its rows and the lines printed while it ran. */
export interface TransformResult {
  rows: Record<string, unknown>[];
  /** Printed lines (stdout and stderr) of this page; the first page's also hold what the module printed when it was loaded. */
  printed: string[];
}

interface PendingCall {
  resolve: (response: SandboxResponse) => void;
  reject: (error: SandboxError) => void;
}

/** One sandboxed interpreter for one custom_code node run; pages are sent one at a time. */
export class PythonTransformSession {
  private failure: SandboxError | null = null;
  private pending: PendingCall | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private remainingMs: number;
  private answered = false;
  private startPrinted: string[] = [];
  private stderrTail = '';
  /** An error the runner reported, until its printed lines are in (an exit meanwhile must not hide it). */
  private reported: SandboxError | null = null;
  private closing: Promise<void> | null = null;
  private readonly prints: PrintCapture;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly scratchDir: string,
    private readonly options: Required<Omit<PythonSandboxOptions, keyof PythonSandboxConfig>>,
  ) {
    this.remainingMs = options.timeoutSeconds * 1000;
    this.prints = new PrintCapture(options.printBytes, () =>
      this.fail(new SandboxError('print_limit', `the code printed more than ${options.printBytes} bytes (the print limit of a node); it was stopped`)),
    );
    const protocol = new JsonLineReader(
      options.outputBytes + 1024 * 1024,
      (line) => this.onResponse(line),
      () => this.fail(new SandboxError('output_limit', `the result of a page is larger than ${options.outputBytes} bytes of JSON (the output limit)`)),
    );
    const [stdin, stdout, stderr, fd3] = child.stdio;
    for (const stream of [stdin, stdout, stderr, fd3]) stream?.on('error', () => undefined); // EPIPE etc.: the exit says what happened
    stdout?.on('data', (chunk: Buffer) => this.prints.push(chunk));
    stdout?.on('end', () => this.prints.end());
    stderr?.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES)));
    if (fd3 instanceof Readable) fd3.on('data', (chunk: Buffer) => protocol.push(chunk));
    this.exited = new Promise((resolve) => {
      child.on('error', (err) => {
        this.fail(new SandboxError('unavailable', `Python sandbox unavailable: cannot start ${err.message}`));
        if (child.pid === undefined) resolve(); // never started: no 'close' to wait for
      });
      child.on('close', (code, signal) => {
        this.prints.end();
        if (this.reported && !this.failure) this.reported.printed = [...this.startPrinted, ...this.prints.take()];
        this.fail(this.reported ?? exitError(code, signal, options.timeoutSeconds, this.answered, this.stderrTail));
        resolve();
      });
    });
  }

  /**
   * Starts a confined interpreter, compiles `code` and runs its module body, and checks it defines
   * `transform`. The module body's run counts against the node's timeout.
   * @param code the node's Python source (UTF-8 text)
   * @throws RangeError when `timeoutSeconds` is not an integer in 1–1800
   * @throws SandboxError `unavailable` (no bwrap, python or namespaces: nothing ran), `code_error`
   *   (syntax error, exception in the module body, no `transform`), `forbidden`, `timeout`,
   *   `memory`, `print_limit`, `crashed`; the session is closed then
   */
  static async start(code: string, options: PythonSandboxOptions): Promise<PythonTransformSession> {
    const { timeoutSeconds } = options;
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < MIN_TIMEOUT_SECONDS || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
      throw new RangeError(`timeoutSeconds must be an integer in ${MIN_TIMEOUT_SECONDS}–${MAX_TIMEOUT_SECONDS}, got ${timeoutSeconds}`);
    }
    const uid = sandboxUid();
    assertSandboxPrograms(options.bwrapPath, options.pythonPath, uid);
    let scratchDir: string;
    try {
      scratchDir = await createScratchDir(uid);
    } catch (err) {
      throw new SandboxError('unavailable', `Python sandbox unavailable: cannot create its scratch directory (${(err as Error).message})`);
    }
    const outputBytes = options.outputBytes ?? DEFAULT_OUTPUT_BYTES;
    const command = sandboxCommand({
      bwrapPath: options.bwrapPath,
      pythonPath: options.pythonPath,
      scratchDir,
      memoryBytes: options.memoryBytes,
      cpuSeconds: timeoutSeconds,
      runAsUid: uid,
    });
    // runner.py is opened here, by the worker's own user, and inherited at RUNNER_FD; the cwd is
    // `/` so nothing of the worker's directory is needed by the unprivileged uid.
    const runnerFd = fs.openSync(path.join(__dirname, 'runner.py'), 'r');
    let child: ChildProcess;
    try {
      const stdio: Array<'pipe' | number> = ['pipe', 'pipe', 'pipe', 'pipe'];
      stdio[RUNNER_FD] = runnerFd;
      child = spawn(command.file, command.args, { stdio, env: {}, cwd: '/' });
    } finally {
      fs.closeSync(runnerFd);
    }
    const session = new PythonTransformSession(child, scratchDir, {
      timeoutSeconds,
      outputBytes,
      printBytes: options.printBytes ?? DEFAULT_PRINT_BYTES,
      auditGuard: options.auditGuard ?? true,
      now: options.now ?? Date.now,
    });
    try {
      const ready = await session.exchange(JSON.stringify({ code, output_bytes: outputBytes, audit_guard: options.auditGuard ?? true }));
      if (ready.type !== 'ready') throw session.broken('the start was not answered with ready');
      session.answered = true;
      session.startPrinted = session.prints.take();
      return session;
    } catch (err) {
      await session.close();
      throw err;
    }
  }

  /**
   * Runs `transform` on one page. Calls are queued: one page at a time per session.
   * @param rows the page (JSON values only)
   * @returns the rows it returned (a list of dicts of JSON values, at most `outputBytes` as JSON)
   *   and the lines printed meanwhile
   * @throws TypeError when `rows` cannot be written as JSON (nothing is sent; the session stays usable)
   * @throws SandboxError of any kind but `unavailable`; the session is then failed and its process killed
   */
  transform(rows: Record<string, unknown>[]): Promise<TransformResult> {
    const run = this.queue.then(() => this.page(rows));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Kills the process tree (if still running), waits for it to be reaped and removes the scratch directory. Idempotent; never throws. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async page(rows: Record<string, unknown>[]): Promise<TransformResult> {
    const request = JSON.stringify({ rows });
    const response = await this.exchange(request);
    if (response.type !== 'rows') throw this.broken('a page was not answered with rows');
    const printed = [...this.startPrinted, ...this.prints.take()];
    this.startPrinted = [];
    return { rows: response.rows, printed };
  }

  /** Sends one request and waits for its response and the bytes it printed, under the wall-clock budget. */
  private exchange(request: string): Promise<SandboxResponse> {
    if (this.failure) return Promise.reject(this.failure);
    const started = this.options.now();
    let timer: NodeJS.Timeout | undefined;
    const response = new Promise<SandboxResponse>((resolve, reject) => {
      this.pending = { resolve, reject };
      timer = setTimeout(
        () => this.fail(new SandboxError('timeout', `the code ran longer than its timeout_seconds (${this.options.timeoutSeconds} s)`)),
        Math.max(0, this.remainingMs),
      );
      this.child.stdin?.write(request + '\n');
    });
    return response.finally(() => {
      clearTimeout(timer);
      this.remainingMs -= this.options.now() - started;
    });
  }

  private onResponse(line: string): void {
    const call = this.pending;
    const response = parseResponse(line);
    if (response instanceof SandboxError) return this.fail(response);
    if (!call) return this.fail(new SandboxError('crashed', 'the Python sandbox broke its protocol (a response nobody asked for)'));
    if (response.type === 'error') this.reported ??= response.error;
    void this.prints.waitFor(response.printedBytes).then(() => {
      if (this.pending !== call) return; // failed meanwhile (timeout, print limit)
      if (response.type === 'error') {
        const error = response.error;
        error.printed = [...this.startPrinted, ...this.prints.take()];
        return this.fail(error);
      }
      this.pending = null;
      call.resolve(response);
    });
  }

  /** Fails the session for a response out of place, and returns the error to throw. */
  private broken(what: string): SandboxError {
    this.fail(new SandboxError('crashed', `the Python sandbox broke its protocol (${what})`));
    return this.failure ?? new SandboxError('crashed', what);
  }

  /** The session's first error: kills the process and rejects the waiting call; later errors are ignored. */
  private fail(error: SandboxError): void {
    if (this.failure) return;
    this.failure = error;
    this.kill();
    const call = this.pending;
    this.pending = null;
    call?.reject(error);
  }

  private kill(): void {
    // bwrap --die-with-parent: killing the outer bwrap kills the sandbox's pid 1, and with it
    // every process of the sandbox's pid namespace.
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private async shutdown(): Promise<void> {
    this.fail(new SandboxError('crashed', 'the sandbox session is closed'));
    let reapTimer: NodeJS.Timeout | undefined;
    const reaped = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => (reapTimer = setTimeout(() => resolve(false), REAP_TIMEOUT_MS))),
    ]);
    clearTimeout(reapTimer);
    if (!reaped) logger.warn({ pid: this.child.pid }, 'python sandbox: process tree not reaped after SIGKILL');
    await removeScratchDir(this.scratchDir).catch((err: unknown) =>
      logger.warn({ err, dir: this.scratchDir }, 'python sandbox: scratch directory not removed'),
    );
  }
}
