import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * Ethereum (L1) settings for the StarkGate route's watcher, read once at cold start:
 * - `ETHEREUM_RPC_URL`: an Ethereum JSON-RPC endpoint (on AWS a provider's mainnet URL; `npm
 *   start` sets its embedded L1's). Unset: no watcher, Ethereum records wait at `submitted`.
 * - `ETHEREUM_CONFIRMATIONS`: blocks a deposit's block must have on top of it, itself included
 *   (default 12; the embedded L1 mines a block per transaction and uses 1).
 * - `ETHEREUM_LOCAL`: `1` when the L1 is the embedded one (set by lib/local/runtime.ts): the
 *   service then plays the Starknet sequencer on the local chain B.
 * - `CHAIN_FAULTS`: with `l1.` names (or `on`), the client wrapped in the fault layer (faults.ts).
 */
const schema = z.object({
  ETHEREUM_RPC_URL: z.url().optional(),
  ETHEREUM_CONFIRMATIONS: z.coerce.number().int().min(1).max(10_000).default(12),
  ETHEREUM_LOCAL: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1'),
  CHAIN_FAULTS: z.string().max(500).optional(),
});

export type EthereumConfig = z.infer<typeof schema>;

export const readEthereumConfig = (env: NodeJS.ProcessEnv = process.env): EthereumConfig => readConfig(schema, env);

export const ethereumConfig: EthereumConfig = readEthereumConfig();
