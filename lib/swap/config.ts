import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * Swap settings, read once at cold start.
 * - `SWAP_ADAPTER`: `local` (the embedded pools on the local chain A; the default on localnet) or
 *   `jupiter` (Jupiter's aggregator, for a real cluster; the default elsewhere).
 * - `SWAP_QUOTE_SECONDS`: how long a quote may be executed (default 30).
 * - `SWAP_FEE_BPS`: the local pools' fee (default 30 = 0.3 %).
 * - `JUPITER_API_URL`: Jupiter's Swap API base (default `https://lite-api.jup.ag/swap/v1`).
 */
const schema = z
  .object({
    CHAIN_A_NETWORK: z.enum(['localnet', 'devnet', 'mainnet']).default('localnet'),
    SWAP_ADAPTER: z.enum(['local', 'jupiter']).optional(),
    SWAP_QUOTE_SECONDS: z.coerce.number().int().min(5).max(600).default(30),
    SWAP_FEE_BPS: z.coerce.number().int().min(0).max(1000).default(30),
    JUPITER_API_URL: z.url().default('https://lite-api.jup.ag/swap/v1'),
  })
  .transform((c) => ({ ...c, adapter: c.SWAP_ADAPTER ?? (c.CHAIN_A_NETWORK === 'localnet' ? ('local' as const) : ('jupiter' as const)) }))
  .superRefine((c, ctx) => {
    if (c.adapter === 'local' && c.CHAIN_A_NETWORK === 'mainnet') {
      ctx.addIssue({ code: 'custom', path: ['SWAP_ADAPTER'], message: 'the local pools mint test tokens: not on mainnet' });
    }
  });

export type SwapConfig = z.infer<typeof schema>;

export const readSwapConfig = (env: NodeJS.ProcessEnv = process.env): SwapConfig => readConfig(schema, env);

export const swapConfig: SwapConfig = readSwapConfig();
