import { BatchWriteCommand, QueryCommand, type BatchWriteCommandInput, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { decoder } from './items.ts';

/**
 * The block index of the s3 pinning adapter: which uploads hold each content block, so that a
 * block shared by two files goes only when no pinned content uses it (no TTL):
 *
 *   BLOCK#<block cid> / UP#<uploadId>   { owner, at }
 *
 * `at`: epoch seconds the entry was written (entries written before it existed have none).
 */
const blockKey = (block: string, owner: string) => ({ pk: `BLOCK#${block}`, sk: `UP#${owner}` });
const entrySchema = z.object({ owner: z.string(), at: z.number().optional() });
export type BlockEntry = z.infer<typeof entrySchema>;
const entryDecoder = decoder('block index entry', entrySchema);

type WriteRequests = NonNullable<BatchWriteCommandInput['RequestItems']>[string];

/** BatchWriteItem in slices of 25, retrying what DynamoDB leaves unprocessed (with backoff). */
async function batchWrite(requests: WriteRequests): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: WriteRequests | undefined = requests.slice(i, i + 25);
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt > 8) throw new Error('block index: unprocessed items after retries');
      if (attempt) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      const out: BatchWriteCommandOutput = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = out.UnprocessedItems?.[tableName];
    }
  }
}

/** Records that `owner` (an upload) holds these blocks. */
export const addBlockEntries = (blocks: readonly string[], owner: string): Promise<void> => {
  const at = clock.nowSeconds();
  return batchWrite(blocks.map((b) => ({ PutRequest: { Item: { ...blockKey(b, owner), owner, at } } })));
};

/** Forgets `owner`'s hold on these blocks. */
export const removeBlockEntries = (blocks: readonly string[], owner: string): Promise<void> =>
  batchWrite(blocks.map((b) => ({ DeleteRequest: { Key: blockKey(b, owner) } })));

/** The uploads whose entries hold `block` (strongly consistent: a delete decides on it). */
export const holdersOf = async (block: string): Promise<string[]> => (await entriesOf(block)).map((e) => e.owner);

/** The entries that hold `block`, strongly consistent. */
export async function entriesOf(block: string): Promise<BlockEntry[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `BLOCK#${block}` },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => entryDecoder.decode(i));
}
