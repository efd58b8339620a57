import { randomUUID } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import { getPool } from '#lib/data/shielded-pools.ts';
import * as repo from '#lib/data/shielded-withdrawals.ts';
import type { PayoutJob } from '#lib/data/shielded-withdrawals.ts';
import { logger } from '#lib/log.ts';
import { heightBound } from '#lib/chains/chain-a/settle.ts';
import { assetOf, settle, signedTransfer } from './chain.ts';
import { LEASE_MS } from './config.ts';
import { poolSigner } from './pools.ts';

/**
 * Pays a withdrawal's job, exactly once, however often it is called and by whom:
 *
 * 1. take the job's lease (a conditional update: one worker at a time; a dead worker's lease expires);
 * 2. if a payout transaction was stored before, ask the chain about it (chain.ts `settle`): landed
 *    → paid; still able to land → the very same bytes again (the chain takes a transaction once),
 *    and the job waits; failed, or expired (block height past its last valid one, and no status in
 *    the history) → it never moved anything, so a new one may be signed;
 * 3. sign a new payout, store it in the job, then send it; confirmed → paid.
 *
 * Any failure gives the lease back with the reason and leaves the job pending for the retry job.
 */
export async function payJob(jobId: string): Promise<PayoutJob | undefined> {
  const owner = randomUUID();
  const now = clock.nowMs();
  const job = await repo.leaseJob(jobId, owner, now, now + LEASE_MS);
  if (!job) return repo.getJob(jobId); // paid, or another worker has it
  let marked: PayoutJob | undefined;
  try {
    const chain = await chainA();
    let paid: { txHash: string; slot: number } | undefined;
    if (job.txHash) {
      // A payout stored before heights were kept gets a bound first (never earlier than its real one).
      let lastValidBlockHeight = job.lastValidBlockHeight;
      if (lastValidBlockHeight === undefined) {
        lastValidBlockHeight = await heightBound(chain);
        await repo.stampPayoutHeight(job.id, owner, job.txHash, lastValidBlockHeight);
      }
      // Only the chain decides: a new payout is signed only once the stored one failed or expired.
      const seen = await settle(chain, { signature: job.txHash, bytes: job.signedTx, lastValidBlockHeight });
      if (seen.kind === 'landed') paid = { txHash: job.txHash, slot: seen.slot };
      else if (seen.kind === 'pending') throw new Error(`payout ${job.txHash} is not settled yet`);
    }
    if (!paid) {
      const pool = await getPool(job.poolId);
      if (!pool) throw new Error(`pool ${job.poolId} is gone`);
      const signer = await poolSigner(pool);
      const signed = await signedTransfer(chain, signer, new PublicKey(job.recipient), BigInt(job.amount), assetOf(pool));
      await repo.recordPayoutTx(job.id, owner, signed.signature, signed.bytes, signed.lastValidBlockHeight);
      paid = { txHash: signed.signature, slot: (await chain.sendAndConfirm(signed.tx)).slot };
    }
    const paidAt = clock.now().toISOString();
    await repo.markJobPaid(job.id, paid.txHash, paid.slot, paidAt);
    marked = { ...job, status: 'paid', txHash: paid.txHash, paidAt };
  } catch (e) {
    const reason = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    logger.warn('payout failed; the retry job will try again', { jobId: job.id, reason });
    await repo.releaseJob(job.id, owner, reason).catch(() => undefined); // the lease expires anyway
  }
  // Paid and marked: a failed read of the job now must not turn the payout into an error (the
  // withdrawal would answer 500 for money that moved; its nullifier refuses a retry).
  return repo.getJob(jobId).catch((e: unknown) => {
    if (marked) return marked;
    throw e;
  });
}
