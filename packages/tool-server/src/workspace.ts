/**
 * The workspace guard (docs/tool-server-design.md "How the local tools behave", first paragraph): every file path a tool reads or
 * writes is resolved against the workspace root (`~` expanded) and must stay inside it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A path outside the workspace root, or one that is not what the tool needs (docs/tool-server-design.md "How the local tools behave": `UnsafePathError`). */
export class UnsafePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafePathError';
  }
}

/** What a guarded path must be. */
export interface PathRequirement {
  /** The path must exist. */
  mustExist?: boolean;
  /** It must be a file / a directory (implies mustExist). */
  kind?: 'file' | 'dir';
}

/**
 * Resolves `p` inside `root`: relative paths against the root, `~` to the home directory.
 * @returns the absolute path
 * @throws UnsafePathError when it leaves the root, or misses `req`
 */
export function guardPath(root: string, p: string, req: PathRequirement = {}): string {
  const expanded = p.replace(/^~(?=$|[/\\])/, os.homedir());
  const abs = path.resolve(root, expanded);
  const rel = path.relative(root, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new UnsafePathError(`${p} is outside the workspace ${root}`);
  if (req.mustExist || req.kind) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      throw new UnsafePathError(`${p} does not exist`);
    }
    if (req.kind === 'file' && !stat.isFile()) throw new UnsafePathError(`${p} is not a file`);
    if (req.kind === 'dir' && !stat.isDirectory()) throw new UnsafePathError(`${p} is not a directory`);
  }
  return abs;
}
