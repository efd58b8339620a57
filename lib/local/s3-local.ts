import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { mkdirSync } from 'node:fs';

export interface S3Local {
  endpoint: string;
  /** Stops the server and starts it again on the same port and data (fault tests). */
  restart(opts?: { downMs?: number }): Promise<void>;
  /** Takes the server down (a failure domain that is out) until `up()`; same port and data. */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

/** A local S3 API (npm `s3rver`) on loopback; objects are files under `dir`. */
export async function startS3Local(dir: string): Promise<S3Local> {
  mkdirSync(dir, { recursive: true });
  const start = async (port: number) => {
    const server = new S3rver({ address: '127.0.0.1', port, directory: dir, silent: true });
    const { port: bound } = (await server.run()) as { port: number };
    return { server, port: bound };
  };
  let current: Awaited<ReturnType<typeof start>> | undefined = await start(0);
  const port = current.port;
  const down = async () => {
    const was = current;
    current = undefined;
    await was?.server.close();
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async restart({ downMs = 0 } = {}) {
      await down();
      if (downMs) await new Promise((r) => setTimeout(r, downMs));
      current = await start(port);
    },
    down,
    async up() {
      current ??= await start(port);
    },
    stop: down,
  };
}

/** Creates `bucket` on a local S3 when it is missing. */
export async function ensureLocalBucket(endpoint: string, bucket: string): Promise<void> {
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    s3.destroy();
  }
}
