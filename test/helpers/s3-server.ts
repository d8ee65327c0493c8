/**
 * An S3-compatible server on 127.0.0.1 for tests of the S3 blob store: `s3rver`, a maintained S3
 * emulator from npm, storing under a temporary folder, with one bucket. The server counts the
 * object writes it completed itself, so a test can audit what a store received instead of what a
 * sender says it sent (docs/testing.md, "Durability").
 */
import type http from 'node:http';
import S3rver from 's3rver';

/** A running server: the settings that reach it, what it stored, and how to stop it. */
export interface TestS3Server {
  /** The environment variables of src/config.ts that select this server as the blob store. */
  env: Record<string, string>;
  /**
   * Object writes the server completed (2xx), by object key: a single `PutObject`, or the
   * `CompleteMultipartUpload` that ends a multipart upload (its part uploads are not counted).
   */
  writes(): Map<string, number>;
  close(): Promise<void>;
}

/**
 * The object key an S3 request writes, or null when it is not an object write: `PUT /<bucket>/<key>`
 * without `partNumber`/`uploadId` (PutObject) or without the copy header, and `POST
 * /<bucket>/<key>?uploadId=` (CompleteMultipartUpload); path-style addressing (S3 API reference).
 */
export function objectWriteKey(method: string | undefined, url: string, headers: http.IncomingHttpHeaders, bucket: string): string | null {
  const parsed = new URL(url, 'http://s3.local');
  const prefix = `/${bucket}/`;
  if (!parsed.pathname.startsWith(prefix) || parsed.pathname.length === prefix.length) return null;
  const key = decodeURIComponent(parsed.pathname.slice(prefix.length));
  const q = parsed.searchParams;
  if (method === 'PUT' && !q.has('partNumber') && !q.has('uploadId') && !headers['x-amz-copy-source']) return key;
  if (method === 'POST' && q.has('uploadId')) return key;
  return null;
}

/** Starts s3rver on a free port with the bucket `bucket`, storing under `directory`. */
export async function startS3Server(directory: string, bucket = 'blobs'): Promise<TestS3Server> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as { port: number };
  const writes = new Map<string, number>();
  (server as unknown as { httpServer: http.Server }).httpServer.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const key = objectWriteKey(req.method, req.url ?? '/', req.headers, bucket);
    if (key === null) return;
    res.once('finish', () => {
      if (res.statusCode >= 200 && res.statusCode < 300) writes.set(key, (writes.get(key) ?? 0) + 1);
    });
  });
  return {
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_REGION: 'us-east-1',
      // s3rver's fixed development credentials.
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    writes: () => new Map(writes),
    close: () => server.close(),
  };
}
