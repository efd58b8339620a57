import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { acquireLease, handOverLease, leaseHolder, releaseLease } from './leases.ts';
import { getItem, isConditionalFailure, putNew, queryPartition } from './items.ts';

/**
 * Wallet records. Items:
 *
 *   WALLETS#<userId>      / WALLET#<walletId>                   the wallet (with its sealed key)
 *   WALLETNAME#<userId>#<chain>#<lower-case name> / NAME        a name is unique per user and chain
 *   WALLETKEY#<userId>#<chain>#<address> / KEY                  a key is held once per user and chain
 *   WALLETACTIVE#<userId>#<chain> / ACTIVE {walletId}           the user's active wallet on a chain
 *   WALLETLOCK#<walletId> / LOCK {owner, expiresAt, ttl}        the signing lease
 *
 * A wallet is read by (userId, walletId): someone else's id simply is not there, exactly as an
 * unknown one. Creation writes the wallet and its two uniqueness items in one transaction.
 */
export type Chain = 'a' | 'b';

/** The key at rest: AES-256-GCM under a data key that the vault (KMS or the local key file) wraps. */
export const sealedKeySchema = z.object({
  /** Which vault wrapped the data key: `kms:<key id>` or `local`. */
  vault: z.string(),
  dataKey: z.string(),
  iv: z.string(),
  ciphertext: z.string(),
  tag: z.string(),
});
export type SealedKey = z.infer<typeof sealedKeySchema>;

const walletItemSchema = z.object({
  pk: z.string(),
  sk: z.string(),
  id: z.uuid(),
  userId: z.string(),
  chain: z.enum(['a', 'b']),
  name: z.string(),
  address: z.string(),
  createdAt: z.string(),
  sealedKey: sealedKeySchema,
  /** The slot (chain A) of the wallet's last transaction: reads wait for the indexer to reach it. */
  lastSlot: z.number().int().nonnegative().optional(),
});

export interface WalletRecord {
  id: string;
  userId: string;
  chain: Chain;
  name: string;
  address: string;
  createdAt: string;
  sealedKey: SealedKey;
  lastSlot?: number;
}

const walletKey = (userId: string, walletId: string) => ({ pk: `WALLETS#${userId}`, sk: `WALLET#${walletId}` });
const nameKey = (userId: string, chain: Chain, name: string) => ({ pk: `WALLETNAME#${userId}#${chain}#${name.toLowerCase()}`, sk: 'NAME' });
const addressKey = (userId: string, chain: Chain, address: string) => ({ pk: `WALLETKEY#${userId}#${chain}#${address}`, sk: 'KEY' });
const activeKey = (userId: string, chain: Chain) => ({ pk: `WALLETACTIVE#${userId}#${chain}`, sk: 'ACTIVE' });
const lockKey = (walletId: string) => ({ pk: `WALLETLOCK#${walletId}`, sk: 'LOCK' });

/** The typed record, or an error naming what is wrong with a stored item. */
export function decodeWallet(item: Record<string, unknown>): WalletRecord {
  const { pk: _pk, sk: _sk, ...w } = walletItemSchema.parse(item);
  return w;
}

export class WalletConflict extends Error {
  constructor(readonly reason: 'name' | 'key') {
    super(reason === 'name' ? 'a wallet with this name exists on this chain' : 'this key is already one of your wallets');
    this.name = 'WalletConflict';
  }
}

/** Writes a new wallet; `WalletConflict` when its name or key is taken. Decides which one failed by reading after. */
export async function insertWallet(w: WalletRecord): Promise<void> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: { ...walletKey(w.userId, w.id), ...w }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: tableName, Item: { ...nameKey(w.userId, w.chain, w.name), walletId: w.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: tableName, Item: { ...addressKey(w.userId, w.chain, w.address), walletId: w.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    const reasons = (e as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    throw new WalletConflict(reasons[1]?.Code === 'ConditionalCheckFailed' ? 'name' : 'key');
  }
}

export async function getWallet(userId: string, walletId: string): Promise<WalletRecord | undefined> {
  const item = await getItem(walletKey(userId, walletId));
  return item ? decodeWallet(item) : undefined;
}

export async function listWallets(userId: string): Promise<WalletRecord[]> {
  return (await queryPartition(`WALLETS#${userId}`, { prefix: 'WALLET#' })).map(decodeWallet);
}

/** The active wallet id per chain. */
export async function activeWalletIds(userId: string): Promise<Record<Chain, string | undefined>> {
  const [a, b] = await Promise.all([getItem(activeKey(userId, 'a')), getItem(activeKey(userId, 'b'))]);
  const id = (item: Record<string, unknown> | undefined) => (typeof item?.walletId === 'string' ? item.walletId : undefined);
  return { a: id(a), b: id(b) };
}

/** Makes `walletId` active when the user has no active wallet on `chain` yet (first wallet wins). */
export async function activateIfNone(userId: string, chain: Chain, walletId: string): Promise<void> {
  try {
    await putNew({ ...activeKey(userId, chain), walletId });
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** Makes `walletId` the active one on its chain (one pointer item: at most one is ever active). */
export async function setActive(userId: string, chain: Chain, walletId: string): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: { ...activeKey(userId, chain), walletId } }));
}

