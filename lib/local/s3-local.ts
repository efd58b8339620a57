import S3rver from 's3rver';
import { mkdirSync } from 'node:fs';

/** A local S3 API (npm `s3rver`) on loopback; objects are files under `dir`. */
export async function startS3Local(dir: string) {
  mkdirSync(dir, { recursive: true });
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true });
  const { port } = (await server.run()) as { port: number };
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => server.close() as Promise<void> };
}
