import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { db, tableName } from './client.ts';
import { decoder, getItem, isConditionalFailure, queryAll, readItem, transactWrite } from './items.ts';

/**
 * Spent nullifiers and payout jobs of the shielded pools. Items:
 *
 *   SNULL#<nullifierHash> / NULLIFIER      spent: {poolId, jobId, spentAt}; written once, never removed
 *   SJOB#<jobId> / JOB                     the payout; while unpaid also in gsi1 SJOB#OPEN / <createdAt>#<id>
 *
 * The nullifier and its job are written in one conditional transaction: a nullifier is spent
 * exactly once, and a spent nullifier always has a job that pays it. A job is worked under a
 * lease (a conditional update), and its signed transaction is stored before it is sent, so a
 * retry first asks the chain whether that very transaction landed: never lost, never paid twice.
 */
const jobItem = z.object({
  id: z.uuid(),
  poolId: z.string(),
  nullifierHash: z.string(),
  recipient: z.string(),
  /** Smallest units to the recipient (the denomination minus the fee) and kept by the pool. */
  amount: z.string(),
  fee: z.string(),
  status: z.enum(['pending', 'paid']),
  attempts: z.number().int().nonnegative(),
  createdAt: z.string(),
  leaseOwner: z.string().optional(),
  leaseUntil: z.number().optional(),
  /** The payout's signature and signed bytes (base64), stored before it is sent. */
  txHash: z.string().optional(),
  signedTx: z.string().optional(),
  /** The payout's blockhash expiry (block height), stored with it: past it, with no status, it never lands. */
  lastValidBlockHeight: z.number().int().optional(),
  slot: z.number().int().optional(),
  paidAt: z.string().optional(),
  lastError: z.string().optional(),
});
export type PayoutJob = z.infer<typeof jobItem>;
const jobDecoder = decoder('payout job', jobItem);

const nullifierKey = (hash: string) => ({ pk: `SNULL#${hash}`, sk: 'NULLIFIER' });
const jobKey = (jobId: string) => ({ pk: `SJOB#${jobId}`, sk: 'JOB' });
const OPEN_JOBS = 'SJOB#OPEN';

export class NullifierSpent extends Error {
  constructor() {
    super('this nullifier has been spent');
    this.name = 'NullifierSpent';
  }
}

/** Spends the nullifier and queues its payout, atomically; `NullifierSpent` if it was spent before. */
export async function spendNullifier(job: PayoutJob, spentAt: string): Promise<void> {
  const failed = await transactWrite([
    {
      Put: {
        TableName: tableName,
        Item: { ...nullifierKey(job.nullifierHash), poolId: job.poolId, jobId: job.id, spentAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: { ...jobKey(job.id), ...job, gsi1pk: OPEN_JOBS, gsi1sk: `${job.createdAt}#${job.id}` },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  if (failed >= 0) throw new NullifierSpent();
}

export async function getNullifier(hash: string): Promise<{ poolId: string; jobId: string; spentAt: string } | undefined> {
  const item = await getItem(nullifierKey(hash));
  return item ? { poolId: String(item.poolId), jobId: String(item.jobId), spentAt: String(item.spentAt) } : undefined;
}

export const getJob = (jobId: string): Promise<PayoutJob | undefined> => readItem(jobKey(jobId), jobDecoder);

/** Takes the job's lease until `until` (ms) when it is unpaid and nobody holds a live lease; the job, or undefined. */
export async function leaseJob(jobId: string, owner: string, nowMs: number, until: number): Promise<PayoutJob | undefined> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: jobKey(jobId),
        UpdateExpression: 'SET leaseOwner = :o, leaseUntil = :u, attempts = attempts + :one',
        ConditionExpression: '#s = :pending AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':o': owner, ':u': until, ':one': 1, ':pending': 'pending', ':now': nowMs },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes ? jobDecoder.decode(out.Attributes) : undefined;
  } catch (e) {
    if (isConditionalFailure(e)) return undefined;
    throw e;
  }
}

const held = (owner: string) => ({ ConditionExpression: 'leaseOwner = :o AND #s = :pending', names: { '#s': 'status' }, values: { ':o': owner, ':pending': 'pending' } });

/** Stores the payout transaction about to be sent (while holding the lease). */
export async function recordPayoutTx(jobId: string, owner: string, txHash: string, signedTx: string, lastValidBlockHeight: number): Promise<void> {
  const c = held(owner);
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: jobKey(jobId),
      UpdateExpression: 'SET txHash = :h, signedTx = :tx, lastValidBlockHeight = :lv',
      ConditionExpression: c.ConditionExpression,
      ExpressionAttributeNames: c.names,
      ExpressionAttributeValues: { ...c.values, ':h': txHash, ':tx': signedTx, ':lv': lastValidBlockHeight },
    }),
  );
}

/** The payout landed: paid, out of the open index. Idempotent for the same transaction. */
export async function markJobPaid(jobId: string, txHash: string, slot: number, paidAt: string): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: jobKey(jobId),
        UpdateExpression: 'SET #s = :paid, slot = :slot, paidAt = :at REMOVE gsi1pk, gsi1sk, signedTx, leaseOwner, leaseUntil, lastError',
        ConditionExpression: 'txHash = :h',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':paid': 'paid', ':slot': slot, ':at': paidAt, ':h': txHash },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** Gives the lease back after a failed attempt, noting why (never secrets: an error name and message). */
export async function releaseJob(jobId: string, owner: string, lastError: string): Promise<void> {
  try {
    const c = held(owner);
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: jobKey(jobId),
        UpdateExpression: 'SET lastError = :e REMOVE leaseOwner, leaseUntil',
        ConditionExpression: c.ConditionExpression,
        ExpressionAttributeNames: c.names,
        ExpressionAttributeValues: { ...c.values, ':e': lastError.slice(0, 300) },
      }),
    );
  } catch (e) {
    if (!isConditionalFailure(e)) throw e;
  }
}

/** Unpaid jobs created before `beforeIso`, oldest first. */
export async function listOpenJobs(beforeIso: string): Promise<PayoutJob[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
    ExpressionAttributeValues: { ':pk': OPEN_JOBS, ':before': beforeIso },
  });
  // The index is eventually consistent: read each job itself before working on it.
  return items.map((i) => jobDecoder.decode(i));
}
