import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { putIf, updateIf } from './conditional.ts';
import { absentOrExpired, allOf, decoder, deleteItem, presentAndLive, readItem } from './items.ts';
import { CONFLICT, retryOnConflict, type Conflict } from './retry.ts';

/**
 * Password checks per username, counted in a window (lib/auth/login-throttle.ts has the policy):
 *
 *   LOGINFAIL#<lower username> / LOGINFAIL   { count, ttl }
 *
 * `count`: checks reserved in the window (a success clears the item). TTL: the end of the
 * window the first check opened; the item is the window.
 */
const failuresSchema = z.object({ count: z.number(), ttl: z.number() });
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
  return retryOnConflict(
    async (): Promise<Reservation | Conflict> => {
      const now = clock.nowSeconds();
      const counted = await updateIf(
        key(username),
        { add: ['#n :one'], names: { '#n': 'count' }, values: { ':one': 1, ':max': max } },
        allOf(presentAndLive(now), { ConditionExpression: '#n < :max' }),
      );
      if (counted) return { reserved: true };
      // The window is used up, or there was no live window (a concurrent request may have opened one since).
      const window = await readFailures(username);
      if (window && window.count >= max) return { reserved: false, retryAfterSeconds: Math.max(1, window.endsAt - now) };
      if (window) return CONFLICT;
      if (await putIf({ ...key(username), count: 1, ttl: now + windowSeconds }, absentOrExpired(now))) return { reserved: true };
      // A concurrent request opened the window first: reserve in it (next round).
      return CONFLICT;
    },
    { attempts: 8, exhausted: () => new Error('login attempt reservation kept conflicting') },
  );
}

export const clearFailures = (username: string): Promise<void> => deleteItem(key(username));
