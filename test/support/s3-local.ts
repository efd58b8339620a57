import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startS3Local, type S3Local } from '#lib/local/s3-local.ts';

/**
 * A local S3 server of this test file's own (data in a temporary directory) with `bucket` made:
 * started before the file's tests, stopped and its directory removed after them. `client` is set
 * once the file's first `beforeAll` has run.
 */
export function localS3Bucket(bucket: string): { client: S3Client; server: S3Local; dir: string } {
  const local = {} as { client: S3Client; server: S3Local; dir: string };
  let dir: string | undefined;
  beforeAll(async () => {
    dir = local.dir = mkdtempSync(join(tmpdir(), 'shroud-s3-'));
    local.server = await startS3Local(dir);
    local.client = new S3Client({
      region: 'us-east-1',
      endpoint: local.server.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    await local.client.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(async () => {
    local.client?.destroy();
    await local.server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return local;
}
