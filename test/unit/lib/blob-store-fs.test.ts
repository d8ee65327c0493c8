/**
 * The filesystem blob store (src/lib/blob-store-fs.ts) and the helpers of src/lib/blob-store.ts:
 * bytes and streams round-trip, a missing key is null, keys cannot leave the root, writes are
 * atomic (no temporary file is left behind), and local copies are removed after use.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { bufferOf, contentKey, withLocalCopy } from '../../../src/lib/blob-store';
import { filesystemBlobStore } from '../../../src/lib/blob-store-fs';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'blob-store-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** Every file under `dir`, relative. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

test('put, head, get and delete a blob; a missing key is null', async () => {
  const store = filesystemBlobStore(root);
  const bytes = Buffer.from('<html>page</html>');
  const key = contentKey('artifacts', crypto.createHash('sha256').update(bytes).digest('hex'));
  expect(await store.head(key)).toBeNull();
  expect(await store.get(key)).toBeNull();
  await store.put(key, bytes);
  expect(await store.head(key)).toEqual({ size: bytes.length });
  expect((await bufferOf((await store.get(key))!)).equals(bytes)).toBe(true);
  expect((await bufferOf((await store.get(key, { start: 6, end: 9 }))!)).toString()).toBe('page');
  // The layout DATA_DIR always had: <kind>/<sha[0..2]>/<sha>.
  expect(filesUnder(root)).toEqual([path.join('artifacts', key.split('/')[1], key.split('/')[2])]);
  await store.delete(key);
  expect(await store.head(key)).toBeNull();
  await expect(store.delete(key)).resolves.toBeUndefined();
});

test('a stream is written chunk by chunk and replaces the previous blob whole', async () => {
  const store = filesystemBlobStore(root);
  const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(64 * 1024, i));
  await store.put('research-archives/a/big.warc', Readable.from(chunks));
  expect(await store.head('research-archives/a/big.warc')).toEqual({ size: 64 * 64 * 1024 });
  await store.put('research-archives/a/big.warc', Buffer.from('small'));
  expect((await bufferOf((await store.get('research-archives/a/big.warc'))!)).toString()).toBe('small');
  expect(filesUnder(root)).toEqual([path.join('research-archives', 'a', 'big.warc')]);
});

test('a failing stream leaves neither the blob nor a temporary file', async () => {
  const store = filesystemBlobStore(root);
  const failing = new Readable({
    read() {
      this.destroy(new Error('connection reset'));
    },
  });
  await expect(store.put('media/ab/x.png', failing)).rejects.toThrow('connection reset');
  expect(await store.head('media/ab/x.png')).toBeNull();
  expect(filesUnder(root)).toEqual([]);
});

test('keys that could leave the root are refused', async () => {
  const store = filesystemBlobStore(root);
  for (const key of ['../x', '/etc/passwd', 'a//b', 'a/../b', '', 'a/.hidden'])
    await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/Invalid blob key/);
});

test('withLocalCopy gives a local file with the bytes and removes it afterwards, also when the use throws', async () => {
  const store = filesystemBlobStore(root);
  await store.put('uploads/one.csv', Buffer.from('sku,name\n1,a\n'));
  let seen = '';
  const text = await withLocalCopy(store, 'uploads/one.csv', async (file) => {
    seen = file;
    expect(file.startsWith(root)).toBe(false);
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
