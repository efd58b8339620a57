import * as z from 'zod';
import { constants } from 'starknet';
import { readConfig } from '#lib/config.ts';

const felt = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, 'must be 0x-hex');

/**
 * Chain B settings, read when a port is built or asked (index.ts), not at module load: a function
 * that imports chain B's helpers but never its ports does not stop on chain B's settings.
 * - `CHAINB_ADAPTER`: `local` (default: the registry emulated over DynamoDB, the server's Stark
 *   key generated once into `$DATA_DIR/chainb/account.json`) or `rpc` (a real Starknet node).
 * - rpc needs `CHAINB_RPC_URL`, `CHAINB_REGISTRY_ADDRESS`, `CHAINB_ACCOUNT_ADDRESS` and
 *   `CHAINB_PRIVATE_KEY` (the server account that pays the fees; on AWS inject it from Secrets
 *   Manager / SSM, never commit it).
 * - `CHAINB_CHAIN_ID`: `SN_SEPOLIA` (default) or `SN_MAIN`; locally it only enters the tx hash.
 * - local may take `CHAINB_PRIVATE_KEY` too (then no key file is written).
 * - `CHAIN_B_NETWORK`: `localnet` (default), `sepolia` (`devnet` is its alias) or `mainnet`:
 *   whether the faucet exists (localnet; mainnet refuses airdrops) and the explorer links.
 * - `CHAIN_FAULTS`: with `b.` names (or `on`), the adapter wrapped in the fault layer (faults.ts).
 */
const schema = z
  .object({
    CHAINB_ADAPTER: z.enum(['local', 'rpc']).default('local'),
    CHAINB_RPC_URL: z.url().optional(),
    CHAINB_REGISTRY_ADDRESS: felt.optional(),
    CHAINB_ACCOUNT_ADDRESS: felt.optional(),
    CHAINB_PRIVATE_KEY: felt.optional(),
    CHAINB_CHAIN_ID: z.enum(['SN_SEPOLIA', 'SN_MAIN']).default('SN_SEPOLIA'),
    DATA_DIR: z.string().optional(),
    CHAIN_FAULTS: z.string().max(500).optional(),
    CHAIN_B_NETWORK: z
      .enum(['localnet', 'sepolia', 'devnet', 'mainnet'])
      .default('localnet')
      .transform((n) => (n === 'devnet' ? 'sepolia' : n)),
  })
  .superRefine((c, ctx) => {
    if (c.CHAINB_ADAPTER !== 'rpc') return;
    for (const k of ['CHAINB_RPC_URL', 'CHAINB_REGISTRY_ADDRESS', 'CHAINB_ACCOUNT_ADDRESS', 'CHAINB_PRIVATE_KEY'] as const) {
      if (!c[k]) ctx.addIssue({ code: 'custom', path: [k], message: 'required when CHAINB_ADAPTER=rpc' });
    }
  })
  .transform((c) => ({ ...c, chainId: constants.StarknetChainId[c.CHAINB_CHAIN_ID] }));

export type ChainBConfig = z.infer<typeof schema>;

export const readChainBConfig = (env: NodeJS.ProcessEnv = process.env): ChainBConfig => readConfig(schema, env);
