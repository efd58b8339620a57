import * as z from 'zod';

/** The wallet routes' answers (before the flat envelope), for the OpenAPI document. */
const amount = z.string().regex(/^[0-9]+$/);
export const walletView = z.object({
  id: z.string(),
  chain: z.enum(['a', 'b']),
  name: z.string(),
  address: z.string(),
  isActive: z.boolean(),
  createdAt: z.string(),
});
export const walletAnswer = z.object({ wallet: walletView });
export const walletsAnswer = z.object({ wallets: z.array(walletView) });
export const walletDeletedAnswer = z.object({ deleted: z.literal(true) });
/** Chain A answers name the `mint` when asked for a token; chain B answers name the `token` (its address). */
export const balanceAnswer = z.object({
  address: z.string(),
  balance: amount,
  formatted: z.string(),
  decimals: z.number().int(),
  mint: z.string().optional(),
  token: z.string().optional(),
});
export const airdropAnswer = z.object({
  txHash: z.string(),
  address: z.string(),
  /** Chain B: the token's address (STRK or ETH). */
  token: z.string().optional(),
  amount,
  formatted: z.string(),
  decimals: z.number().int(),
  explorerUrl: z.string(),
});
