import * as z from 'zod';
import * as repo from '#lib/data/shielded-pools.ts';
import type { PoolRecord } from '#lib/data/shielded-pools.ts';
import { formatUnits } from '#lib/wallets/amounts.ts';
import { POOL_SPECS, poolOrThrow, ensurePools } from './pools.ts';
import type { leavesQuery, PoolView } from './schemas.ts';

/** What anyone may read about the pools: their trees are public, as they are on chain in the designs this follows. */
export const LEAVES_PAGE = 1000;

const view = (p: PoolRecord): PoolView => ({
  id: p.id,
  token: p.token,
  ...(p.mint ? { mint: p.mint } : {}),
  decimals: p.decimals,
  denomination: p.denomination,
  formatted: formatUnits(BigInt(p.denomination), p.decimals),
  address: p.address,
  root: p.root,
  size: p.size,
});

export async function listPools(): Promise<{ pools: PoolView[] }> {
  await ensurePools();
  const pools = await Promise.all(POOL_SPECS.map((s) => repo.getPool(s.id)));
  return { pools: pools.filter((p): p is PoolRecord => p !== undefined).map(view) };
}

export const getPoolView = async (poolId: string): Promise<PoolView> => view(await poolOrThrow(poolId));

/** Up to LEAVES_PAGE commitments from index `from`, with the pool's size and root as read just before. */
export async function listLeaves(poolId: string, query: z.infer<typeof leavesQuery>) {
  const pool = await poolOrThrow(poolId);
  const leaves = query.from >= pool.size ? [] : await repo.listLeaves(pool.id, query.from, Math.min(LEAVES_PAGE, pool.size - query.from));
  return { pool: pool.id, from: query.from, leaves: leaves.map((l) => l.commitment), size: pool.size, root: pool.root };
}
