import * as repo from '#lib/data/shielded-pools.ts';
import type { DepositRecord } from '#lib/data/shielded-pools.ts';
import type { DepositView } from './schemas.ts';

/**
 * A deposit as the routes show it, and the caller's deposits: apart from deposits.ts (which signs
 * and sends them) so that the listing's function does not load the chain A libraries at init
 * (test/infra/lambda-assets.test.ts).
 */
export const view = (d: DepositRecord): DepositView => ({
  id: d.id,
  pool: d.poolId,
  walletId: d.walletId,
  commitment: d.commitment,
  status: d.status,
  txHash: d.txHash,
  ...(d.leafIndex !== undefined ? { leafIndex: d.leafIndex } : {}),
  ...(d.root !== undefined ? { root: d.root } : {}),
  createdAt: d.createdAt,
});

export async function listDeposits(userId: string): Promise<{ deposits: DepositView[] }> {
  const all = await repo.listDeposits(userId);
  return { deposits: all.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map(view) };
}
