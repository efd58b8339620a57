import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Local } from '#lib/local/s3-local.ts';
import { BlockCorruptError, BlockNotFoundError, S3Blockstore } from '#lib/storage/blockstore.ts';
import { exportContent, importContent } from '#lib/storage/cid.ts';

let dir: string;
let server: Awaited<ReturnType<typeof startS3Local>>;
let client: S3Client;
let store: S3Blockstore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shroud-blockstore-'));
  server = await startS3Local(dir);
  client = new S3Client({ region: 'us-east-1', endpoint: server.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await client.send(new CreateBucketCommand({ Bucket: 'blocks-test' }));
  store = new S3Blockstore(client, 'blocks-test');
});
afterAll(async () => {
  client?.destroy();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const bytesOf = async (it: AsyncIterable<Uint8Array>) => {
  const parts: Uint8Array[] = [];
  for await (const p of it) parts.push(p);
  return Buffer.concat(parts);
};

describe('S3Blockstore', () => {
  it('round-trips a multi-block file through the importer and the exporter, one object per block', async () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 20)) & 255;
    const { cid } = await importContent([bytes], store);
    expect(await store.has(cid)).toBe(true);
    expect(store.key(cid)).toBe(`blocks/${cid}`);
    expect((await bytesOf(exportContent(cid, store))).equals(bytes)).toBe(true);
  });

  it('refuses a block whose bytes do not hash to its CID', async () => {
    const { cid } = await importContent([Buffer.from('some block')], store);
    await client.send(new PutObjectCommand({ Bucket: 'blocks-test', Key: store.key(cid), Body: Buffer.from('other bytes') }));
    await expect(bytesOf(store.get(cid))).rejects.toBeInstanceOf(BlockCorruptError);
  });

  it('reports a missing block as BlockNotFoundError, and deletes', async () => {
    const { cid } = await importContent([Buffer.from('short-lived')], store);
    await store.delete(cid);
    expect(await store.has(cid)).toBe(false);
    await expect(bytesOf(store.get(cid))).rejects.toBeInstanceOf(BlockNotFoundError);
  });
});
