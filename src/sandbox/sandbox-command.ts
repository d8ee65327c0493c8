/**
 * The confined command line of one sandboxed interpreter (docs/sandbox.md, "The Python sandbox"):
 *
 *   [setpriv → uid 65534, when the worker is root] prlimit (memory, CPU, file size, open files)
 *   bwrap (new user, pid, net, ipc, uts, cgroup namespaces; read-only /usr; private /scratch; no
 *   environment; no capabilities) prlimit (processes, inside the new user namespace) python3 -I -S -B
 *
 * and the check that its programs exist. Never falls back to anything less confined.
 */
import fs from 'node:fs';
import { SandboxError } from './sandbox-error';

/** util-linux programs (Debian: essential package), at their Debian paths inside and outside the sandbox. */
export const PRLIMIT_PATH = '/usr/bin/prlimit';
export const SETPRIV_PATH = '/usr/bin/setpriv';
/** The unprivileged uid and gid ("nobody") the interpreter runs as when the worker is root. */
export const SANDBOX_UID = 65534;
/** Processes and threads of one sandbox, counted in its own user namespace (RLIMIT_NPROC). */
export const SANDBOX_MAX_PROCESSES = 16;
/** Open files of the interpreter (RLIMIT_NOFILE). */
export const SANDBOX_MAX_OPEN_FILES = 64;
/** Largest file the code may write in /scratch, bytes (RLIMIT_FSIZE; a bigger write fails with EFBIG). */
export const SANDBOX_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Where the runner script and the scratch directory appear inside the sandbox. */
export const RUNNER_INSIDE = '/sandbox/runner.py';
/**
 * The descriptor, in the spawned process, from which bwrap copies runner.py (`--ro-bind-data`,
 * bubblewrap >= 0.5). The worker opens the file itself and hands the open descriptor down, so the
 * sandbox's unprivileged uid never needs to reach the checkout: it may lie under a directory only
 * the worker's user can enter (a 0700 home, `mktemp -d`).
 */
export const RUNNER_FD = 4;
export const SCRATCH_INSIDE = '/scratch';

/** What one sandboxed interpreter is started with. */
export interface SandboxCommandInput {
  bwrapPath: string;
  pythonPath: string;
  /** runner.py is read by bwrap from the inherited descriptor {@link RUNNER_FD} and bound read-only at {@link RUNNER_INSIDE}. */
  /** The session's private scratch directory on the host (bound read-write at {@link SCRATCH_INSIDE}). */
  scratchDir: string;
  /** RLIMIT_AS in bytes. */
  memoryBytes: number;
  /** RLIMIT_CPU in seconds (soft; SIGKILL one second later). */
  cpuSeconds: number;
  /** The uid to drop to with setpriv (the worker is root), or null to keep the worker's own uid. */
  runAsUid: number | null;
}

/**
 * The program and arguments to spawn (with an empty environment, runner.py open at descriptor
 * {@link RUNNER_FD}). Only absolute paths: the spawn happens without PATH.
 */
export function sandboxCommand(input: SandboxCommandInput): { file: string; args: string[] } {
  const limits = [
    `--as=${input.memoryBytes}:${input.memoryBytes}`,
    `--cpu=${input.cpuSeconds}:${input.cpuSeconds + 1}`,
    `--fsize=${SANDBOX_MAX_FILE_BYTES}:${SANDBOX_MAX_FILE_BYTES}`,
    `--nofile=${SANDBOX_MAX_OPEN_FILES}:${SANDBOX_MAX_OPEN_FILES}`,
    '--core=0:0',
  ];
  const bwrap = [
    input.bwrapPath,
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    ...['--setenv', 'HOME', SCRATCH_INSIDE, '--setenv', 'TMPDIR', SCRATCH_INSIDE, '--setenv', 'LANG', 'C.UTF-8'],
    ...['--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin'],
    ...['--proc', '/proc', '--dev', '/dev'],
    ...['--bind', input.scratchDir, SCRATCH_INSIDE, '--ro-bind-data', String(RUNNER_FD), RUNNER_INSIDE, '--chdir', SCRATCH_INSIDE],
    // bwrap's root and /dev are tmpfs (host memory): read-only, so /scratch is the only place to write.
    ...['--remount-ro', '/dev', '--remount-ro', '/'],
    '--cap-drop',
    'ALL',
    '--',
    // RLIMIT_NPROC is set inside the new user namespace, where it counts this sandbox's processes
    // only (Linux >= 5.14 counts per user namespace); outside it would count every process of the uid.
    PRLIMIT_PATH,
    `--nproc=${SANDBOX_MAX_PROCESSES}:${SANDBOX_MAX_PROCESSES}`,
    '--',
    input.pythonPath,
    '-I',
    '-S',
    '-B',
    RUNNER_INSIDE,
  ];
  const confined = [PRLIMIT_PATH, ...limits, '--', ...bwrap];
  if (input.runAsUid === null) return { file: confined[0], args: confined.slice(1) };
  const setpriv = [`--reuid=${input.runAsUid}`, `--regid=${input.runAsUid}`, '--clear-groups', '--'];
  return { file: SETPRIV_PATH, args: [...setpriv, ...confined] };
}

