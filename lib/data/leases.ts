import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite, deleteIf, putIf, type Update } from './conditional.ts';
import { tableName } from './client.ts';
import { getItem, type Condition, type Key, type RawItem } from './items.ts';
import { CONFLICT, retryOnConflict } from './retry.ts';

/**
 * The lease of the concurrency kit (docs/concurrency.md): one record, `{owner, expiresAt}`
 * (`expiresAt` in epoch ms), held by one owner at a time and free again once it expires, so a
 * holder that dies frees it by itself. It lives in one of two places:
 *
 * - its own item (`itemLease`): `owner` and `expiresAt` are the item's attributes, with a `ttl` a
 *   minute past the expiry so DynamoDB removes it eventually. The wallets' signing lease
 *   (WALLETLOCK#), the swap pools' (SWAPPOOLLOCK#).
 * - an attribute `lease` (a map of the same two fields) on the item it guards
 *   (`embeddedLease`), when the lease must change together with that item's state: a payout job
 *   (SJOB#), an idempotency record (IDEMPOTENCY#).
 *
 * Taking is conditional on the lease being absent or expired (`expiresAt < now`); renewing,
 * handing over and releasing on `owner`: an owner whose lease expired and was taken by another
 * changes nothing.
 */
export const leaseSchema = z.object({ owner: z.string(), expiresAt: z.number() });
export type Lease = z.infer<typeof leaseSchema>;

/** The lease that ends `seconds` from now. */
export const leaseFor = (owner: string, seconds: number, nowMs = clock.nowMs()): Lease => ({ owner, expiresAt: nowMs + seconds * 1000 });

/** Whether `lease` is held at `nowMs` (its expiry included: it is free strictly after). */
export const isLive = (lease: Lease | undefined, nowMs = clock.nowMs()): lease is Lease => lease !== undefined && lease.expiresAt >= nowMs;

// ---- a lease as an attribute of the item it guards ------------------------------------------

/** The conditions and updates of a lease kept in the attribute `lease` of an entity's item. */
export const embeddedLease = {
  /** Nobody holds a live lease. */
  free: (nowMs: number): Condition => ({
    ConditionExpression: 'attribute_not_exists(#lease) OR #lease.#leaseExpires < :leaseNow',
    ExpressionAttributeNames: { '#lease': 'lease', '#leaseExpires': 'expiresAt' },
    ExpressionAttributeValues: { ':leaseNow': nowMs },
  }),
  /** `owner` holds it (live or not: an expired lease nobody has taken is still its holder's). */
  heldBy: (owner: string): Condition => ({
    ConditionExpression: '#lease.#leaseOwner = :leaseOwner',
    ExpressionAttributeNames: { '#lease': 'lease', '#leaseOwner': 'owner' },
    ExpressionAttributeValues: { ':leaseOwner': owner },
  }),
  /** Sets the lease. */
  take: (lease: Lease): Update => ({ set: ['#lease = :lease'], names: { '#lease': 'lease' }, values: { ':lease': lease } }),
  /** Removes it. */
  drop: (): Update => ({ remove: ['#lease'], names: { '#lease': 'lease' } }),
  /** The lease stored on `item`, if any (live or not). */
  read: (item: RawItem): Lease | undefined => {
    const l = leaseSchema.safeParse(item.lease);
    return l.success ? l.data : undefined;
  },
};

// ---- a lease that is an item of its own ------------------------------------------------------

const leaseItem = (key: Key, lease: Lease) => ({ ...key, ...lease, ttl: Math.ceil(lease.expiresAt / 1000 + 60) });
const ownerIs = (owner: string): Condition => ({
  ConditionExpression: '#o = :o',
  ExpressionAttributeNames: { '#o': 'owner' },
  ExpressionAttributeValues: { ':o': owner },
});

/** Takes the lease at `key` for `seconds` when nobody holds a live one; false when it is held. */
export function acquireLease(key: Key, owner: string, seconds: number): Promise<boolean> {
  const now = clock.nowMs();
  return putIf(leaseItem(key, leaseFor(owner, seconds, now)), {
    ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
    ExpressionAttributeValues: { ':now': now },
  });
}

/**
 * Takes the lease at `key`, waiting for it up to `waitMs` of wall time when it is held (tries
 * a few tens of ms apart, with full jitter: retry.ts); false when it is still held then.
 */
export async function acquireLeaseWaiting(key: Key, owner: string, seconds: number, waitMs: number, pause = { baseMs: 20, capMs: 80 }): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  return retryOnConflict(async () => ((await acquireLease(key, owner, seconds)) ? true : Date.now() > deadline ? false : CONFLICT), {
    ...pause,
    attempts: Number.MAX_SAFE_INTEGER,
  });
}

/** Releases the lease if `owner` still holds it (an expired-and-retaken lease is left alone). */
export async function releaseLease(key: Key, owner: string): Promise<void> {
  await deleteIf(key, ownerIs(owner));
}

/** The release of `releaseLease`, as an item of a transaction that does something else too. */
export const releaseLeaseItem = (key: Key, owner: string) => ({ Delete: { TableName: tableName, Key: key, ...ownerIs(owner) } });

/**
 * Hands the lease from `owner` to `to` for `seconds` from now, if `owner` still holds it; false
 * when it does not. `to` = `owner` renews it.
 */
export function handOverLease(key: Key, owner: string, to: string, seconds: number): Promise<boolean> {
  return conditionalWrite(new UpdateCommand(handOverLeaseItem(key, owner, to, seconds).Update));
}

/** `handOverLease` as an item of a transaction that writes more, its condition the same. */
export function handOverLeaseItem(key: Key, owner: string, to: string, seconds: number) {
  const lease = leaseFor(to, seconds);
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'SET #o = :to, expiresAt = :exp, #t = :ttl',
      ConditionExpression: '#o = :o',
      ExpressionAttributeNames: { '#o': 'owner', '#t': 'ttl' },
      ExpressionAttributeValues: { ':o': owner, ':to': to, ':exp': lease.expiresAt, ':ttl': leaseItem(key, lease).ttl },
    },
  };
}

/** Extends `owner`'s lease to `seconds` from now; false when it no longer holds it. */
export const renewLease = (key: Key, owner: string, seconds: number): Promise<boolean> => handOverLease(key, owner, owner, seconds);

/** The lease at `key` as stored (live or not), or undefined. */
export async function readLease(key: Key): Promise<Lease | undefined> {
  const item = await getItem(key);
  const l = leaseSchema.safeParse(item);
  return l.success ? l.data : undefined;
}

/** Who holds the lease now (a live one), or undefined. */
export async function leaseHolder(key: Key): Promise<string | undefined> {
  const lease = await readLease(key);
  return isLive(lease) ? lease.owner : undefined;
}
