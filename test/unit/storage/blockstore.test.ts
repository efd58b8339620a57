import { PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { localS3Bucket } from '../../support/s3-local.ts';
import { BlockCorruptError, BlockNotFoundError, S3Blockstore } from '#lib/storage/blockstore.ts';
import { exportContent, importContent } from '#lib/storage/cid.ts';

const local = localS3Bucket('blocks-test');
let store: S3Blockstore;

beforeAll(() => {
  store = new S3Blockstore(local.client, 'blocks-test');
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
    await local.client.send(new PutObjectCommand({ Bucket: 'blocks-test', Key: store.key(cid), Body: Buffer.from('other bytes') }));
    await expect(bytesOf(store.get(cid))).rejects.toBeInstanceOf(BlockCorruptError);
  });

  it('reports a missing block as BlockNotFoundError, and deletes', async () => {
    const { cid } = await importContent([Buffer.from('short-lived')], store);
    await store.delete(cid);
    expect(await store.has(cid)).toBe(false);
    await expect(bytesOf(store.get(cid))).rejects.toBeInstanceOf(BlockNotFoundError);
  });
});
