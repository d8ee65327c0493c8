import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';

/**
 * The labelled data folder (real, third-party test data; see its README): `SHARED_DATA_DIR`
 * (relative to the repository root) when set, else `../shared/data` beside the clone — the same
 * rule as the service's configuration (docs/configuration.md, `SHARED_DATA_DIR`).
 */
export const SHARED_DATA = path.resolve(REPO_ROOT, process.env.SHARED_DATA_DIR || path.join('..', 'shared', 'data'));

/**
 * Writes an archive folder (docs/research.md, "How an archive is researched") holding only the pages of the
 * archive at `folder` named in `keys` (each a page's `id` or `url` in its index): a `page-index.json` with their entries and a symbolic link to each page
 * file, in a new folder under `parent`. A suite that needs two pages then parses two instead of
 * the whole archive on its first research, so its run time does not grow with the archive or
 * with the machine's load.
 * @returns the new folder's path
 * @throws Error when a key is not in the archive's index
 */
export function subsetArchive(folder: string, keys: string[], parent: string): string {
  const index = JSON.parse(fs.readFileSync(path.join(folder, 'page-index.json'), 'utf8')) as Array<{ id: string; url: string; file: string }>;
  const entries = keys.map((key) => {
    const entry = index.find((p) => p.id === key || p.url === key);
    if (!entry) throw new Error(`${key} is not in ${folder}/page-index.json`);
    return entry;
  });
  const out = fs.mkdtempSync(path.join(parent, 'archive-'));
  for (const entry of entries) {
    const target = path.join(out, entry.file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.symlinkSync(path.resolve(folder, entry.file), target);
  }
  fs.writeFileSync(path.join(out, 'page-index.json'), JSON.stringify(entries));
  return out;
}
