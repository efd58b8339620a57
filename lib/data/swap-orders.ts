import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { db, tableName } from './client.ts';
import { decoder, isConditionalFailure, listPartition, putNew, readItem } from './items.ts';
import { sealedKeySchema } from './wallets.ts';

/**
 * Swap quotes, which become orders when executed, and the one-time output addresses. Items:
 *
 *   SWAPORDERS#<userId> / ORDER#<id>                       the quote/order (a quote never executed expires a day after its expiry)
 *   SWAPADDRS#<userId> / ADDR#<address>            a one-time output address with its sealed key
 *
 * An order is read by (userId, id): another user's id is simply not in the caller's partition.
 * A quote is executed by one conditional update `status = quoted AND expiresAt > now`, so it
 * runs at most once whatever the retries and races.
 */

const orderSchema = z.object({
  id: z.string(),
  userId: z.string(),
  walletId: z.string(),
  pairId: z.string(),
  adapter: z.string(),
  from: z.string(),
  to: z.string(),
  fromMint: z.string(),
  toMint: z.string(),
  amountIn: z.string(),
  amountOut: z.string(),
  minAmountOut: z.string(),
  fee: z.string(),
  priceImpactBps: z.number(),
  slippageBps: z.number(),
  privateOutput: z.boolean(),
  /** The output goes into a shielded pool: the pool, the client's commitment, and once executed the deposit. */
  shielded: z
    .object({
      pool: z.string(),
      commitment: z.string(),
      denomination: z.string(),
      depositId: z.string().optional(),
      leafIndex: z.number().int().optional(),
      root: z.string().optional(),
    })
    .optional(),
  status: z.enum(['quoted', 'executing', 'executed', 'failed']),
  createdAt: z.string(),
  expiresAt: z.number(),
  /** The adapter's own quote (the aggregator's quote response), when it has one. */
  route: z.unknown().optional(),
  txHash: z.string().optional(),
  executedAmountOut: z.string().optional(),
  outputAddress: z.string().optional(),
  executedAt: z.string().optional(),
  failure: z.string().optional(),
});
export type OrderRecord = z.infer<typeof orderSchema>;
const asOrder = decoder('swap order', orderSchema);

const orderKey = (userId: string, id: string) => ({ pk: `SWAPORDERS#${userId}`, sk: `ORDER#${id}` });
/** Quotes that were never executed go a day after they expired. */
const QUOTE_RETENTION_SECONDS = 86_400;

export async function insertQuote(o: OrderRecord): Promise<void> {
  await putNew({ ...orderKey(o.userId, o.id), ...o, ttl: Math.ceil(o.expiresAt / 1000) + QUOTE_RETENTION_SECONDS });
}

export const getOrder = (userId: string, id: string) => readItem(orderKey(userId, id), asOrder);

export async function listOrders(userId: string): Promise<OrderRecord[]> {
  const all = await listPartition(`SWAPORDERS#${userId}`, asOrder, { prefix: 'ORDER#' });
  return all.filter((o) => o.status !== 'quoted').sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export type ClaimOutcome = { ok: true; order: OrderRecord } | { ok: false; reason: 'missing' | 'expired' | 'used' };

/** Moves a live, unexpired quote to `executing`: the one way a quote starts executing. */
export async function claimQuote(userId: string, id: string): Promise<ClaimOutcome> {
  const now = clock.nowMs();
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: orderKey(userId, id),
        UpdateExpression: 'SET #s = :executing',
        ConditionExpression: 'attribute_exists(pk) AND #s = :quoted AND expiresAt > :now',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':executing': 'executing', ':quoted': 'quoted', ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { ok: true, order: asOrder.decode(out.Attributes ?? {}) };
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
    const o = await getOrder(userId, id);
    if (!o) return { ok: false, reason: 'missing' };
    return { ok: false, reason: o.status === 'quoted' ? 'expired' : 'used' };
  }
}

/** The executed order (kept for good: its ttl goes). */
export async function markExecuted(
  o: OrderRecord,
  done: { txHash: string; executedAmountOut: string; outputAddress: string; shielded?: NonNullable<OrderRecord['shielded']> },
): Promise<OrderRecord> {
  const executedAt = clock.now().toISOString();
  const shielded = done.shielded ? ', shielded = :sh' : '';
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: orderKey(o.userId, o.id),
      UpdateExpression: `SET #s = :s, txHash = :t, executedAmountOut = :a, outputAddress = :o, executedAt = :at${shielded} REMOVE #ttl`,
      ExpressionAttributeNames: { '#s': 'status', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':s': 'executed',
        ':t': done.txHash,
        ':a': done.executedAmountOut,
        ':o': done.outputAddress,
        ':at': executedAt,
        ...(done.shielded ? { ':sh': done.shielded } : {}),
      },
    }),
  );
  return { ...o, ...done, status: 'executed', executedAt };
}

/** Back to `quoted`, for an execution turned away before anything was built or sent (a busy lease). */
export async function releaseQuote(o: OrderRecord): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: orderKey(o.userId, o.id),
        UpdateExpression: 'SET #s = :quoted',
        ConditionExpression: '#s = :executing',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':quoted': 'quoted', ':executing': 'executing' },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** A quote whose execution was refused: it stays used (a quote executes at most once). */
export async function markFailed(o: OrderRecord, failure: string): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: orderKey(o.userId, o.id),
      UpdateExpression: 'SET #s = :s, failure = :f REMOVE #ttl',
      ExpressionAttributeNames: { '#s': 'status', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':s': 'failed', ':f': failure },
    }),
  );
}

// ---- one-time output addresses --------------------------------------------------------------

const oneTimeSchema = z.object({
  id: z.string(),
  userId: z.string(),
  address: z.string(),
  orderId: z.string(),
  sealedKey: sealedKeySchema,
  createdAt: z.string(),
});
export type OneTimeAddressRecord = z.infer<typeof oneTimeSchema>;
const asOneTime = decoder('one-time address', oneTimeSchema);

/** Stored before the swap that pays into it is sent, so its key is never lost. */
export async function insertOneTimeAddress(r: OneTimeAddressRecord): Promise<void> {
  await putNew({ pk: `SWAPADDRS#${r.userId}`, sk: `ADDR#${r.address}`, ...r });
}

/** The caller's one-time address (another user's is not in the caller's partition). */
export const getOneTimeAddress = (userId: string, address: string) => readItem({ pk: `SWAPADDRS#${userId}`, sk: `ADDR#${address}` }, asOneTime);

export async function listOneTimeAddresses(userId: string): Promise<OneTimeAddressRecord[]> {
  return (await listPartition(`SWAPADDRS#${userId}`, asOneTime, { prefix: 'ADDR#' })).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