/** Clears the active pointer if it still names `walletId`. */
export async function clearActive(userId: string, chain: Chain, walletId: string): Promise<void> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName,
        Key: activeKey(userId, chain),
        ConditionExpression: 'walletId = :w',
        ExpressionAttributeValues: { ':w': walletId },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** Renames a wallet: the new name item and the record change together, the old name is freed. */
export async function renameWallet(w: WalletRecord, name: string): Promise<void> {
  if (name.toLowerCase() === w.name.toLowerCase()) {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: walletKey(w.userId, w.id),
        UpdateExpression: 'SET #n = :n',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#n': 'name' },
        ExpressionAttributeValues: { ':n': name },
      }),
    );
    return;
  }
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: { ...nameKey(w.userId, w.chain, name), walletId: w.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Delete: { TableName: tableName, Key: nameKey(w.userId, w.chain, w.name) } },
          {
            Update: {
              TableName: tableName,
              Key: walletKey(w.userId, w.id),
              UpdateExpression: 'SET #n = :n',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: { '#n': 'name' },
              ExpressionAttributeValues: { ':n': name },
            },
          },
        ],
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    throw new WalletConflict('name');
  }
}

/** Deletes the wallet, its sealed key and its uniqueness items in one transaction. */
export async function deleteWallet(w: WalletRecord): Promise<void> {
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: tableName, Key: walletKey(w.userId, w.id), ConditionExpression: 'attribute_exists(pk)' } },
        { Delete: { TableName: tableName, Key: nameKey(w.userId, w.chain, w.name) } },
        { Delete: { TableName: tableName, Key: addressKey(w.userId, w.chain, w.address) } },
      ],
    }),
  );
  await clearActive(w.userId, w.chain, w.id);
}

/** Remembers the slot of the wallet's latest transaction (only ever moves forward). */
export async function recordLastSlot(w: WalletRecord, slot: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: walletKey(w.userId, w.id),
        UpdateExpression: 'SET lastSlot = :s',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastSlot) OR lastSlot < :s)',
        ExpressionAttributeValues: { ':s': slot },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

// ---- the signing lease ----------------------------------------------------------------------

/** Takes the wallet's lease for `seconds` when nobody holds a live one (lib/data/leases.ts); false when it is held. */
export const acquireWalletLease = (walletId: string, owner: string, seconds: number): Promise<boolean> => acquireLease(lockKey(walletId), owner, seconds);

/** Releases the lease if `owner` still holds it. */
export const releaseWalletLease = (walletId: string, owner: string): Promise<void> => releaseLease(lockKey(walletId), owner);

/** The lease's holder when it is held on for a sent transaction (`holdWalletLeaseFor`): its hash. */
const HELD_FOR = 'tx:';

/**
 * Keeps the lease, past the request, for a transaction whose outcome the chain did not tell: no
 * other send from the wallet until it has settled (`walletLeaseHeldFor`) or `seconds` have passed.
 */
export const holdWalletLeaseFor = (walletId: string, owner: string, txHash: string, seconds: number): Promise<boolean> =>
  handOverLease(lockKey(walletId), owner, `${HELD_FOR}${txHash}`, seconds);

/** The transaction the wallet's lease is held on for, if it is. */
export async function walletLeaseHeldFor(walletId: string): Promise<string | undefined> {
  const holder = await leaseHolder(lockKey(walletId));
  return holder?.startsWith(HELD_FOR) ? holder.slice(HELD_FOR.length) : undefined;
}

/** Back from the hold on `txHash` to the request `owner` (its transaction settled while it waited), if still held so. */
export const reclaimWalletLease = (walletId: string, txHash: string, owner: string, seconds: number): Promise<boolean> =>
  handOverLease(lockKey(walletId), `${HELD_FOR}${txHash}`, owner, seconds);

/** Ends the hold for `txHash` (it has settled), if the lease is still held for it. */
export const endWalletLeaseHold = (walletId: string, txHash: string): Promise<void> => releaseLease(lockKey(walletId), `${HELD_FOR}${txHash}`);

/**
 * Releases the lease and records the slot of the transaction it covered, in one transaction (one
 * round trip). If the lease was lost meanwhile (expired and taken) or the wallet deleted, the
 * slot is still recorded on its own when the wallet exists.
 */
export async function releaseWalletLeaseRecordingSlot(w: WalletRecord, owner: string, slot: number): Promise<void> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName,
              Key: lockKey(w.id),
              ConditionExpression: '#o = :o',
              ExpressionAttributeNames: { '#o': 'owner' },
              ExpressionAttributeValues: { ':o': owner },
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: walletKey(w.userId, w.id),
              UpdateExpression: 'SET lastSlot = :s',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':s': slot },
            },
          },
        ],
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    await recordLastSlot(w, slot);
    await releaseWalletLease(w.id, owner);
  }
}
