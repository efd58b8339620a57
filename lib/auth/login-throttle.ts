import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '#lib/clock.ts';
import { db, tableName } from '#lib/data/client.ts';
import { deleteItem, getItem, isConditionalFailure } from '#lib/data/items.ts';

/**
 * Per-username brute-force brake, on top of the auth group's 20 requests per minute per client
 * (which an attacker spreads over many IPs). Policy: the first failed login for a username opens
 * a 15-minute window; the 5th failure inside it locks that username until the window closes —
 * every login for it then answers 429 RATE_LIMITED with Retry-After, without checking the
 * password. A successful login clears the counter. The counter lives in DynamoDB (every Lambda
 * instance sees it) and expires with its window (TTL). Unknown usernames count too, so a lock
 * says nothing about whether the account exists.
 *
 * The price of a username lock is that anyone can lock a known name out for 15 minutes; the
 * window is short and nothing else is affected (sessions stay valid).
 */
export const MAX_FAILURES = 5;
export const WINDOW_SECONDS = 15 * 60;

const key = (username: string) => ({ pk: `LOGINFAIL#${username.toLowerCase()}`, sk: 'LOGINFAIL' });

/** Seconds the username stays locked, or 0 when a login may be tried. */
export async function lockedFor(username: string): Promise<number> {
  const item = await getItem(key(username));
  if (!item || Number(item.count) < MAX_FAILURES) return 0;
  return Math.max(1, Number(item.ttl) - clock.nowSeconds());
}

/** Counts one failure atomically; a window past its end starts over. */
export async function recordFailure(username: string): Promise<void> {
  const now = clock.nowSeconds();
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(username),
        UpdateExpression: 'ADD #n :one',
        ConditionExpression: 'attribute_exists(pk) AND #ttl > :now',
        ExpressionAttributeNames: { '#n': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':now': now },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    // No live window: open one. If a concurrent failure opened it first, count into it instead.
    try {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...key(username), count: 1, ttl: now + WINDOW_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':now': now },
        }),
      );
    } catch (e2) {
      if (!isConditionalFailure(e2)) throw e2;
      await recordFailure(username);
    }
  }
}

export const clearFailures = (username: string): Promise<void> => deleteItem(key(username));
