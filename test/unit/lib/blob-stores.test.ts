/**
 * Which blob store a configuration names (src/config.ts `blobStore`, src/lib/blob-stores.ts):
 * `npm start` keeps the filesystem under DATA_DIR; BLOB_DIR moves it; S3_BUCKET selects the
 * S3-compatible backend (tested against a server in blob-store-contract.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { bufferOf } from '../../../src/lib/blob-store';
import { createBlobStore } from '../../../src/lib/blob-stores';

test('the default is the filesystem under DATA_DIR, where the files always were', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blob-config-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config.blobStore).toEqual({ backend: 'filesystem', root: dataDir });
    await createBlobStore(config.blobStore).put('media/ab/x.png', Buffer.from('png'));
    expect(fs.readFileSync(path.join(dataDir, 'media', 'ab', 'x.png'), 'utf8')).toBe('png');
    const moved = loadConfig({ DATA_DIR: dataDir, BLOB_DIR: path.join(dataDir, 'shared') });
    expect(moved.blobStore).toEqual({ backend: 'filesystem', root: path.join(dataDir, 'shared') });
    expect(await createBlobStore(moved.blobStore).get('media/ab/x.png')).toBeNull();
    expect((await bufferOf((await createBlobStore(config.blobStore).get('media/ab/x.png'))!)).toString()).toBe('png');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('S3_BUCKET selects the S3-compatible store with its settings', () => {
  const env = { S3_BUCKET: 'blobs', S3_ENDPOINT: 'http://minio:9000', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' };
  expect(loadConfig(env).blobStore).toEqual({
    backend: 's3',
    bucket: 'blobs',
    endpoint: 'http://minio:9000',
    region: 'us-east-1',
    accessKeyId: 'id',
    secretAccessKey: 'secret',
    forcePathStyle: true,
  });
  expect(loadConfig({ S3_BUCKET: 'b', S3_REGION: 'eu-west-1' }).blobStore).toMatchObject({ endpoint: null, region: 'eu-west-1', forcePathStyle: false });
  expect(loadConfig({ ...env, S3_FORCE_PATH_STYLE: 'false' }).blobStore).toMatchObject({ forcePathStyle: false });
});
