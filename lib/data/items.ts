import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';

export type Key = { pk: string; sk: string };
export type Item = Key & { ttl?: number; [k: string]: unknown };

/** DynamoDB removes expired items only eventually (up to days later): an item past its ttl is gone. */
export function isLive(item: { ttl?: unknown } | undefined, nowSeconds = clock.nowSeconds()): boolean {
  if (!item) return false;
  return typeof item.ttl !== 'number' || item.ttl > nowSeconds;
}

/** Epoch seconds `seconds` from now, for the `ttl` attribute. */
export const ttlIn = (seconds: number): number => clock.nowSeconds() + Math.ceil(seconds);

export async function getItem<T extends Item = Item>(key: Key, consistent = true): Promise<T | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: consistent }));
  const item = out.Item as T | undefined;
  return isLive(item) ? item : undefined;
}

/** Put that fails with ConditionalCheckFailedException when the key exists (and is live). */
export async function putNew(item: Item): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':now': clock.nowSeconds() },
    }),
  );
}

export async function putItem(item: Item): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: item }));
}

export async function deleteItem(key: Key): Promise<void> {
  await db.send(new DeleteCommand({ TableName: tableName, Key: key }));
}

/** Query that pages through every result and drops expired items. */
export async function queryAll<T extends Item = Item>(input: Omit<QueryCommandInput, 'TableName'>): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey }));
    for (const it of (out.Items ?? []) as T[]) if (isLive(it)) items.push(it);
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** Items of one partition, optionally those whose sort key begins with `prefix`. */
export function queryPartition<T extends Item = Item>(
  pk: string,
  opts: { prefix?: string; newestFirst?: boolean; index?: 'gsi1' } = {},
): Promise<T[]> {
  const pkName = opts.index ? 'gsi1pk' : 'pk';
  const skName = opts.index ? 'gsi1sk' : 'sk';
  return queryAll<T>({
    IndexName: opts.index,
    KeyConditionExpression: opts.prefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
    ExpressionAttributeNames: opts.prefix ? { '#pk': pkName, '#sk': skName } : { '#pk': pkName },
    ExpressionAttributeValues: opts.prefix ? { ':pk': pk, ':prefix': opts.prefix } : { ':pk': pk },
    ScanIndexForward: !opts.newestFirst,
  });
}

export const isConditionalFailure = (e: unknown): boolean =>
  e instanceof Error && (e.name === 'ConditionalCheckFailedException' || e.name === 'TransactionCanceledException');
