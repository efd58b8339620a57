import { BatchWriteCommand, QueryCommand, type BatchWriteCommandInput, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { decoder } from './items.ts';

/**
 * The block index of the s3 pinning adapter: which uploads hold each content block, so that a
 * block shared by two files goes only when no pinned content uses it (no TTL):
 *
 *   BLOCK#<block cid> / UP#<uploadId>   { owner }
 */
const blockKey = (block: string, owner: string) => ({ pk: `BLOCK#${block}`, sk: `UP#${owner}` });
const entryDecoder = decoder('block index entry', z.object({ owner: z.string() }));

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
export const addBlockEntries = (blocks: readonly string[], owner: string): Promise<void> =>
  batchWrite(blocks.map((b) => ({ PutRequest: { Item: { ...blockKey(b, owner), owner } } })));

/** Forgets `owner`'s hold on these blocks. */
export const removeBlockEntries = (blocks: readonly string[], owner: string): Promise<void> =>
  batchWrite(blocks.map((b) => ({ DeleteRequest: { Key: blockKey(b, owner) } })));

/** The uploads whose entries hold `block` (strongly consistent: a delete decides on it). */
export async function holdersOf(block: string): Promise<string[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `BLOCK#${block}` },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => entryDecoder.decode(i).owner);
}
