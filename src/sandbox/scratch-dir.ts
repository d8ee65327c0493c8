/**
 * The private scratch directory of one sandboxed interpreter: created empty under the system's
 * temporary directory, owned by the sandbox's uid, mode 0700, and removed with everything in it
 * when the session closes (docs/sandbox.md, "The Python sandbox"). Its name carries the worker's
 * pid, so that the directories of a worker that was killed (and could not close its sessions) are
 * removed by the next session any worker on the machine starts.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Prefix of every scratch directory's name (tests look for leftovers by it). */
export const SCRATCH_PREFIX = 'flow-sandbox-';
/** `flow-sandbox-<pid>-…`: the pid of the worker that created it. */
const OWNED_NAME = new RegExp(`^${SCRATCH_PREFIX}(\\d+)-`);

/**
 * Creates a new scratch directory, `<tmp>/flow-sandbox-<pid>-XXXXXX`, and gives it to `uid` (when
 * not null, i.e. the worker is root). First removes the scratch directories of processes that no
 * longer exist.
 * @returns its absolute host path
 * @throws the file system's error (the caller reports it as `unavailable`)
 */
export async function createScratchDir(uid: number | null): Promise<string> {
  await removeOrphanedScratchDirs();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));
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

/**
 * Removes the scratch directories whose worker process is gone (killed with its sandboxes: bwrap
 * dies with its parent, the directory stays). A directory of a live process, this one included,
 * is left alone; so is one whose pid a new process has taken (it goes once that one ends).
 * Failures are ignored: this is housekeeping, and the next start tries again.
 */
export async function removeOrphanedScratchDirs(): Promise<void> {
  const names = await fs.readdir(os.tmpdir()).catch((): string[] => []);
  for (const name of names) {
    const owner = OWNED_NAME.exec(name);
    if (!owner || processExists(Number(owner[1]))) continue;
    await removeScratchDir(path.join(os.tmpdir(), name)).catch(() => undefined);
  }
}

function processExists(pid: number): boolean {
  if (!(pid > 0)) return true; // 0 would signal our own process group: never treat it as gone
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, belongs to another user
  }
}

async function restoreAccess(dir: string): Promise<void> {
  await fs.chmod(dir, 0o700).catch(() => undefined);
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await restoreAccess(path.join(dir, entry.name));
  }
}
