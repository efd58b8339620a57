import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { absentOrExpired, allOf, decoder, deleteItem, isConditionalFailure, presentAndLive, readItem, withCondition } from './items.ts';

/**
 * Password checks per username, counted in a window (lib/auth/login-throttle.ts has the policy):
 *
 *   LOGINFAIL#<lower username> / LOGINFAIL   { count, ttl }
 *
 * `count`: checks reserved in the window (a success clears the item). TTL: the end of the
 * window the first check opened; the item is the window.
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

export type Reservation = { reserved: true } | { reserved: false; retryAfterSeconds: number };

/**
 * Reserves one password check for `username` in its window, atomically: the count goes up only
 * while it is below `max` (a conditional increment), so however many requests race, at most
 * `max` are reserved per window. With no live window, one of `windowSeconds` is opened holding
 * this first reservation. Refused: the seconds until the window ends.
 */
export async function reserveAttempt(username: string, max: number, windowSeconds: number): Promise<Reservation> {
  for (let round = 0; round < 8; round++) {
    const now = clock.nowSeconds();
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key(username),
          UpdateExpression: 'ADD #n :one',
          ...withCondition(allOf(presentAndLive(now), { ConditionExpression: '#n < :max' }), {
            names: { '#n': 'count' },
            values: { ':one': 1, ':max': max },
          }),
        }),
      );
      return { reserved: true };
    } catch (e) {
      if (!isConditionalFailure(e)) throw e;
    }
    // The window is used up, or there was no live window (a concurrent request may have opened one since).
    const window = await readFailures(username);
    if (window && window.count >= max) return { reserved: false, retryAfterSeconds: Math.max(1, window.endsAt - now) };
    if (window) continue;
    try {
      await db.send(new PutCommand({ TableName: tableName, Item: { ...key(username), count: 1, ttl: now + windowSeconds }, ...absentOrExpired(now) }));
      return { reserved: true };
    } catch (e) {
      if (!isConditionalFailure(e)) throw e;
      // A concurrent request opened the window first: reserve in it (next round).
    }
  }
  throw new Error('login attempt reservation kept conflicting');
}

export const clearFailures = (username: string): Promise<void> => deleteItem(key(username));
