import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobStoreSettings } from '../config';
import { checkBlobKey, type BlobStore } from './blob-store';

/** The settings of the S3 backend. */
type S3Settings = Extract<BlobStoreSettings, { backend: 's3' }>;

/** Whether an SDK error means "no such object" (404 / NoSuchKey / NotFound). */
function notFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * The blob store on an S3-compatible object store (AWS S3, MinIO) through
 * `@aws-sdk/client-s3`: every API and worker process on every host reaches the same bucket.
 * Streams are uploaded in parts (`@aws-sdk/lib-storage` `Upload`, never buffered whole) and an
 * object becomes visible only when its upload completes, so readers never see a partial blob.
 * Ranged reads use the HTTP `Range` header (RFC 9110 §14.1.2).
 */
export function s3BlobStore(settings: S3Settings): BlobStore {
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
  });
  const Bucket = settings.bucket;
  return {
    async put(key, body) {
      const Key = checkBlobKey(key);
      if (Buffer.isBuffer(body)) {
        await client.send(new PutObjectCommand({ Bucket, Key, Body: body, ContentLength: body.length }));
        return;
      }
      await new Upload({ client, params: { Bucket, Key, Body: body } }).done();
    },
    async get(key, range) {
      try {
        const answer = await client.send(
          new GetObjectCommand({ Bucket, Key: checkBlobKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        );
        return answer.Body instanceof Readable ? answer.Body : Readable.from([]);
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    async head(key) {
      try {
        const answer = await client.send(new HeadObjectCommand({ Bucket, Key: checkBlobKey(key) }));
        return { size: Number(answer.ContentLength ?? 0) };
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: checkBlobKey(key) }));
    },
  };
}
