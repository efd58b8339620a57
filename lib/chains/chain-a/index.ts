import { readChainAConfig } from './config.ts';
import type { ChainA } from './port.ts';
import { chainAFaults, FaultyChainA } from './faults.ts';
import { embedded } from '../embedded.ts';

export type { ChainA, ChainANetwork, SentTransaction } from './port.ts';
export { ChainRejected, ChainUnavailable } from './port.ts';

let cached: Promise<ChainA> | undefined;

/**
 * Chain A for this process, by configuration (built once, at first use). The local adapter is the
 * embedded runtime's (lib/local/chain-a/chain.ts, installed through ../embedded.ts): it loads
 * LiteSVM (native, local only), which no Lambda bundle carries.
 */
export function chainA(): Promise<ChainA> {
  cached ??= (async () => {
    const c = readChainAConfig();
    let chain: ChainA;
    if (c.adapter === 'rpc') {
      // stateless.js and web3.js load with the first chain call, not at the import of this module.
      const { RpcChainA } = await import('./rpc.ts');
      chain = new RpcChainA({ network: c.CHAIN_A_NETWORK, rpcUrl: c.CHAIN_A_RPC_URL!, indexerUrl: c.indexerUrl!, proverUrl: c.proverUrl! });
    } else {
      chain = await embedded().chainA(c.DATA_DIR);
    }
    // CHAIN_FAULTS: the same chain, misbehaving as a real cluster does (faults.ts), when it names chain A.
    const faults = c.CHAIN_FAULTS ? chainAFaults(c.CHAIN_FAULTS) : undefined;
    return faults ? new FaultyChainA(chain, faults) : chain;
  })();
  cached.catch(() => (cached = undefined));
  return cached;
}
