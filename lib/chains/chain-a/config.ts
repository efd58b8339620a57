import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * Chain A settings, read when the port is first built (index.ts), not at module load: a function
 * that imports chain A's helpers but never its port does not stop on chain A's settings.
 * - `CHAIN_A_NETWORK`: `localnet` (default), `devnet` or `mainnet`; it picks the adapter, whether
 *   airdrops exist, and the explorer links.
 * - `localnet` without `CHAIN_A_RPC_URL`: the embedded runtime (LiteSVM + Light Protocol's
 *   programs), its state under `DATA_DIR/chain-a`.
 * - otherwise the rpc adapter: `CHAIN_A_RPC_URL` (Solana JSON-RPC) and `CHAIN_A_INDEXER_URL` (a
 *   Photon ZK-compression indexer; many providers serve both on one URL, the default), and
 *   `CHAIN_A_PROVER_URL` (validity proofs; default: the indexer URL).
 * - In a Lambda function (`AWS_LAMBDA_FUNCTION_NAME`), `CHAIN_A_RPC_URL` is required: the bundles
 *   leave LiteSVM out (cdk/rehearsal.ts refuses such a stage at synth).
 * - `CHAIN_FAULTS`: the adapter wrapped in the fault layer (faults.ts), parsed at first use.
 */
const schema = z
  .object({
    CHAIN_A_NETWORK: z.enum(['localnet', 'devnet', 'mainnet']).default('localnet'),
    CHAIN_A_RPC_URL: z.url().optional(),
    CHAIN_A_INDEXER_URL: z.url().optional(),
    CHAIN_A_PROVER_URL: z.url().optional(),
    DATA_DIR: z.string().optional(),
    /** Set by Lambda's runtime: a deployed function, whose bundle has no embedded chain. */
    AWS_LAMBDA_FUNCTION_NAME: z.string().optional(),
    /** The fault layer over the chosen adapter (faults.ts): `on`, or `name=value` pairs. */
    CHAIN_FAULTS: z.string().max(500).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.CHAIN_A_NETWORK !== 'localnet' && !c.CHAIN_A_RPC_URL) {
      ctx.addIssue({ code: 'custom', path: ['CHAIN_A_RPC_URL'], message: `required when CHAIN_A_NETWORK=${c.CHAIN_A_NETWORK}` });
    } else if (c.AWS_LAMBDA_FUNCTION_NAME && !c.CHAIN_A_RPC_URL) {
      // Said here rather than as a missing native package at the first wallet call.
      ctx.addIssue({
        code: 'custom',
        path: ['CHAIN_A_RPC_URL'],
        message: 'required on a deployed stage (the embedded chain A is in no Lambda bundle): set it in -c functionEnvironment',
      });
    }
  })
  .transform((c) => ({
    ...c,
    adapter: c.CHAIN_A_RPC_URL ? ('rpc' as const) : ('local' as const),
    indexerUrl: c.CHAIN_A_INDEXER_URL ?? c.CHAIN_A_RPC_URL,
    proverUrl: c.CHAIN_A_PROVER_URL ?? c.CHAIN_A_INDEXER_URL ?? c.CHAIN_A_RPC_URL,
  }));

export type ChainAConfig = z.infer<typeof schema>;

export const readChainAConfig = (env: NodeJS.ProcessEnv = process.env): ChainAConfig => readConfig(schema, env);
