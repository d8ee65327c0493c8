/**
 * Shared by the Python sandbox's test files: options from the real configuration, one-shot runs
 * that always close their session, and the checks that nothing of a session outlives it (no
 * process of the sandbox left, no scratch directory left).
 */
import fs from 'node:fs';
import os from 'node:os';
import { loadConfig } from '../../../src/config';
import { PythonSandboxOptions, PythonTransformSession, SandboxError, TransformResult } from '../../../src/sandbox/python-sandbox';
import { SCRATCH_PREFIX } from '../../../src/sandbox/scratch-dir';
import { sandboxProcessesOf } from '../../helpers/processes';
import { waitUntil } from '../../helpers/wait';

/** The configured sandbox (PYTHON_SANDBOX_* or the Debian defaults) with a node budget. */
export function sandboxOptions(timeoutSeconds = 10, extra: Partial<PythonSandboxOptions> = {}): PythonSandboxOptions {
  return { ...loadConfig().pythonSandbox, timeoutSeconds, ...extra };
}

/** Starts a session, sends each page in turn, closes it; the results, or the SandboxError that ended it. */
export async function runPages(
  code: string,
  pages: Record<string, unknown>[][],
  options: PythonSandboxOptions = sandboxOptions(),
): Promise<TransformResult[] | SandboxError> {
  let session: PythonTransformSession | null = null;
  try {
    session = await PythonTransformSession.start(code, options);
    const results: TransformResult[] = [];
    for (const page of pages) results.push(await session.transform(page));
    return results;
  } catch (err) {
    if (err instanceof SandboxError) return err;
    throw err;
  } finally {
    await session?.close();
  }
}

/** {@link runPages} with one page that must fail; the error. */
export async function runFailing(
  code: string,
  options: PythonSandboxOptions = sandboxOptions(),
  rows: Record<string, unknown>[] = [{ id: 1 }],
): Promise<SandboxError> {
  const result = await runPages(code, [rows], options);
  if (!(result instanceof SandboxError)) throw new Error(`expected a SandboxError, got ${JSON.stringify(result).slice(0, 500)}`);
  return result;
}

/** This process's sandbox processes (test/helpers/processes.ts). */
export function sandboxProcesses(): string[] {
  return sandboxProcessesOf(process.pid);
}

/** This process's scratch directories under the temporary directory (their names carry its pid). */
export function scratchDirs(): string[] {
  return fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`${SCRATCH_PREFIX}${process.pid}-`));
}

/**
 * Waits until no sandbox process and no scratch directory beyond `before` is left (a killed tree
 * is reaped within moments; this fails with the leftovers' names if it is not).
 */
export async function expectNothingLeft(before: string[] = []): Promise<void> {
  await waitUntil(() => sandboxProcesses().length === 0, 'no sandbox process left', 10_000, 50).catch(() => {
    throw new Error(`sandbox processes left: ${sandboxProcesses().join('; ')}`);
  });
  const left = scratchDirs().filter((d) => !before.includes(d));
  if (left.length) throw new Error(`scratch directories left: ${left.join(', ')}`);
}
