/**
 * The S3 blob store (src/lib/blob-store-s3.ts) against an S3-compatible server on 127.0.0.1
 * (s3rver, test/helpers/s3-server.ts): bytes and large streams round-trip, ranged reads, a missing
 * key is null, a failed upload leaves no object, keys that could escape are refused, and the
 * configuration selects it (issue 29 §8).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../../../src/config';
import { bufferOf, contentKey, type BlobStore } from '../../../src/lib/blob-store';
import { createBlobStore } from '../../../src/lib/blob-stores';
import { startS3Server, type TestS3Server } from '../../helpers/s3-server';

let dir: string;
let server: TestS3Server;
let store: BlobStore;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blob-s3-'));
  server = await startS3Server(dir);
  const config = loadConfig({ ...server.env, DATA_DIR: path.join(dir, 'unused') });
  expect(config.blobStore.backend).toBe('s3');
  store = createBlobStore(config.blobStore);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('put, head, get (whole and ranged) and delete; a missing key is null', async () => {
  const bytes = Buffer.from('<html>page</html>');
  const key = contentKey('artifacts', 'ab'.repeat(32));
  expect(await store.head(key)).toBeNull();
  expect(await store.get(key)).toBeNull();
  await store.put(key, bytes);
  expect(await store.head(key)).toEqual({ size: bytes.length });
  expect((await bufferOf((await store.get(key))!)).equals(bytes)).toBe(true);
  expect((await bufferOf((await store.get(key, { start: 6, end: 9 }))!)).toString()).toBe('page');
  await store.delete(key);
  expect(await store.head(key)).toBeNull();
  await expect(store.delete(key)).resolves.toBeUndefined();
  // Nothing was written to the process's own data directory.
  expect(fs.existsSync(path.join(dir, 'unused'))).toBe(false);
});

test('a stream larger than one upload part round-trips and replaces the previous object whole', async () => {
  const chunks = Array.from({ length: 12 }, (_, i) => Buffer.alloc(1024 * 1024, i));
  await store.put('research-archives/a/big.warc', Readable.from(chunks));
  expect(await store.head('research-archives/a/big.warc')).toEqual({ size: 12 * 1024 * 1024 });
  const back = await bufferOf((await store.get('research-archives/a/big.warc', { start: 5 * 1024 * 1024, end: 5 * 1024 * 1024 + 3 }))!);
  expect([...back]).toEqual([5, 5, 5, 5]);
  await store.put('research-archives/a/big.warc', Buffer.from('small'));
  expect((await bufferOf((await store.get('research-archives/a/big.warc'))!)).toString()).toBe('small');
});

test('a failing stream leaves no object', async () => {
  const failing = new Readable({
    read() {
      this.destroy(new Error('connection reset'));
    },
  });
  await expect(store.put('media/ab/x.png', failing)).rejects.toThrow('connection reset');
  expect(await store.head('media/ab/x.png')).toBeNull();
});

test('keys that could escape are refused before any request', async () => {
  for (const key of ['../x', '/etc/passwd', 'a//b', 'a/../b', '']) await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/Invalid blob key/);
});
