import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { isConditionalFailure } from './items.ts';

/**
 * Rate counters: one item per (group, client, fixed window), counting the requests admitted in
 * that window. The count only grows and never passes the limit: tokens are taken with a
 * conditional `ADD`, so every Lambda instance draws from the same budget.
 */
export interface RateCounterItem {
  pk: string;
  sk: string;
  count: number;
  ttl: number;
}

export const rateCounterKey = (group: string, client: string, windowStart: number) => ({
  pk: `RATE#${group}#${client}`,
  sk: String(windowStart),
});

/** The counter outlives its window by one more window, then DynamoDB may delete it. */
export const rateCounterTtl = (windowStart: number, windowSeconds: number): number => windowStart + 2 * windowSeconds;

export interface Taken {
  /** Tokens granted: `wanted`, or fewer when fewer remain (0 when the window is used up). */
  granted: number;
  /** The window's count after this take, across every instance. */
  count: number;
}

const countOf = (raw: unknown): number => {
  // Condition-failure items come back marshalled ({N: "12"}), document-client items as numbers.
  if (typeof raw === 'number') return raw;
  const n = (raw as { N?: string } | undefined)?.N;
  return n === undefined ? 0 : Number(n);
};

/**
 * Take up to `wanted` tokens from the window's counter without ever letting it pass `limit`:
 * `ADD wanted` only if `count + wanted <= limit`; when that fails, take exactly what remains
 * (read from the failed condition's item), and again until it fits or nothing remains. Each retry
 * means another instance took tokens meanwhile, so the loop ends.
 */
export async function takeTokens(key: { pk: string; sk: string }, wanted: number, limit: number, ttl: number): Promise<Taken> {
  let n = Math.min(wanted, limit);
  while (n > 0) {
    try {
      const out = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'ADD #n :n SET #ttl = if_not_exists(#ttl, :ttl)',
          ConditionExpression: 'attribute_not_exists(#n) OR #n <= :max',
          ExpressionAttributeNames: { '#n': 'count', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':n': n, ':max': limit - n, ':ttl': ttl },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { granted: n, count: countOf(out.Attributes?.count) };
    } catch (e) {
      if (!isConditionalFailure(e)) throw e;
      const failed = (e as { Item?: Record<string, unknown> }).Item;
      const count = failed ? countOf(failed.count) : await readCount(key);
      const remaining = limit - count;
      if (remaining <= 0) return { granted: 0, count };
      n = Math.min(n, remaining);
    }
  }
  return { granted: 0, count: limit };
}

/** A strongly consistent read of the count (when a failed condition did not return the item). */
async function readCount(key: { pk: string; sk: string }): Promise<number> {
  const out = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  return countOf((out.Item as Partial<RateCounterItem> | undefined)?.count);
}
