import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { absentOrExpired, decoder, deleteItem, isConditionalFailure, presentAndLive, readItem, withCondition } from './items.ts';

/**
 * Failed password logins per username, counted in a window (lib/auth/login-throttle.ts has the
 * policy):
 *
 *   LOGINFAIL#<lower username> / LOGINFAIL   { count, ttl }
 *
 * TTL: the end of the window the first failure opened; the item is the window.
 */
const failuresSchema = z.object({ count: z.number(), ttl: z.number() });
export type LoginFailures = z.infer<typeof failuresSchema>;
export const loginFailuresDecoder = decoder('login failure counter', failuresSchema);

const key = (username: string) => ({ pk: `LOGINFAIL#${username.toLowerCase()}`, sk: 'LOGINFAIL' });

/** The live window of `username`: its failure count and when it ends (epoch seconds). */
export async function readFailures(username: string): Promise<{ count: number; endsAt: number } | undefined> {
  const item = await readItem(key(username), loginFailuresDecoder);
  return item && { count: item.count, endsAt: item.ttl };
}

/** Counts one failure atomically; with no live window, opens one of `windowSeconds`. */
export async function addFailure(username: string, windowSeconds: number): Promise<void> {
  const now = clock.nowSeconds();
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key(username),
        UpdateExpression: 'ADD #n :one',
        ...withCondition(presentAndLive(now), { names: { '#n': 'count' }, values: { ':one': 1 } }),
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    // No live window: open one. If a concurrent failure opened it first, count into it instead.
    try {
      await db.send(
        new PutCommand({ TableName: tableName, Item: { ...key(username), count: 1, ttl: now + windowSeconds }, ...absentOrExpired(now) }),
      );
    } catch (e2) {
      if (!isConditionalFailure(e2)) throw e2;
      await addFailure(username, windowSeconds);
    }
  }
}

export const clearFailures = (username: string): Promise<void> => deleteItem(key(username));
