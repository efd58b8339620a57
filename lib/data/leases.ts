import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { getItem, isConditionalFailure, type Key } from './items.ts';

/**
 * A lease on one item (`owner`, `expiresAt`, a TTL a minute past it): taken by a conditional put
 * when nobody holds a live one, so two Lambda instances can never both hold it. Returns false
 * when it is held. The wallets' signing lease and the swap pools' lease are two of these.
 */
export async function acquireLease(key: Key, owner: string, seconds: number): Promise<boolean> {
  const now = clock.nowMs();
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...key, owner, expiresAt: now + seconds * 1000, ttl: Math.ceil(now / 1000 + seconds + 60) },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

/** Releases the lease if `owner` still holds it (an expired-and-retaken lease is left alone). */
export async function releaseLease(key: Key, owner: string): Promise<void> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName,
        Key: key,
        ConditionExpression: '#o = :o',
        ExpressionAttributeNames: { '#o': 'owner' },
        ExpressionAttributeValues: { ':o': owner },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/**
 * Hands the lease from `owner` to `to` for `seconds` from now, if `owner` still holds it (a
 * conditional update); false when it does not.
 */
export async function handOverLease(key: Key, owner: string, to: string, seconds: number): Promise<boolean> {
  const now = clock.nowMs();
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #o = :to, expiresAt = :exp, #t = :ttl',
        ConditionExpression: '#o = :o',
        ExpressionAttributeNames: { '#o': 'owner', '#t': 'ttl' },
        ExpressionAttributeValues: { ':o': owner, ':to': to, ':exp': now + seconds * 1000, ':ttl': Math.ceil(now / 1000 + seconds + 60) },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

/** Who holds the lease now (a live one), or undefined. */
export async function leaseHolder(key: Key): Promise<string | undefined> {
  const item = await getItem(key);
  return item && typeof item.owner === 'string' && Number(item.expiresAt) >= clock.nowMs() ? item.owner : undefined;
}
