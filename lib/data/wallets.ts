import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { conditionalWrite } from './conditional.ts';
import { acquireLease, handOverLease, handOverLeaseItem, leaseHolder, releaseLease, releaseLeaseItem } from './leases.ts';
import { getItem, isConditionalFailure, queryAll, transactWrite, type TransactItems } from './items.ts';
import { CONFLICT, retryOnConflict } from './retry.ts';

/**
 * Wallet records. Items:
 *
 *   WALLETS#<userId>      / WALLET#<walletId>                   the wallet (with its sealed key)
 *   WALLETNAME#<userId>#<chain>#<lower-case name> / NAME        a name is unique per user and chain
 *   WALLETKEY#<userId>#<chain>#<address> / KEY                  a key is held once per user and chain
 *   WALLETACTIVE#<userId>#<chain> / ACTIVE {walletId, rev}      the user's active wallet on a chain, and
 *                                                               the revision of that chain's set of wallets
 *   WALLETLOCK#<walletId> / LOCK {owner, expiresAt, ttl}        the signing lease
 *
 * A wallet is read by (userId, walletId): someone else's id simply is not there, exactly as an
 * unknown one. Creation writes the wallet and its two uniqueness items in one transaction.
 *
 * Races (test/api/wallets-races.test.ts): a rename or delete is conditional on the wallet's `version` (the one read), so
 * two renames never both free the same old name and leave the other's new one orphaned, and a
 * delete frees exactly the name the wallet bears. Create, activate and delete also move the
 * chain's ACTIVE item on from the `rev` they read, in the same transaction: they are serialized
 * per user and chain, and while a user has any wallet on a chain exactly one is active (deleting
 * the active one hands the role to the oldest that is left). A loser re-reads and tries again.
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
  /** Bumped by every rename; absent on records older than it (read as 0). */
  version: z.number().int().nonnegative().optional(),
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
  version?: number;
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

