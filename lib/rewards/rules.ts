import { createHash } from 'node:crypto';
import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * The published rewards rule (README "Rewards"). Epochs are fixed windows of
 * REWARDS_EPOCH_SECONDS (default one week) counted from REWARDS_GENESIS (default Monday
 * 2026-01-05 00:00 UTC). Points, whole numbers:
 * - `swap`: 1 point per 0.001 SOL of the swap's native-coin leg (rounded down), at least 1 (no
 *   SOL leg: 1 point);
 * - `compression` of the native coin (compress or decompress): 1 point per 0.001 SOL, at least 1;
 * - `compression` of tokens (compress, decompress, transfer): 1 point per transaction;
 * - `shielded-deposit` (direct, or a swap whose output is the deposit): native-coin pools 1 point
 *   per 0.001 SOL of the denomination, token pools 1 point per deposit. A swap into a deposit is
 *   both a swap and a deposit: it accrues under each rule once (one transaction, two sources).
 * An ended epoch closes (after a grace minute) into a Merkle root of (account, points); each point
 * pays 1 SHRD (6 decimals) on chain A when claimed.
 */
const schema = z.object({
  REWARDS_EPOCH_SECONDS: z.coerce.number().int().min(60).default(7 * 24 * 3600),
  REWARDS_GENESIS: z.iso.datetime().default('2026-01-05T00:00:00Z'),
});
export const rewardsConfig = readConfig(schema);

const GENESIS_MS = Date.parse(rewardsConfig.REWARDS_GENESIS);
const EPOCH_MS = rewardsConfig.REWARDS_EPOCH_SECONDS * 1000;
/** Accruals in flight at the end of an epoch land before it closes. */
export const CLOSE_GRACE_MS = 60_000;

export const epochOf = (ms: number): number => Math.floor((ms - GENESIS_MS) / EPOCH_MS);
export const epochStart = (n: number): number => GENESIS_MS + n * EPOCH_MS;
export const epochEnd = (n: number): number => epochStart(n + 1);
export const closable = (n: number, nowMs: number): boolean => nowMs >= epochEnd(n) + CLOSE_GRACE_MS;

export const LAMPORTS_PER_POINT = 1_000_000n;
export const REWARD_TOKEN = { symbol: 'SHRD', decimals: 6, perPoint: 1_000_000n } as const;

export type Source = 'swap' | 'compression' | 'shielded-deposit';

export const SOURCES = [
  { source: 'swap', rule: '1 point per 0.001 SOL of the native-coin leg of a completed swap (rounded down), at least 1; a swap without a SOL leg: 1 point' },
  { source: 'compression', rule: 'native coin: 1 point per 0.001 SOL compressed or decompressed (rounded down), at least 1; tokens: 1 point per compress, decompress or transfer' },
  {
    source: 'shielded-deposit',
    rule: 'a confirmed shielded-pool deposit (direct, or the output of a swap): native-coin pools 1 point per 0.001 SOL of the denomination, token pools 1 point per deposit; a swap into a deposit also accrues as a swap',
  },
] as const;

/** The points of one source transaction. */
export function pointsFor(lamports: bigint | undefined): number {
  if (lamports === undefined) return 1;
  const p = lamports / LAMPORTS_PER_POINT;
  return Number(p < 1n ? 1n : p);
}

/**
 * The user's rewards account: SHA-256 of a fixed label and the user id. Leaves and the
 * leaderboard carry it (never usernames or addresses); user ids are random and never published.
 */
export const accountOf = (userId: string): string => createHash('sha256').update(`shroud-rewards-account:v1:${userId}`).digest('hex');
export const pseudonymOf = (account: string): string => `anon-${account.slice(0, 10)}`;
