import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { acquireLeaseWaiting, releaseLease } from './leases.ts';
import { decoder, isConditionalFailure, putNew, readItem } from './items.ts';
import { sealedKeySchema } from './wallets.ts';

/**
 * The local swap pools and the service keys that own chain A accounts (pool authorities, the
 * rewards treasury). Items:
 *
 *   SERVICEKEY#<name> / KEY            {address, sealedKey, mints…}: a service key and what it set up
 *   SWAPPOOLLOCK#<pairId> / LOCK       {owner, expiresAt, ttl}: the pool's pricing-and-signing lease
 *
 * A service key is written once (conditional put): two instances seeding at the same moment
 * agree on whichever record landed first.
 */
const serviceKeyKey = (name: string) => ({ pk: `SERVICEKEY#${name}`, sk: 'KEY' });
const poolLockKey = (pairId: string) => ({ pk: `SWAPPOOLLOCK#${pairId}`, sk: 'LOCK' });

const serviceKeySchema = z.object({
  name: z.string(),
  address: z.string(),
  sealedKey: sealedKeySchema,
  /** Mints this key created, by symbol. */
  mints: z.record(z.string(), z.string()),
  createdAt: z.string(),
});
export type ServiceKeyRecord = z.infer<typeof serviceKeySchema>;
const asServiceKey = decoder('service key', serviceKeySchema);

export const getServiceKey = (name: string) => readItem(serviceKeyKey(name), asServiceKey);

/** Stores the record unless one exists; returns the one that is stored either way. */
export async function putServiceKeyOnce(r: ServiceKeyRecord): Promise<ServiceKeyRecord> {
  try {
    await putNew({ ...serviceKeyKey(r.name), ...r });
    return r;
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    return (await getServiceKey(r.name))!;
  }
}

/** Replaces a record whose chain accounts no longer exist (a fresh local chain under an old table). */
export async function replaceServiceKey(old: ServiceKeyRecord, r: ServiceKeyRecord): Promise<ServiceKeyRecord> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...serviceKeyKey(r.name), ...r },
        ConditionExpression: 'address = :a',
        ExpressionAttributeValues: { ':a': old.address },
      }),
    );
    return r;
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    return (await getServiceKey(r.name))!;
  }
}

/** Takes the pool's lease for `seconds`, waiting up to `waitMs` while another holds it (lib/data/leases.ts); false when it still is. */
export const acquirePoolLease = (pairId: string, owner: string, seconds: number, waitMs: number): Promise<boolean> =>
  acquireLeaseWaiting(poolLockKey(pairId), owner, seconds, waitMs);

/** Releases the lease if `owner` still holds it. */
export const releasePoolLease = (pairId: string, owner: string): Promise<void> => releaseLease(poolLockKey(pairId), owner);
