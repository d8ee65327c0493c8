import type { BlobStoreSettings } from '../config';
import type { BlobStore } from './blob-store';
import { filesystemBlobStore } from './blob-store-fs';
import { s3BlobStore } from './blob-store-s3';

/**
 * The blob store a configuration names (`Config.blobStore`, docs/configuration.md): the
 * filesystem (the default, one machine) or an S3-compatible object store (`S3_BUCKET` set).
 */
export function createBlobStore(settings: BlobStoreSettings): BlobStore {
  return settings.backend === 'filesystem' ? filesystemBlobStore(settings.root) : s3BlobStore(settings);
}
