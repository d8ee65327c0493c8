/**
 * The private scratch directory of one sandboxed interpreter: created empty under the system's
 * temporary directory, owned by the sandbox's uid, mode 0700, and removed with everything in it
 * when the session closes (architecture.md, "The Python sandbox").
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Prefix of every scratch directory's name (tests look for leftovers by it). */
export const SCRATCH_PREFIX = 'flow-sandbox-';

/**
 * Creates a new scratch directory and gives it to `uid` (when not null, i.e. the worker is root).
 * @returns its absolute host path
 * @throws the file system's error (the caller reports it as `unavailable`)
 */
export async function createScratchDir(uid: number | null): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), SCRATCH_PREFIX));
  try {
    await fs.chmod(dir, 0o700);
    if (uid !== null) await fs.chown(dir, uid, uid);
  } catch (err) {
    await fs.rm(dir, { recursive: true, force: true });
    throw err;
  }
  return dir;
}

/**
 * Removes a scratch directory and everything the code left in it. When the code took its own
 * permissions away (chmod 000 on a folder), gives them back first.
 * @throws the file system's error when even that fails
 */
export async function removeScratchDir(dir: string): Promise<void> {
  try {
    await fs.rm(dir, { recursive: true, force: true });
  } catch {
    await restoreAccess(dir);
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function restoreAccess(dir: string): Promise<void> {
  await fs.chmod(dir, 0o700).catch(() => undefined);
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await restoreAccess(path.join(dir, entry.name));
  }
}
