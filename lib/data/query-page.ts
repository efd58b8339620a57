import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { isLive, type RawItem } from './items.ts';

/**
 * One page of a partition (or of gsi1) in sort-key order, for the attest and proof-history
 * listings. The cursor is opaque to clients: base64url of the last returned item's key, checked
 * on the way back to belong to the partition asked for (a cursor never reaches another user's
 * items). A filter may make DynamoDB return short pages; this keeps reading until `limit` items
 * are found or the partition ends, so a page is short only at the end.
 */
export interface PageQuery {
  pk: string;
  index?: 'gsi1';
  /** Sort keys from `skFrom` to `skTo` inclusive (both required when either is given). */
  skFrom?: string;
  skTo?: string;
  newestFirst?: boolean;
  limit: number;
  cursor?: string;
  /** A FilterExpression over non-key attributes with its names and values. */
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
}

export interface Page {
  items: RawItem[];
  nextCursor: string | null;
}

/** A cursor that does not decode, or names another partition. */
export class BadCursor extends Error {
  constructor() {
    super('cursor: not a cursor of this listing');
    this.name = 'BadCursor';
  }
}

const keyNames = (index?: 'gsi1') => (index ? ['pk', 'sk', 'gsi1pk', 'gsi1sk'] : ['pk', 'sk']);

function encodeCursor(item: RawItem, index?: 'gsi1'): string {
  const key = Object.fromEntries(keyNames(index).map((k) => [k, item[k]]));
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string, q: PageQuery): Record<string, string> {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new BadCursor();
  }
  const names = keyNames(q.index);
  if (typeof key !== 'object' || key === null || Object.keys(key).length !== names.length) throw new BadCursor();
  const k = key as Record<string, unknown>;
  if (!names.every((n) => typeof k[n] === 'string')) throw new BadCursor();
  if (k[q.index ? 'gsi1pk' : 'pk'] !== q.pk) throw new BadCursor();
  return k as Record<string, string>;
}

export async function queryPage(q: PageQuery): Promise<Page> {
  const pkName = q.index ? 'gsi1pk' : 'pk';
  const skName = q.index ? 'gsi1sk' : 'sk';
  const names: Record<string, string> = { '#pk': pkName, ...(q.filter?.names ?? {}) };
  const values: Record<string, unknown> = { ':pk': q.pk, ...(q.filter?.values ?? {}) };
  let condition = '#pk = :pk';
  if (q.skFrom !== undefined && q.skTo !== undefined) {
    names['#sk'] = skName;
    values[':skFrom'] = q.skFrom;
    values[':skTo'] = q.skTo;
    condition += ' AND #sk BETWEEN :skFrom AND :skTo';
  }
  const items: RawItem[] = [];
  let start: Record<string, unknown> | undefined = q.cursor ? decodeCursor(q.cursor, q) : undefined;
  let more = true;
  while (items.length < q.limit && more) {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: q.index,
        KeyConditionExpression: condition,
        FilterExpression: q.filter?.expression,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: !q.newestFirst,
        ExclusiveStartKey: start,
        Limit: q.limit - items.length + 1,
      }),
    );
    for (const it of out.Items ?? []) if (isLive(it)) items.push(it);
    start = out.LastEvaluatedKey;
    more = start !== undefined;
  }
  // More than a page read: the rest is for the next call, which starts after the last one kept.
  const page = items.slice(0, q.limit);
  const hasMore = items.length > q.limit || more;
  return { items: page, nextCursor: hasMore && page.length ? encodeCursor(page[page.length - 1]!, q.index) : null };
}
