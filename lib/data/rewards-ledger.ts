import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { deleteIf, putIf, updateIf } from './conditional.ts';
import {
  absentOrExpired,
  allOf,
  anyOf,
  decoder,
  deleteItem,
  listPartition,
  putItem,
  queryAll,
  readItem,
  transactWrite,
  type Condition,
  type TransactItems,
} from './items.ts';
import { embeddedLease, leaseSchema, type Lease } from './leases.ts';

/**
 * Rewards: accruals, per-epoch totals, epoch closes and claims. Items:
 *
 *   REWARDSRC#<source>#<txHash> / SRC         {userId, epoch}: a source transaction accrues once per source
 *                                             (a swap into a shielded deposit is a swap and a deposit)
 *   REWARDLEDGER#<userId> / ENTRY#<at>#<tx>#<source>   one accrual (the user's ledger)
 *   REWARDEPOCH#<n> / ACCOUNT#<account>       {userId, points}: the account's total in epoch n
 *   REWARDEPOCH#<n> / CLOSE                   {status closing|closed, root, accounts, totalPoints}
 *   REWARDEPOCHS / EPOCH#<n, 10 digits>       the epochs that have any accrual
 *   REWARDCLAIM#<n>#<account> / CLAIM         {status paying|paid, walletId, lease, txHash, lastValidBlockHeight}
 *   REWARDOWED#<source>#<txHash> / OWED       an accrual owed and not known to be recorded yet (the
 *                                             outbox; gsi1 REWARDOWED#OPEN / <at>): the retry job records it
 *
 * An accrual is one transaction: the source item (condition: absent), a check that the epoch is
 * not closing, the ledger entry, the total's increment and the epoch index. A retried accrual
 * fails the first condition and changes nothing.
 */
const pad = (n: number) => String(n).padStart(10, '0');
const epochPk = (n: number) => `REWARDEPOCH#${n}`;
const closeKey = (n: number) => ({ pk: epochPk(n), sk: 'CLOSE' });
const claimKey = (n: number, account: string) => ({ pk: `REWARDCLAIM#${n}#${account}`, sk: 'CLAIM' });

export interface Accrual {
  userId: string;
  account: string;
  epoch: number;
  source: string;
  txHash: string;
  points: number;
  /** What the points were computed from (smallest units), as a decimal string. */
  basis: string;
  at: string;
}

/** `recorded`, `duplicate` (that source transaction already accrued) or `epoch-closed`. */
export async function recordAccrual(a: Accrual, alsoClearOwed = false): Promise<'recorded' | 'duplicate' | 'epoch-closed'> {
  // The owed note (if asked) goes with the entries it was noted for: recorded → nothing owed, in the same write.
  const failed = await transactWrite([...accrualItems(a), ...(alsoClearOwed ? [clearOwedItem(a.source, a.txHash)] : [])]);
  if (failed === -1) return 'recorded';
  return failed === 0 ? 'duplicate' : 'epoch-closed';
}

/** The accrual's writes, for a transaction of its own or one that also does something else. */
export function accrualItems(a: Accrual): TransactItems {
  return [
    {
      Put: {
        TableName: tableName,
        Item: { pk: `REWARDSRC#${a.source}#${a.txHash}`, sk: 'SRC', userId: a.userId, epoch: a.epoch },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { ConditionCheck: { TableName: tableName, Key: closeKey(a.epoch), ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: { pk: `REWARDLEDGER#${a.userId}`, sk: `ENTRY#${a.at}#${a.txHash}#${a.source}`, ...a } } },
    {
      Update: {
        TableName: tableName,
        Key: { pk: epochPk(a.epoch), sk: `ACCOUNT#${a.account}` },
        UpdateExpression: 'ADD points :p SET userId = :u, account = :a, epoch = :e',
        ExpressionAttributeValues: { ':p': a.points, ':u': a.userId, ':a': a.account, ':e': a.epoch },
      },
    },
    { Put: { TableName: tableName, Item: { pk: 'REWARDEPOCHS', sk: `EPOCH#${pad(a.epoch)}`, epoch: a.epoch } } },
  ];
}

const accrualSchema = z.object({
  userId: z.string(),
  account: z.string(),
  epoch: z.number(),
  source: z.string(),
  txHash: z.string(),
  points: z.number(),
  basis: z.string(),
  at: z.string(),
});
const asAccrual = decoder('reward accrual', accrualSchema);

export async function ledger(userId: string): Promise<Accrual[]> {
  return listPartition(`REWARDLEDGER#${userId}`, asAccrual, { prefix: 'ENTRY#', newestFirst: true });
}

const accountSchema = z.object({ userId: z.string(), account: z.string(), epoch: z.number(), points: z.number() });
const asAccount = decoder('reward account', accountSchema);

export const epochAccounts = (n: number) => listPartition(epochPk(n), asAccount, { prefix: 'ACCOUNT#' });
export const epochAccount = (n: number, account: string) => readItem({ pk: epochPk(n), sk: `ACCOUNT#${account}` }, asAccount);

export async function activeEpochs(): Promise<number[]> {
  return (await listPartition('REWARDEPOCHS', decoder('reward epoch', z.object({ epoch: z.number() })), { prefix: 'EPOCH#' })).map((e) => e.epoch);
}

const closeSchema = z.object({
  epoch: z.number(),
  status: z.enum(['closing', 'closed']),
  root: z.string().optional(),
  accounts: z.number().optional(),
  totalPoints: z.number().optional(),
  closedAt: z.string().optional(),
});
const asClose = decoder('reward epoch close', closeSchema);

export const getClose = (n: number) => readItem(closeKey(n), asClose);

/** Marks the epoch closing: from here on no accrual lands in it. Idempotent. */
export async function startClose(n: number): Promise<void> {
  await putIf({ ...closeKey(n), epoch: n, status: 'closing' }, absentOrExpired());
}

export async function finishClose(n: number, done: { root: string; accounts: number; totalPoints: number; closedAt: string }): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: closeKey(n),
      UpdateExpression: 'SET #s = :s, root = :r, accounts = :a, totalPoints = :t, closedAt = :c',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': 'closed', ':r': done.root, ':a': done.accounts, ':t': done.totalPoints, ':c': done.closedAt },
    }),
  );
}

