import * as repo from '#lib/data/shielded-pools.ts';
import type { DepositRecord, PoolRecord } from '#lib/data/shielded-pools.ts';
import { CONFLICT, retryOnConflict } from '#lib/data/retry.ts';
import { errors } from '#lib/errors.ts';
import { accrueAfter, type AccrueInput } from '#lib/rewards/accrue.ts';
import { transferConfig } from './config.ts';
import { appendLeaf, poseidonHash2 } from '#lib/zk/merkle.ts';

/**
 * Appends a deposit whose transfer has landed to its pool's tree: read the tree, compute the new
 * state, and write it together with the leaf and the deposit's completion, conditional on the
 * size that was read; a concurrent append makes the write fail cleanly and this one read again.
 */
const MAX_ATTEMPTS = 25;

/**
 * Reward points for a confirmed deposit, keyed by its transfer (direct, or the swap that paid it):
 * once, whatever the retries (lib/rewards). The native coin counts by the denomination.
 */
/** The deposit's accrual (the rewards rule counts the fee the user paid: lib/rewards/rules.ts). */
export const depositAccrual = (_pool: PoolRecord, d: DepositRecord): AccrueInput => ({
  userId: d.userId,
  source: 'shielded-deposit',
  txHash: d.txHash,
});
const accrueDeposit = (pool: PoolRecord, d: DepositRecord) => accrueAfter(depositAccrual(pool, d));

export async function appendToTree(d: DepositRecord): Promise<{ leafIndex: number; root: string }> {
  const h = await poseidonHash2();
  return retryOnConflict(
    async () => {
      const pool = await repo.getPool(d.poolId);
      if (!pool) throw new Error(`pool ${d.poolId} of deposit ${d.id} is gone`);
      const next = appendLeaf(h, { size: pool.size, root: BigInt(pool.root), filled: pool.filled.map(BigInt) }, BigInt(d.commitment));
      const root = next.root.toString();
      const outcome = await repo.appendDeposit(pool, d, {
        root,
        filled: next.filled.map(String),
        roots: [...pool.roots, root].slice(-transferConfig.TRANSFER_ROOT_HISTORY),
      });
      if (outcome === 'appended') {
        await accrueDeposit(pool, d);
        return { leafIndex: pool.size, root };
      }
      if (outcome === 'done') {
        const done = await repo.getDeposit(d.userId, d.id);
        if (done?.status === 'complete') {
          await accrueDeposit(pool, d); // a retry after a crash between the append and the accrual
          return { leafIndex: done.leafIndex!, root: done.root! };
        }
        throw new Error(`deposit ${d.id} is not ready for its append (${done?.status ?? 'gone'})`);
      }
      return CONFLICT;
    },
    { attempts: MAX_ATTEMPTS, exhausted: () => errors.serviceUnavailable(1, 'the pool is busy; the deposit is recorded and will be added to the tree') },
  );
}
