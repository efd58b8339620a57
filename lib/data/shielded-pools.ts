import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { decoder, getItem, isConditionalFailure, listPartition, putNew, queryAll, readItem, transactWrite } from './items.ts';
import { sealedKeySchema } from './wallets.ts';

/**
 * Shielded pools, their Merkle trees and their deposits. Items:
 *
 *   SPOOL#<poolId> / POOL                  the pool: its account (sealed key), token, denomination,
 *                                          and the tree state (size, root, filled subtrees, recent roots)
 *   SPOOL#<poolId> / LEAF#<index, 10 digits>   the commitment at that index
 *   SCOMMIT#<commitment> / COMMITMENT      a commitment is deposited once, in one pool: a note's
 *                                          nullifier is spent once whichever pool pays it, so a
 *                                          second deposit of it anywhere could never be withdrawn
 *   SCOMMIT#<poolId>#<commitment> / COMMITMENT  the same, per pool, as written before the rule was
 *                                          global: still checked and released, no longer written
 *   SDEPOSITS#<userId> / DEPOSIT#<depositId>    the deposit, the user's own; while it is not yet
 *                                          in the tree it is also in gsi1 SDEPOSIT#OPEN / <createdAt>
 *   STOKEN#test / MINT                     the token pools' test mint and its authority (sealed key)
 *
 * A deposit is written (with its commitment reserved) before its chain transfer is sent, so a
 * transfer that landed is never forgotten; the append writes the leaf, the pool's new tree state
 * (conditional on the size it read) and the deposit's completion in one transaction.
 */
const field = z.string().regex(/^\d{1,78}$/);

const poolItem = z.object({
  id: z.string(),
  token: z.string(),
  mint: z.string().optional(),
  decimals: z.number().int(),
  denomination: z.string().regex(/^\d+$/),
  address: z.string(),
  sealedKey: sealedKeySchema,
  createdAt: z.string(),
  /** Set once the pool's fee reserve is on chain (localnet: from the faucet). */
  funded: z.boolean().optional(),
  size: z.number().int().nonnegative(),
  root: field,
  filled: z.array(field),
  /** The newest roots, oldest first, the current one last. */
  roots: z.array(field),
});
export type PoolRecord = z.infer<typeof poolItem>;
const poolDecoder = decoder('shielded pool', poolItem);

const leafItem = z.object({ index: z.number().int().nonnegative(), commitment: field });
export type LeafRecord = z.infer<typeof leafItem>;
const leafDecoder = decoder('shielded leaf', leafItem);

const depositItem = z.object({
  id: z.uuid(),
  userId: z.string(),
  poolId: z.string(),
  walletId: z.string(),
  commitment: field,
  /** pending: reserved, transfer not known to have landed; transferred: landed, not yet in the tree; complete: in the tree. */
  status: z.enum(['pending', 'transferred', 'complete']),
  /** The transfer's signature, known before it is sent. */
  txHash: z.string(),
  /** The signed transfer (base64), kept until it is known to have landed or expired. */
  signedTx: z.string().optional(),
  /** The transfer's blockhash expiry (block height): past it, with no status, it never lands. */
  lastValidBlockHeight: z.number().int().optional(),
  leafIndex: z.number().int().nonnegative().optional(),
  root: field.optional(),
  createdAt: z.string(),
});
export type DepositRecord = z.infer<typeof depositItem>;
const depositDecoder = decoder('shielded deposit', depositItem);

const poolKey = (poolId: string) => ({ pk: `SPOOL#${poolId}`, sk: 'POOL' });
const leafKey = (poolId: string, index: number) => ({ pk: `SPOOL#${poolId}`, sk: `LEAF#${String(index).padStart(10, '0')}` });
const commitmentKey = (commitment: string) => ({ pk: `SCOMMIT#${commitment}`, sk: 'COMMITMENT' });
const legacyCommitmentKey = (poolId: string, commitment: string) => ({ pk: `SCOMMIT#${poolId}#${commitment}`, sk: 'COMMITMENT' });
const depositKey = (userId: string, depositId: string) => ({ pk: `SDEPOSITS#${userId}`, sk: `DEPOSIT#${depositId}` });
const OPEN_DEPOSITS = 'SDEPOSIT#OPEN';

