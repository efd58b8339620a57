import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import * as repo from '#lib/data/shielded-withdrawals.ts';
import type { PayoutJob } from '#lib/data/shielded-withdrawals.ts';
import { errors, isAppError } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { verifyProof } from '#lib/zk/groth16.ts';
import { poolOrThrow } from './pools.ts';
import type { jobResponse, nullifierParams, withdrawInput } from './schemas.ts';
import { addressBytes, isFieldElement, poolSignal, recipientSignal } from './statement.ts';

/**
 * A withdrawal (no session: nothing ties it to an account). The proof shows that some commitment
 * under `root` opens to a nullifier hashing to `nullifierHash`, and binds the recipient, the fee
 * and the pool (a proof made for another pool does not verify here). The order: cheap checks, the proof, then the nullifier spent and the payout queued in one
 * conditional transaction (exactly one of any number of concurrent requests wins), then the payout
 * (payouts.ts), retried by the job when it fails.
 */
export const WITHDRAW_CIRCUIT = 'withdraw';
/** The most a relayer fee may take of the denomination (so the payout itself stays meaningful). */
export const MAX_FEE_SHARE = 10n;

export async function withdraw(input: z.infer<typeof withdrawInput>): Promise<{ jobId: string; status: 'pending' | 'paid' }> {
  const pool = await poolOrThrow(input.pool);
  if (!addressBytes(input.recipient)) throw errors.invalidAddress('recipient: not a chain A address (base58 of 32 bytes)');
  const denomination = BigInt(pool.denomination);
  const fee = BigInt(input.relayerFee ?? '0');
  if (fee * MAX_FEE_SHARE > denomination) throw errors.invalidInput(`relayerFee: at most ${denomination / MAX_FEE_SHARE} (a tenth of the denomination)`);
  for (const [name, v] of [
    ['root', input.root],
    ['nullifierHash', input.nullifierHash],
  ] as const) {
    if (!isFieldElement(v)) throw errors.fieldOverflow(`${name}: not below the BN254 scalar field order`);
  }
  const root = BigInt(input.root).toString();
  const nullifierHash = BigInt(input.nullifierHash).toString();
  if (!pool.roots.includes(root)) throw errors.unknownRoot(`root: not one of the last ${pool.roots.length} roots of pool ${pool.id}`);
  if (await repo.getNullifier(nullifierHash)) throw errors.nullifierSpent();

  const signals = [root, nullifierHash, (await recipientSignal(input.recipient)).toString(), fee.toString(), (await poolSignal(pool.id)).toString()];
  let valid: boolean;
  try {
    valid = await verifyProof(WITHDRAW_CIRCUIT, input.proof, signals);
  } catch (e) {
    if (isAppError(e) && e.code === 'INVALID_INPUT') throw errors.invalidProof(e.message);
    throw e;
  }
  if (!valid) throw errors.invalidProof('proof: does not verify for this pool, root, nullifier hash, recipient and fee');

  const now = clock.now().toISOString();
  const job: PayoutJob = {
    id: randomUUID(),
    poolId: pool.id,
    nullifierHash,
    recipient: input.recipient,
    amount: (denomination - fee).toString(),
    fee: fee.toString(),
    status: 'pending',
    attempts: 0,
    createdAt: now,
  };
  try {
    await repo.spendNullifier(job, now);
  } catch (e) {
    if (e instanceof repo.NullifierSpent) throw errors.nullifierSpent();
    throw e;
  }
  // The payout's chain code (web3.js, spl-token) loads here: the job and nullifier reads never need it.
  const { payJob } = await import('./payouts.ts');
  // The nullifier is spent and the job recorded: the withdrawal is the job's from here, and nothing
  // fails the request (its nullifier would refuse a retry, and the answer carries the job's id); a
  // payout this attempt could not make, the retry job makes.
  const after = await payJob(job.id).catch((e: unknown) => {
    logger.warn('withdrawal recorded; its payout is left to the retry job', { jobId: job.id, error: e as Error });
    return undefined;
  });
  return { jobId: job.id, status: after?.status ?? 'pending' };
}

/** A job by its id (the id is the capability: unguessable, known only to whoever withdrew). */
export async function getJob(jobId: string): Promise<z.infer<typeof jobResponse>> {
  const job = z.uuid().safeParse(jobId).success ? await repo.getJob(jobId) : undefined;
  if (!job) throw errors.notFound('job not found');
  return {
    jobId: job.id,
    pool: job.poolId,
    status: job.status,
    recipient: job.recipient,
    amount: job.amount,
    fee: job.fee,
    ...(job.status === 'paid' && job.txHash ? { txHash: job.txHash } : {}),
    attempts: job.attempts,
    createdAt: job.createdAt,
    ...(job.paidAt ? { paidAt: job.paidAt } : {}),
  };
}

export async function nullifierStatus(params: z.infer<typeof nullifierParams>) {
  if (!isFieldElement(params.hash)) throw errors.fieldOverflow('hash: not below the BN254 scalar field order');
  const hash = BigInt(params.hash).toString();
  const spent = await repo.getNullifier(hash);
  return { nullifierHash: hash, spent: spent !== undefined, ...(spent ? { spentAt: spent.spentAt, jobId: spent.jobId } : {}) };
}