/** Writes a new wallet (active when it is the chain's only one); `WalletConflict` when its name or key is taken. */
export async function insertWallet(w: WalletRecord): Promise<void> {
  await serialized(w.userId, w.chain, async (head) => {
    const failed = await transactWrite([
      { Put: { TableName: tableName, Item: { ...walletKey(w.userId, w.id), ...w }, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: tableName, Item: { ...nameKey(w.userId, w.chain, w.name), walletId: w.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: tableName, Item: { ...addressKey(w.userId, w.chain, w.address), walletId: w.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
      // The first wallet on a chain is its active one.
      headUpdate(w.userId, w.chain, head, head.walletId === undefined ? w.id : head.walletId),
    ]);
    if (failed === 1) throw new WalletConflict('name');
    if (failed === 0 || failed === 2) throw new WalletConflict('key');
    return failed === -1;
  });
}

export async function getWallet(userId: string, walletId: string): Promise<WalletRecord | undefined> {
  const item = await getItem(walletKey(userId, walletId));
  return item ? decodeWallet(item) : undefined;
}

/** The user's wallets, read consistently (a delete picks the next active one from them). */
export async function listWallets(userId: string): Promise<WalletRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': `WALLETS#${userId}`, ':prefix': 'WALLET#' },
    ConsistentRead: true,
  });
  return items.map(decodeWallet);
}

/** The active wallet id per chain. */
export async function activeWalletIds(userId: string): Promise<Record<Chain, string | undefined>> {
  const [a, b] = await Promise.all([getItem(activeKey(userId, 'a')), getItem(activeKey(userId, 'b'))]);
  const id = (item: Record<string, unknown> | undefined) => (typeof item?.walletId === 'string' ? item.walletId : undefined);
  return { a: id(a), b: id(b) };
}

// ---- the chain's head: its active wallet and the revision of its set ---------------------------

interface Head {
  walletId: string | undefined;
  rev: number | undefined;
}

async function readHead(userId: string, chain: Chain): Promise<Head> {
  const item = await getItem(activeKey(userId, chain));
  return { walletId: typeof item?.walletId === 'string' ? item.walletId : undefined, rev: typeof item?.rev === 'number' ? item.rev : undefined };
}

/** The head moved on from `head` (rev + 1) with `walletId` active (none: removed), only if it is still at `head`. */
function headUpdate(userId: string, chain: Chain, head: Head, walletId: string | undefined): TransactItems[number] {
  const values: Record<string, unknown> = { ':next': (head.rev ?? 0) + 1 };
  if (head.rev !== undefined) values[':rev'] = head.rev;
  if (walletId !== undefined) values[':w'] = walletId;
  return {
    Update: {
      TableName: tableName,
      Key: activeKey(userId, chain),
      UpdateExpression: walletId === undefined ? 'SET #rev = :next REMOVE walletId' : 'SET #rev = :next, walletId = :w',
      ConditionExpression: head.rev === undefined ? 'attribute_not_exists(#rev)' : '#rev = :rev',
      ExpressionAttributeNames: { '#rev': 'rev' },
      ExpressionAttributeValues: values,
    },
  };
}

/** A change of a chain's wallets is tried from a fresh read of its head until it is not beaten to it (retry.ts). */
const ATTEMPTS = 8;

/** Runs `attempt` with the head as read now; `attempt` answers false when a condition on what it read failed (it is retried). */
async function serialized(userId: string, chain: Chain, attempt: (head: Head) => Promise<boolean>): Promise<void> {
  await retryOnConflict(async () => ((await attempt(await readHead(userId, chain))) ? undefined : CONFLICT), {
    attempts: ATTEMPTS,
    exhausted: () => new WalletChanged(),
  });
}

/** The wallet changed under the request too many times (or is gone): the caller re-reads it. */
export class WalletChanged extends Error {
  constructor() {
    super('the wallet changed while this request ran');
    this.name = 'WalletChanged';
  }
}

const exists = (userId: string, walletId: string): TransactItems[number] => ({
  ConditionCheck: { TableName: tableName, Key: walletKey(userId, walletId), ConditionExpression: 'attribute_exists(pk)' },
});

/** The wallet's version as stored, in a condition: the one read. */
function versionIs(w: WalletRecord) {
  return w.version === undefined
    ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#v)', names: { '#v': 'version' }, values: {} }
    : { ConditionExpression: 'attribute_exists(pk) AND #v = :v', names: { '#v': 'version' }, values: { ':v': w.version } };
}

/**
 * Makes `w` the active one on its chain (one pointer item: at most one is ever active), in one
 * transaction with the check that it still exists; false when it does not (deleted meanwhile).
 */
export async function setActive(w: WalletRecord): Promise<boolean> {
  let gone = false;
  await serialized(w.userId, w.chain, async (head) => {
    const failed = await transactWrite([headUpdate(w.userId, w.chain, head, w.id), exists(w.userId, w.id)]);
    gone = failed === 1;
    return failed !== 0;
  });
  return !gone;
}

/**
 * Renames the wallet `w` as read: the new name item and the record change together and the old
 * name is freed, only while the record is still at `w.version`. `WalletConflict` when the name is
 * taken; false when the wallet changed (or went) since it was read: the caller reads it again.
 */
export async function renameWallet(w: WalletRecord, name: string): Promise<boolean> {
  const v = versionIs(w);
  const update: TransactItems[number] = {
    Update: {
      TableName: tableName,
      Key: walletKey(w.userId, w.id),
      UpdateExpression: 'SET #n = :n, #v = :next',
      ConditionExpression: v.ConditionExpression,
      ExpressionAttributeNames: { '#n': 'name', ...v.names },
      ExpressionAttributeValues: { ':n': name, ':next': (w.version ?? 0) + 1, ...v.values },
    },
  };
  if (name.toLowerCase() === w.name.toLowerCase()) return (await transactWrite([update])) === -1;
  const failed = await transactWrite([
    update,
    { Put: { TableName: tableName, Item: { ...nameKey(w.userId, w.chain, name), walletId: w.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Delete: {
        TableName: tableName,
        Key: nameKey(w.userId, w.chain, w.name),
        ConditionExpression: 'walletId = :id',
        ExpressionAttributeValues: { ':id': w.id },
      },
    },
  ]);
  if (failed === 1) throw new WalletConflict('name');
  return failed === -1;
}

/**
 * Deletes the wallet `w` as read, its sealed key and its uniqueness items in one transaction,
 * only while the record is still at `w.version`; if it was the chain's active wallet, the oldest
 * one left becomes active in the same transaction. False when the wallet changed (or went) since
 * it was read: the caller reads it again.
 */
export async function deleteWallet(w: WalletRecord): Promise<boolean> {
  let changed = false;
  await serialized(w.userId, w.chain, async (head) => {
    const others = (await listWallets(w.userId))
      .filter((o) => o.chain === w.chain && o.id !== w.id)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    // The active one stays; deleting it (or a head naming no wallet) hands the role to the oldest left.
    const next = head.walletId !== undefined && head.walletId !== w.id && others.some((o) => o.id === head.walletId) ? head.walletId : others[0]?.id;
    const v = versionIs(w);
    const items: TransactItems = [
      {
        Delete: {
          TableName: tableName,
          Key: walletKey(w.userId, w.id),
          ConditionExpression: v.ConditionExpression,
          ExpressionAttributeNames: v.names,
          ...(w.version === undefined ? {} : { ExpressionAttributeValues: v.values }),
        },
      },
      { Delete: { TableName: tableName, Key: nameKey(w.userId, w.chain, w.name) } },
      { Delete: { TableName: tableName, Key: addressKey(w.userId, w.chain, w.address) } },
      headUpdate(w.userId, w.chain, head, next),
    ];
    if (next !== undefined) items.push(exists(w.userId, next));
    const failed = await transactWrite(items);
    changed = failed === 0;
    return failed !== 3 && failed !== 4;
  });
  return !changed;
}

/** Remembers the slot of the wallet's latest transaction (only ever moves forward). */
export async function recordLastSlot(w: WalletRecord, slot: number): Promise<void> {
  await conditionalWrite(
    new UpdateCommand({
      TableName: tableName,
      Key: walletKey(w.userId, w.id),
      UpdateExpression: 'SET lastSlot = :s',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastSlot) OR lastSlot < :s)',
      ExpressionAttributeValues: { ':s': slot },
    }),
  );
}

// ---- the signing lease ----------------------------------------------------------------------

/** A request's signing lease on a wallet: taken by lib/wallets/lock.ts, bound to its value move by lib/moves/journal.ts (`MoveOf`). */
export interface WalletLease {
  walletId: string;
  owner: string;
  /** Its term once handed back to the request. */
  seconds: number;
  /** The wallet's user: with it the journal ends the lease and records the landed slot in the write that settles the move. */
  userId?: string;
  /** Set by the journal once it has done so: the request has nothing left to release. */
  released?: boolean;
}

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

/** `holdWalletLeaseFor` as an item of a transaction that writes more (the journal's record: lib/moves/journal.ts). */
export const holdWalletLeaseItem = (walletId: string, owner: string, txHash: string, seconds: number) =>
  handOverLeaseItem(lockKey(walletId), owner, `${HELD_FOR}${txHash}`, seconds);

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
 * The end of the hold on `txHash` together with the slot it landed in, as items of the transaction
 * that settles the move (lib/moves/journal.ts): what handing the lease back to the request
 * (`reclaimWalletLease`, conditional on the hold) and the request's release with the slot
 * (`releaseWalletLeaseRecordingSlot`) write one after the other, in one round trip.
 */
export const endHoldRecordingSlotItems = (w: Pick<WalletRecord, 'id' | 'userId'>, txHash: string, slot: number): TransactItems =>
  releaseItems(w, `${HELD_FOR}${txHash}`, slot);

/**
 * Releases the lease and records the slot of the transaction it covered, in one transaction (one
 * round trip). If the lease was lost meanwhile (expired and taken) or the wallet deleted, the
 * slot is still recorded on its own when the wallet exists.
 */
export async function releaseWalletLeaseRecordingSlot(w: WalletRecord, owner: string, slot: number): Promise<void> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: releaseItems(w, owner, slot) }));
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    await recordLastSlot(w, slot);
    await releaseWalletLease(w.id, owner);
  }
}

const releaseItems = (w: Pick<WalletRecord, 'id' | 'userId'>, owner: string, slot: number): TransactItems => [
  releaseLeaseItem(lockKey(w.id), owner),
  {
    Update: {
      TableName: tableName,
      Key: walletKey(w.userId, w.id),
      UpdateExpression: 'SET lastSlot = :s',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':s': slot },
    },
  },
];