// ---- pools ----------------------------------------------------------------------------------

/** Creates the pool unless it exists; false when another writer created it first. */
export async function createPool(p: PoolRecord): Promise<boolean> {
  try {
    await putNew({ ...poolKey(p.id), ...p });
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

export const getPool = (poolId: string): Promise<PoolRecord | undefined> => readItem(poolKey(poolId), poolDecoder);

export async function markPoolFunded(poolId: string): Promise<void> {
  await db.send(
    new UpdateCommand({ TableName: tableName, Key: poolKey(poolId), UpdateExpression: 'SET funded = :t', ExpressionAttributeValues: { ':t': true } }),
  );
}

/** Leaves from index `from`, in order, at most `limit`. */
export async function listLeaves(poolId: string, from: number, limit: number): Promise<LeafRecord[]> {
  const leaves: LeafRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
        ExpressionAttributeValues: { ':pk': `SPOOL#${poolId}`, ':a': leafKey(poolId, from).sk, ':b': 'LEAF#9999999999' },
        Limit: limit - leaves.length,
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const i of out.Items ?? []) leaves.push(leafDecoder.decode(i));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey && leaves.length < limit);
  return leaves;
}

// ---- the test token -------------------------------------------------------------------------

const testTokenItem = z.object({ mint: z.string(), decimals: z.number().int(), authority: z.string(), sealedKey: sealedKeySchema, createdAt: z.string() });
export type TestTokenRecord = z.infer<typeof testTokenItem>;
const testTokenKey = { pk: 'STOKEN#test', sk: 'MINT' };

export const getTestToken = (): Promise<TestTokenRecord | undefined> => readItem(testTokenKey, decoder('test token', testTokenItem));

