import { readChainBConfig } from './config.ts';
import { keysFromPrivateKey, loadOrCreateLocalKeys, LocalProofRegistry } from './local.ts';
import type { ProofRegistry } from './registry.ts';
import { RpcProofRegistry } from './rpc.ts';

export type { ProofRegistry, StoredProof, ProofStoredEvent, StoreProofArgs } from './registry.ts';
export { RegistryRevert } from './registry.ts';

let cached: ProofRegistry | undefined;

/** Chain B's proof registry for this process, by `CHAINB_ADAPTER` (built once, at first use). */
export function proofRegistry(): ProofRegistry {
  if (cached) return cached;
  const c = readChainBConfig();
  if (c.CHAINB_ADAPTER === 'rpc') {
    cached = new RpcProofRegistry({
      rpcUrl: c.CHAINB_RPC_URL!,
      registryAddress: c.CHAINB_REGISTRY_ADDRESS!,
      accountAddress: c.CHAINB_ACCOUNT_ADDRESS!,
      privateKey: c.CHAINB_PRIVATE_KEY!,
      chainId: c.chainId,
    });
  } else {
    let keys;
    if (c.CHAINB_PRIVATE_KEY) keys = keysFromPrivateKey(c.CHAINB_PRIVATE_KEY, c.CHAINB_REGISTRY_ADDRESS);
    else if (c.DATA_DIR) keys = loadOrCreateLocalKeys(c.DATA_DIR);
    else throw new Error('invalid configuration: the local chain B needs DATA_DIR (for its key file) or CHAINB_PRIVATE_KEY');
    cached = new LocalProofRegistry(keys, c.chainId);
  }
  return cached;
}
