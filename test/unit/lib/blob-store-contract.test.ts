/**
 * The blob store contract (src/lib/blob-store.ts), run against both backends: the filesystem
 * store (src/lib/blob-store-fs.ts) and the S3 store (src/lib/blob-store-s3.ts) against an
 * S3-compatible server on 127.0.0.1 (s3rver, test/helpers/s3-server.ts), selected by the
 * configuration as a deployment selects it. Bytes and streams larger than one
 * upload part round-trip, ranged reads, a missing key is null, a failed upload leaves nothing,
 * keys that could leave the store are refused, local copies are removed after use. Then what is
 * particular to each: the filesystem layout DATA_DIR always had, with no temporary file left
 * behind; nothing written to the process's own data directory when the store is S3.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../../../src/config';
import { bufferOf, contentKey, withLocalCopy, type BlobStore } from '../../../src/lib/blob-store';
import { filesystemBlobStore } from '../../../src/lib/blob-store-fs';
import { createBlobStore } from '../../../src/lib/blob-stores';
import { startS3Server, type TestS3Server } from '../../helpers/s3-server';

/** Every file under `dir`, relative (none when it does not exist). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

/** One backend under test: its store, the folder where the filesystem store keeps its files, and the process's own data directory. */
interface Backend {
  store: BlobStore;
  /** The filesystem store's root; null for S3. */
  root: string | null;
  /** The process's DATA_DIR. */
  dataDir: string;
}

let dir: string;
let server: TestS3Server;
const backends: Record<'filesystem' | 's3', () => Backend> = {
  filesystem: () => {
    const dataDir = fs.mkdtempSync(path.join(dir, 'fs-'));
    return { store: filesystemBlobStore(dataDir), root: dataDir, dataDir };
  },
  s3: () => {
    const dataDir = path.join(dir, `unused-${crypto.randomUUID()}`);
    const config = loadConfig({ ...server.env, DATA_DIR: dataDir });
    expect(config.blobStore.backend).toBe('s3');
    return { store: createBlobStore(config.blobStore), root: null, dataDir };
  },
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blob-contract-'));
  server = await startS3Server(path.join(dir, 's3'));
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(['filesystem', 's3'] as const)('%s blob store', (kind) => {
  let backend: Backend;
  let store: BlobStore;
  beforeEach(() => {
    backend = backends[kind]();
    store = backend.store;
  });

  test('put, head, get (whole and ranged) and delete; a missing key is null', async () => {
    const bytes = Buffer.from('<html>page</html>');
    const key = contentKey('artifacts', crypto.createHash('sha256').update(bytes).digest('hex'));
    expect(await store.head(key)).toBeNull();
    expect(await store.get(key)).toBeNull();
    await store.put(key, bytes);
    expect(await store.head(key)).toEqual({ size: bytes.length });
    expect((await bufferOf((await store.get(key))!)).equals(bytes)).toBe(true);
    expect((await bufferOf((await store.get(key, { start: 6, end: 9 }))!)).toString()).toBe('page');
    if (backend.root) expect(filesUnder(backend.root)).toEqual([path.join('artifacts', key.split('/')[1]!, key.split('/')[2]!)]);
    await store.delete(key);
    expect(await store.head(key)).toBeNull();
    await expect(store.delete(key)).resolves.toBeUndefined();
    if (!backend.root) expect(fs.existsSync(backend.dataDir)).toBe(false);
  });

  test('a stream larger than one upload part round-trips and replaces the previous blob whole', async () => {
    const chunks = Array.from({ length: 12 }, (_, i) => Buffer.alloc(1024 * 1024, i));
    await store.put('research-archives/a/big.warc', Readable.from(chunks));
    expect(await store.head('research-archives/a/big.warc')).toEqual({ size: 12 * 1024 * 1024 });
    const back = await bufferOf((await store.get('research-archives/a/big.warc', { start: 5 * 1024 * 1024, end: 5 * 1024 * 1024 + 3 }))!);
    expect([...back]).toEqual([5, 5, 5, 5]);
    await store.put('research-archives/a/big.warc', Buffer.from('small'));
    expect((await bufferOf((await store.get('research-archives/a/big.warc'))!)).toString()).toBe('small');
    if (backend.root) expect(filesUnder(backend.root)).toEqual([path.join('research-archives', 'a', 'big.warc')]);
  });

  test('a failing stream leaves neither the blob nor a temporary file', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(store.put('media/ab/x.png', failing)).rejects.toThrow('connection reset');
    expect(await store.head('media/ab/x.png')).toBeNull();
    if (backend.root) expect(filesUnder(backend.root)).toEqual([]);
  });

  test('keys that could leave the store are refused', async () => {
    for (const key of ['../x', '/etc/passwd', 'a//b', 'a/../b', '', 'a/.hidden'])
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/Invalid blob key/);
  });

  test('withLocalCopy gives a local file with the bytes and removes it afterwards, also when the use throws', async () => {
    await store.put('uploads/one.csv', Buffer.from('sku,name\n1,a\n'));
    let seen = '';
    const text = await withLocalCopy(store, 'uploads/one.csv', async (file) => {
      seen = file;
      if (backend.root) expect(file.startsWith(backend.root)).toBe(false);
      return fs.promises.readFile(file, 'utf8');
    });
    expect(text).toBe('sku,name\n1,a\n');
    expect(fs.existsSync(path.dirname(seen))).toBe(false);
    await expect(
      withLocalCopy(store, 'uploads/one.csv', async (file) => {
        seen = file;
        throw new Error('parser failed');
      }),
    ).rejects.toThrow('parser failed');
    expect(fs.existsSync(path.dirname(seen))).toBe(false);
    await expect(withLocalCopy(store, 'uploads/none.csv', async () => 1)).rejects.toThrow(/No blob/);
  });
});