/** Records the test mint unless one is recorded; false when another writer was first. */
export async function createTestToken(t: TestTokenRecord): Promise<boolean> {
  try {
    await putNew({ ...testTokenKey, ...t });
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}

// ---- deposits -------------------------------------------------------------------------------

export class CommitmentTaken extends Error {
  constructor() {
    super('this commitment is already in a pool');
    this.name = 'CommitmentTaken';
  }
}

/** Whether the commitment is reserved in any pool (`poolIds`: every pool, for the per-pool records of before). */
export async function commitmentExists(commitment: string, poolIds: string[]): Promise<boolean> {
  const keys = [commitmentKey(commitment), ...poolIds.map((id) => legacyCommitmentKey(id, commitment))];
  return (await Promise.all(keys.map((k) => getItem(k)))).some((item) => item !== undefined);
}

/**
 * Writes the pending deposit and reserves its commitment in one transaction; `CommitmentTaken` when
 * any pool holds it (`poolIds`: every pool, whose per-pool records of before must be absent too).
 */
export async function insertPendingDeposit(d: DepositRecord, poolIds: string[]): Promise<void> {
  const failed = await transactWrite([
    {
      Put: {
        TableName: tableName,
        Item: { ...commitmentKey(d.commitment), depositId: d.id, poolId: d.poolId },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...poolIds.map((id) => ({
      ConditionCheck: { TableName: tableName, Key: legacyCommitmentKey(id, d.commitment), ConditionExpression: 'attribute_not_exists(pk)' },
    })),
    {
      Put: {
        TableName: tableName,
        Item: { ...depositKey(d.userId, d.id), ...d, gsi1pk: OPEN_DEPOSITS, gsi1sk: `${d.createdAt}#${d.id}` },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  if (failed >= 0) throw new CommitmentTaken();
}

/** The transfer never landed (refused or expired): the deposit and its reservation (either form) go. */
export async function dropPendingDeposit(d: DepositRecord): Promise<void> {
  await transactWrite([
    {
      Delete: {
        TableName: tableName,
        Key: depositKey(d.userId, d.id),
        ConditionExpression: '#s = :p',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':p': 'pending' },
      },
    },
    {
      Delete: {
        TableName: tableName,
        Key: commitmentKey(d.commitment),
        ConditionExpression: 'attribute_not_exists(pk) OR depositId = :d',
        ExpressionAttributeValues: { ':d': d.id },
      },
    },
    {
      Delete: {
        TableName: tableName,
        Key: legacyCommitmentKey(d.poolId, d.commitment),
        ConditionExpression: 'attribute_not_exists(pk) OR depositId = :d',
        ExpressionAttributeValues: { ':d': d.id },
      },
    },
  ]);
}

/** The transfer landed: the deposit waits for its append. Idempotent. */
export async function markDepositTransferred(d: DepositRecord): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: depositKey(d.userId, d.id),
        UpdateExpression: 'SET #s = :t REMOVE signedTx',
        ConditionExpression: '#s = :p',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':t': 'transferred', ':p': 'pending' },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

export type AppendOutcome = 'appended' | 'raced' | 'done';

/**
 * Appends the deposit's commitment as leaf `pool.size`: the pool's new tree state (conditional on
 * the size that was read), the leaf, and the deposit's completion, one transaction. 'raced' when
 * another append moved the tree first (read again and retry); 'done' when this deposit is already in.
 */
export async function appendDeposit(pool: PoolRecord, d: DepositRecord, next: { root: string; filled: string[]; roots: string[] }): Promise<AppendOutcome> {
  const index = pool.size;
  const failed = await transactWrite([
    {
      Update: {
        TableName: tableName,
        Key: poolKey(pool.id),
        UpdateExpression: 'SET #size = :n1, #root = :root, filled = :filled, #roots = :roots',
        ConditionExpression: '#size = :n',
        ExpressionAttributeNames: { '#size': 'size', '#root': 'root', '#roots': 'roots' },
        ExpressionAttributeValues: { ':n': index, ':n1': index + 1, ':root': next.root, ':filled': next.filled, ':roots': next.roots },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: { ...leafKey(pool.id, index), index, commitment: d.commitment, depositId: d.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: depositKey(d.userId, d.id),
        UpdateExpression: 'SET #s = :c, leafIndex = :i, #root = :root REMOVE gsi1pk, gsi1sk, signedTx',
        ConditionExpression: '#s = :t',
        ExpressionAttributeNames: { '#s': 'status', '#root': 'root' },
        ExpressionAttributeValues: { ':c': 'complete', ':t': 'transferred', ':i': index, ':root': next.root },
      },
    },
  ]);
  if (failed < 0) return 'appended';
  if (failed === 2) return 'done';
  return 'raced';
}

export const getDeposit = (userId: string, depositId: string): Promise<DepositRecord | undefined> => readItem(depositKey(userId, depositId), depositDecoder);

export const listDeposits = (userId: string): Promise<DepositRecord[]> => listPartition(`SDEPOSITS#${userId}`, depositDecoder, { prefix: 'DEPOSIT#' });

/** Deposits not yet in their tree, created before `beforeIso`, oldest first. */
export async function listOpenDeposits(beforeIso: string): Promise<DepositRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
    ExpressionAttributeValues: { ':pk': OPEN_DEPOSITS, ':before': beforeIso },
  });
  return items.map((i) => depositDecoder.decode(i));
}

/**
 * Gives a pending deposit recorded without its transfer's last valid block height one (a bound no
 * lower than the real one: lib/chains/chain-a/settle.ts `heightBound`), once.
 */
export async function stampDepositHeight(d: DepositRecord, lastValidBlockHeight: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: depositKey(d.userId, d.id),
        UpdateExpression: 'SET lastValidBlockHeight = :lv',
        ConditionExpression: '#s = :p AND txHash = :h AND attribute_not_exists(lastValidBlockHeight)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':lv': lastValidBlockHeight, ':p': 'pending', ':h': d.txHash },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}
