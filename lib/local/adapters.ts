import { installEmbedded } from '#lib/chains/embedded.ts';
import { installSwapVenue } from '#lib/swap/venue-port.ts';

/**
 * Installs the emulators behind the ports: chain A on LiteSVM (chain-a/chain.ts), chain B's
 * ledger, wallets' adapter and proof registry over DynamoDB (chain-b/), behind
 * lib/chains/embedded.ts; the swap venue's constant-product pools (swap/pools.ts), behind
 * lib/swap/venue-port.ts. Called at the embedded runtime's start (runtime.ts) and by the test
 * setup (test/support/table-per-file.ts); nothing here loads until a port is first used.
 */
export function installEmbeddedAdapters(): void {
  installEmbedded({
    chainA: async (dataDir) => (await import('./chain-a/chain.ts')).LocalChainA.open(dataDir),
    chainB: async (chainId) => {
      const [{ localLedger }, { LocalChainB }] = await Promise.all([import('./chain-b/ledger.ts'), import('./chain-b/chain.ts')]);
      const ledger = localLedger(chainId);
      return { chain: new LocalChainB(ledger), ledger };
    },
    proofRegistry: async (keys, chainId) => new (await import('./chain-b/registry.ts')).LocalProofRegistry(keys, chainId),
  });
  installSwapVenue(async () => (await import('./swap/pools.ts')).localSwapVenue);
}
