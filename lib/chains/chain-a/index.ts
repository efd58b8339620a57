import { readChainAConfig } from './config.ts';
import type { ChainA } from './port.ts';
import { chainAFaults, FaultyChainA } from './faults.ts';
import { RpcChainA } from './rpc.ts';

export type { ChainA, ChainANetwork, SentTransaction } from './port.ts';
export { ChainRejected, ChainUnavailable } from './port.ts';

let cached: Promise<ChainA> | undefined;

/**
 * Chain A for this process, by configuration (built once, at first use). The local adapter is
 * imported dynamically: it loads LiteSVM (native, local only), which no Lambda bundle carries.
 */
export function chainA(): Promise<ChainA> {
  cached ??= (async () => {
    const c = readChainAConfig();
    let chain: ChainA;
    if (c.adapter === 'rpc') {
      chain = new RpcChainA({ network: c.CHAIN_A_NETWORK, rpcUrl: c.CHAIN_A_RPC_URL!, indexerUrl: c.indexerUrl!, proverUrl: c.proverUrl! });
    } else {
      const { LocalChainA } = await import('./local.ts');
      chain = await LocalChainA.open(c.DATA_DIR);
    }
    // CHAIN_FAULTS: the same chain, misbehaving as a real cluster does (faults.ts), when it names chain A.
    const faults = c.CHAIN_FAULTS ? chainAFaults(c.CHAIN_FAULTS) : undefined;
    return faults ? new FaultyChainA(chain, faults) : chain;
  })();
  cached.catch(() => (cached = undefined));
  return cached;
}
