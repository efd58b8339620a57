import * as z from 'zod';
import { tableName } from './client.ts';
import { mergeUpdates, updateIf } from './conditional.ts';
import { allOf, decoder, getItem, queryAll, readItem, transactWrite, type Condition } from './items.ts';
import { embeddedLease, leaseSchema } from './leases.ts';

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
  /** The worker's lease (lib/data/leases.ts). */
  lease: leaseSchema.optional(),
  /**
   * The lease's expiry as jobs stored it before `lease` (with `leaseOwner`): a live one is still
   * honoured, and it is still written beside `lease`, so that an instance of the code before
   * (during a deploy) sees the job taken. Reads use `lease`.
   */
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
  const taken = await updateIf(
    jobKey(jobId),
    mergeUpdates(embeddedLease.take({ owner, expiresAt: until }), {
      set: ['leaseUntil = :until', 'attempts = attempts + :one'],
      remove: ['leaseOwner'],
      values: { ':until': until, ':one': 1 },
    }),
    allOf(pending, embeddedLease.free(nowMs), legacyLeaseFree(nowMs)),
  );
  return taken ? jobDecoder.decode(taken) : undefined;
}

const pending: Condition = {
  ConditionExpression: '#s = :pending',
  ExpressionAttributeNames: { '#s': 'status' },
  ExpressionAttributeValues: { ':pending': 'pending' },
};
const legacyLeaseFree = (nowMs: number): Condition => ({
  ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :legacyNow',
  ExpressionAttributeValues: { ':legacyNow': nowMs },
});
/** The lease is `owner`'s and the job unpaid. */
const held = (owner: string): Condition => allOf(embeddedLease.heldBy(owner), pending);
const dropLease = mergeUpdates(embeddedLease.drop(), { remove: ['leaseUntil'] });

/** Stores the payout transaction about to be sent (while holding the lease); throws when the lease is no longer `owner`'s. */
export async function recordPayoutTx(jobId: string, owner: string, txHash: string, signedTx: string, lastValidBlockHeight: number): Promise<void> {
  const stored = await updateIf(
    jobKey(jobId),
    { set: ['txHash = :h', 'signedTx = :tx', 'lastValidBlockHeight = :lv'], values: { ':h': txHash, ':tx': signedTx, ':lv': lastValidBlockHeight } },
    held(owner),
  );
  if (!stored) throw new LeaseLost(jobId);
}

/**
 * Gives the stored payout of a job recorded without its last valid block height one (a bound no
 * lower than the real one: lib/chains/chain-a/settle.ts `heightBound`), once, while holding the lease.
 */
export async function stampPayoutHeight(jobId: string, owner: string, txHash: string, lastValidBlockHeight: number): Promise<void> {
  const stamped = await updateIf(
    jobKey(jobId),
    { set: ['lastValidBlockHeight = :lv'], values: { ':lv': lastValidBlockHeight } },
    allOf(held(owner), { ConditionExpression: 'txHash = :h AND attribute_not_exists(lastValidBlockHeight)', ExpressionAttributeValues: { ':h': txHash } }),
  );
  if (!stamped) throw new LeaseLost(jobId);
}

/** The worker's lease on a job expired and was taken (or the job was paid) before it could store its transaction. */
export class LeaseLost extends Error {
  constructor(jobId: string) {
    super(`payout job ${jobId}: the lease is no longer this worker's`);
    this.name = 'LeaseLost';
  }
}

/** The payout landed: paid, out of the open index. Idempotent for the same transaction. */
export async function markJobPaid(jobId: string, txHash: string, slot: number, paidAt: string): Promise<void> {
  await updateIf(
    jobKey(jobId),
    mergeUpdates(
      {
        set: ['#s = :paid', 'slot = :slot', 'paidAt = :at'],
        remove: ['gsi1pk', 'gsi1sk', 'signedTx', 'lastError'],
        values: { ':paid': 'paid', ':slot': slot, ':at': paidAt },
      },
      dropLease,
      { remove: ['leaseOwner'] },
    ),
    { ConditionExpression: 'txHash = :h', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':h': txHash } },
  );
}

/** Gives the lease back after a failed attempt, noting why (never secrets: an error name and message). */
export async function releaseJob(jobId: string, owner: string, lastError: string): Promise<void> {
  await updateIf(jobKey(jobId), mergeUpdates(dropLease, { set: ['lastError = :e'], values: { ':e': lastError.slice(0, 300) } }), held(owner));
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
