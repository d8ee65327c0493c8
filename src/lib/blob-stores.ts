import type { BlobStoreSettings } from '../config';
import type { BlobStore } from './blob-store';
import { filesystemBlobStore } from './blob-store-fs';

/**
 * The blob store a configuration names (`Config.blobStore`, docs/configuration.md).
 * @throws Error for the S3 backend: it needs `@aws-sdk/client-s3`, which this build does not
 *   include yet, so a process configured with `S3_BUCKET` refuses to start rather than writing
 *   files another process cannot reach
 */
export function createBlobStore(settings: BlobStoreSettings): BlobStore {
  if (settings.backend === 'filesystem') return filesystemBlobStore(settings.root);
  throw new Error(
    `S3_BUCKET=${settings.bucket} names the S3 blob store, which needs the package @aws-sdk/client-s3 (not installed); unset S3_BUCKET to use the filesystem`,
  );
}
