/**
 * An S3-compatible server on 127.0.0.1 for tests of the S3 blob store: `s3rver`, a
 * maintained S3 emulator from npm, storing under a temporary folder, with one bucket.
 */
import S3rver from 's3rver';

/** A running server: the settings that reach it, and how to stop it. */
export interface TestS3Server {
  /** The environment variables of src/config.ts that select this server as the blob store. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts s3rver on a free port with the bucket `bucket`, storing under `directory`. */
export async function startS3Server(directory: string, bucket = 'blobs'): Promise<TestS3Server> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as { port: number };
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
    close: () => server.close(),
  };
}