/**
 * The uid to run the interpreter as: {@link SANDBOX_UID} when the worker runs as root (RLIMIT_NPROC
 * binds only non-root users, and root must not own the sandbox), null (the worker's uid) otherwise.
 */
export function sandboxUid(): number | null {
  return process.getuid?.() === 0 ? SANDBOX_UID : null;
}

/** One program the sandbox command runs: its path, what it is, the Debian package it comes from and the variable that moves it. */
export interface SandboxProgram {
  file: string;
  /** Short name for reports, e.g. `bubblewrap`. */
  name: string;
  /** Debian package. */
  pkg: string;
  /** Environment variable that sets its path, when there is one. */
  env?: string;
}

/**
 * The programs {@link sandboxCommand} runs: bubblewrap, the interpreter, prlimit, and setpriv when
 * it drops to `runAsUid`.
 */
export function sandboxPrograms(bwrapPath: string, pythonPath: string, runAsUid: number | null): SandboxProgram[] {
  const programs: SandboxProgram[] = [
    { file: bwrapPath, name: 'bubblewrap', pkg: 'bubblewrap', env: 'PYTHON_SANDBOX_BWRAP' },
    { file: pythonPath, name: 'python3', pkg: 'python3', env: 'PYTHON_SANDBOX_PYTHON' },
    { file: PRLIMIT_PATH, name: 'prlimit', pkg: 'util-linux' },
  ];
  if (runAsUid !== null) programs.push({ file: SETPRIV_PATH, name: 'setpriv', pkg: 'util-linux' });
  return programs;
}

/** Whether `file` exists and is executable by this process. */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the sandbox cannot run here, without starting it: the interpreter outside /usr (the only host
 * tree the sandbox sees) or the first program of {@link sandboxPrograms} that is missing or not
 * executable (`isExecutable`, default {@link isExecutable}); null when nothing is missing.
 * Unprivileged user namespaces are only found missing when the sandbox starts (docs/sandbox.md).
 */
export function missingSandboxProgram(
  bwrapPath: string,
  pythonPath: string,
  runAsUid: number | null,
  executable: (file: string) => boolean = isExecutable,
): { program: SandboxProgram | null; message: string } | null {
  if (!pythonPath.startsWith('/usr/')) return { program: null, message: `the interpreter must be under /usr (the sandbox binds only /usr), got ${pythonPath}` };
  const program = sandboxPrograms(bwrapPath, pythonPath, runAsUid).find((p) => !executable(p.file));
  return program ? { program, message: `${program.name} missing at ${program.file}` } : null;
}

/**
 * Checks that every program of the command exists and is executable.
 * @throws SandboxError `unavailable` naming the missing program and the Debian package to install,
 *   or when the interpreter is outside /usr (the only host tree the sandbox sees)
 */
export function assertSandboxPrograms(bwrapPath: string, pythonPath: string, runAsUid: number | null): void {
  const missing = missingSandboxProgram(bwrapPath, pythonPath, runAsUid);
  if (!missing) return;
  const p = missing.program;
  if (!p) throw new SandboxError('unavailable', `Python sandbox unavailable: ${missing.message}`);
  const where = `Debian package \`${p.pkg}\`${p.env ? `; ${p.env}` : ''}`;
  throw new SandboxError('unavailable', `Python sandbox unavailable: ${p.name} (${where}) is missing at ${p.file}; custom code is never run unconfined`);
}
