import { createHash } from 'node:crypto';
import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * The published rewards rule (docs/rewards.md). Epochs are fixed windows of
 * REWARDS_EPOCH_SECONDS (default one week) counted from REWARDS_GENESIS (default Monday
 * 2026-01-05 00:00 UTC). Points count what the user paid, never the volume moved (test/api/rewards-rule.test.ts: three
 * rounds of compressing and decompressing 49 SOL earned 294,000 points for 60,003 lamports of
 * fees): 1 point per 1,000 lamports of the fee of each source transaction — a swap, a
 * compression (compress, decompress, transfer of the native coin or a token), a shielded deposit
 * — that one of the user's own chain A wallets paid (the fee payer), rounded down. So any loop of
 * transactions earns exactly what its fees earn, and no more; a transaction whose fee someone else
 * paid earns nothing, and so does a compressed transfer to one of the user's own wallets (it
 * moves nothing to anyone). A swap into a deposit is one transaction under two sources: it
 * accrues under the swap once, the deposit once (one fee counted twice: two actions).
 * An ended epoch closes (after a grace minute) into a Merkle root of (account, points); each point
 * pays 1 SHRD (6 decimals) on chain A when claimed.
 */
const schema = z.object({
  REWARDS_EPOCH_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(7 * 24 * 3600),
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

/** One point per this many lamports of fee paid. */
export const FEE_LAMPORTS_PER_POINT = 1_000n;
export const REWARD_TOKEN = { symbol: 'SHRD', decimals: 6, perPoint: 1_000_000n } as const;

export type Source = 'swap' | 'compression' | 'shielded-deposit';

const FEE_RULE =
  "1 point per 1,000 lamports of the transaction's fee, when the user's own chain A wallet paid it (rounded down); the amount moved does not count";
export const SOURCES = [
  { source: 'swap', rule: `a completed swap: ${FEE_RULE}` },
  { source: 'compression', rule: `a compress, decompress or compressed transfer: ${FEE_RULE}; a transfer to one of the user's own wallets earns nothing` },
  { source: 'shielded-deposit', rule: `a confirmed shielded-pool deposit (direct, or the output of a swap, which also accrues as a swap): ${FEE_RULE}` },
] as const;

/** The points of one source transaction whose fee the user paid. */
export const pointsFor = (feeLamports: bigint): number => Number(feeLamports / FEE_LAMPORTS_PER_POINT);

/**
 * The user's rewards account: SHA-256 of a fixed label and the user id. Leaves and the
 * leaderboard carry it (never usernames or addresses); user ids are random and never published.
 */
export const accountOf = (userId: string): string => createHash('sha256').update(`shroud-rewards-account:v1:${userId}`).digest('hex');
export const pseudonymOf = (account: string): string => `anon-${account.slice(0, 10)}`;
