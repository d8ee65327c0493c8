import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { newId } from './ids';
import { checkBlobKey, type BlobStore } from './blob-store';

/**
 * The filesystem backend of {@link BlobStore}: blob `a/b/c` is the file `<root>/a/b/c`. Writes go
 * to a temporary file in the same folder and are renamed into place (atomic on POSIX), so a reader
 * sees the old blob or the whole new one. Every process that names the same `root` (one machine,
 * or a shared volume) sees the same blobs. The default backend of `npm start`.
 */
export function filesystemBlobStore(root: string): BlobStore {
  const file = (key: string): string => path.join(root, checkBlobKey(key));
  return {
    async put(key, body) {
      const target = file(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const tmp = `${target}.${newId()}.tmp`;
      try {
        await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, fs.createWriteStream(tmp));
        await fs.promises.rename(tmp, target);
      } finally {
        await fs.promises.rm(tmp, { force: true });
      }
    },
    async get(key, range) {
      const handle = await fs.promises.open(file(key), 'r').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      return handle ? handle.createReadStream(range ? { start: range.start, end: range.end } : {}) : null;
    },
    async head(key) {
      const stat = await fs.promises.stat(file(key)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      return stat?.isFile() ? { size: stat.size } : null;
    },
    async delete(key) {
      await fs.promises.rm(file(key), { force: true });
    },
  };
}