const claimSchema = z.object({
  epoch: z.number(),
  account: z.string(),
  status: z.enum(['paying', 'paid']),
  walletId: z.string(),
  /** The request paying it, until its mint is bound (a request that died before: free once it expires). */
  lease: leaseSchema.optional(),
  /** Its mint, bound before the mint is recorded or sent, with the block height after which it can no longer land. */
  txHash: z.string().optional(),
  lastValidBlockHeight: z.number().optional(),
  at: z.string(),
});
export type ClaimRecord = z.infer<typeof claimSchema>;
const asClaim = decoder('reward claim', claimSchema);

export const getClaim = (n: number, account: string) => readItem(claimKey(n, account), asClaim);

const paying: Condition = {
  ConditionExpression: '#s = :paying',
  ExpressionAttributeNames: { '#s': 'status' },
  ExpressionAttributeValues: { ':paying': 'paying' },
};
const unbound: Condition = { ConditionExpression: 'attribute_not_exists(txHash)' };
const boundTo = (txHash: string): Condition => ({ ConditionExpression: 'txHash = :tx', ExpressionAttributeValues: { ':tx': txHash } });

/**
 * Reserves the claim for the request holding `c.lease`; false when the account claimed this epoch,
 * or another request is paying it (bound to its mint, or reserved under a live lease). A
 * reservation whose request died before binding a mint is free once its lease expired.
 */
export const reserveClaim = (c: ClaimRecord & { lease: Lease }, nowMs: number): Promise<boolean> =>
  putIf({ ...claimKey(c.epoch, c.account), ...c }, anyOf(absentOrExpired(), allOf(paying, unbound, embeddedLease.free(nowMs))));

/** Takes over a claim bound to a mint `staleTxHash` that can never land (the caller checked): false if it changed meanwhile. */
export const retakeClaim = (c: ClaimRecord & { lease: Lease }, staleTxHash: string): Promise<boolean> =>
  putIf({ ...claimKey(c.epoch, c.account), ...c }, allOf(paying, boundTo(staleTxHash)));

/** Binds the reservation `owner` holds to its mint, before the mint is recorded or sent; false when it is no longer the holder's. */
export const bindClaim = async (n: number, account: string, owner: string, txHash: string, lastValidBlockHeight: number): Promise<boolean> =>
  (await updateIf(
    claimKey(n, account),
    { set: ['txHash = :bind', 'lastValidBlockHeight = :height'], values: { ':bind': txHash, ':height': lastValidBlockHeight } },
    allOf(paying, unbound, embeddedLease.heldBy(owner)),
  )) !== undefined;

/** The reservation `owner` holds, released before any mint was bound to it (nothing was signed). */
export const releaseReservation = (n: number, account: string, owner: string): Promise<boolean> =>
  deleteIf(claimKey(n, account), allOf(paying, unbound, embeddedLease.heldBy(owner)));

export async function markClaimPaid(n: number, account: string, txHash: string): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: claimKey(n, account),
      UpdateExpression: 'SET #s = :s, txHash = :t',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': 'paid', ':t': txHash },
    }),
  );
}

/** The claim's mint `txHash` failed or expired (lib/moves/journal.ts): nothing was paid, the claim may be tried again. */
export async function releaseClaimFor(n: number, account: string, txHash: string): Promise<void> {
  await deleteIf(claimKey(n, account), allOf(paying, boundTo(txHash)));
}

// ---- the accrual outbox -----------------------------------------------------------------------

const OWED_OPEN = 'REWARDOWED#OPEN';
const owedKey = (source: string, txHash: string) => ({ pk: `REWARDOWED#${source}#${txHash}`, sk: 'OWED' });
const owedSchema = z.object({ userId: z.string(), source: z.string(), txHash: z.string(), lamports: z.string().regex(/^\d+$/).optional(), at: z.string() });
export type OwedAccrual = z.infer<typeof owedSchema>;
const asOwed = decoder('owed reward accrual', owedSchema);

/** Notes an accrual as owed (idempotent: the same source transaction is one item). */
export async function putOwed(o: OwedAccrual): Promise<void> {
  await putItem(owedItem(o));
}

const owedItem = (o: OwedAccrual) => ({ ...owedKey(o.source, o.txHash), ...o, gsi1pk: OWED_OPEN, gsi1sk: `${o.at}#${o.source}#${o.txHash}` });

/** `putOwed` as an item of a transaction that writes more (the value move it is owed for: lib/moves/journal.ts). */
export const putOwedItem = (o: OwedAccrual) => ({ Put: { TableName: tableName, Item: owedItem(o) } });

/** The accrual is recorded (or was before): nothing is owed. */
export const clearOwed = (source: string, txHash: string): Promise<void> => deleteItem(owedKey(source, txHash));

/** `clearOwed` as an item of a transaction that writes more (the accrual it was noted for, the settlement of its transaction). */
export const clearOwedItem = (source: string, txHash: string) => ({ Delete: { TableName: tableName, Key: owedKey(source, txHash) } });

/** Accruals owed since before `beforeIso`, oldest first. */
export async function listOwed(beforeIso: string): Promise<OwedAccrual[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
    ExpressionAttributeValues: { ':pk': OWED_OPEN, ':before': beforeIso },
  });
  return items.map((i) => asOwed.decode(i));
}
