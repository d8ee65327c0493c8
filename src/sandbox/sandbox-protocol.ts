/**
 * The messages between python-sandbox.ts and runner.py (their contract is written at the top of
 * runner.py), and what an interpreter that ended without answering means.
 */
import os from 'node:os';
import { SandboxError, SandboxErrorKind } from './sandbox-error';

/** One response of the runner (fd 3), checked. */
export type SandboxResponse =
  | { type: 'ready'; printedBytes: number }
  | { type: 'rows'; rows: Record<string, unknown>[]; printedBytes: number }
  | { type: 'error'; error: SandboxError; printedBytes: number };

/** Kinds the runner itself may report; anything else from fd 3 is a broken protocol. */
const RUNNER_KINDS: ReadonlySet<SandboxErrorKind> = new Set(['code_error', 'forbidden', 'memory', 'invalid_output', 'output_limit']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Parses and checks one response line.
 * @returns the response, or a `crashed` SandboxError when the line is not a response the runner
 *   sends (the code wrote to the protocol's descriptor, or the runner broke)
 */
export function parseResponse(line: string): SandboxResponse | SandboxError {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return new SandboxError('crashed', 'the Python sandbox broke its protocol (a response that is not JSON)');
  }
  if (!isObject(value) || typeof value.printed_bytes !== 'number')
    return new SandboxError('crashed', 'the Python sandbox broke its protocol (no printed_bytes)');
  const printedBytes = value.printed_bytes;
  if (value.ready === true) return { type: 'ready', printedBytes };
  if (Array.isArray(value.rows)) {
    const rows: unknown[] = value.rows;
    if (!rows.every(isObject)) return new SandboxError('invalid_output', 'transform must return a list of dicts');
    return { type: 'rows', rows: rows as Record<string, unknown>[], printedBytes };
  }
  if (isObject(value.error)) {
    const e = value.error;
    const kind = RUNNER_KINDS.has(e.kind as SandboxErrorKind) ? (e.kind as SandboxErrorKind) : 'crashed';
    const type = text(e.type);
    const message = text(e.message) || 'the code failed';
    const prefix = kind === 'code_error' || kind === 'forbidden' || kind === 'memory' ? `${type}: ` : '';
    return { type: 'error', error: new SandboxError(kind, prefix + message, type || null, text(e.traceback)), printedBytes };
  }
  return new SandboxError('crashed', 'the Python sandbox broke its protocol (an unknown response)');
}

/**
 * The error of an interpreter that ended while a call waited on it and the session had not killed
 * it. bwrap reports a sandboxed process killed by signal N as exit code 128 + N.
 * @param cpuSeconds the CPU limit it ran under
 * @param answered whether it had already answered the start (else a bwrap failure means the
 *   sandbox is unavailable on this machine)
 * @param stderr the last of what the interpreter and bwrap wrote to fd 2
 */
export function exitError(code: number | null, signal: NodeJS.Signals | null, cpuSeconds: number, answered: boolean, stderr: string): SandboxError {
  const signo = signal ? signalNumber(signal) : code !== null && code > 128 ? code - 128 : null;
  const tail = stderr.trim().slice(-2000);
  if (signo === os.constants.signals.SIGXCPU) return new SandboxError('timeout', `the code used more than its ${cpuSeconds} s of CPU time (timeout_seconds)`);
  if (/MemoryError|Cannot allocate memory|out of memory/i.test(tail)) return new SandboxError('memory', `the code ran out of memory: ${tail}`);
  // The session's own kills never get here; the kernel's SIGKILL is RLIMIT_CPU's hard limit (the
  // code ignored SIGXCPU) or, rarely under RLIMIT_AS, the OOM killer.
  if (signo === os.constants.signals.SIGKILL) {
    return new SandboxError('timeout', `the code was killed by the kernel: more than its ${cpuSeconds} s of CPU time (timeout_seconds), or out of memory`);
  }
  if (!answered && /^bwrap:/m.test(tail)) {
    return new SandboxError('unavailable', `Python sandbox unavailable: ${tail} (bubblewrap needs unprivileged user namespaces; see docs/sandbox.md)`);
  }
  const how = signo !== null ? `was killed by signal ${signo}` : `exited with code ${code}`;
  return new SandboxError('crashed', `the Python process ${how} without answering${tail ? `: ${tail}` : ''}`);
}

function signalNumber(signal: NodeJS.Signals): number | null {
  return os.constants.signals[signal] ?? null;
}
