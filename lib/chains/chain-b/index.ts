import { readChainBConfig } from './config.ts';
import { LocalLedger } from './ledger.ts';
import { chainBFaults, FaultyChainB } from './faults.ts';
import { LocalChainB } from './local-chain.ts';
import type { ChainB } from './port.ts';
import { RpcChainB } from './rpc-chain.ts';
import { keysFromPrivateKey, loadOrCreateLocalKeys, LocalProofRegistry } from './local.ts';
import type { ProofRegistry } from './registry.ts';
import { RpcProofRegistry } from './rpc.ts';

export type { ProofRegistry, StoredProof, ProofStoredEvent, StoreProofArgs } from './registry.ts';
export { RegistryRevert } from './registry.ts';
export { STRK, ETH, BUILTIN_TOKENS, FEE_TOKEN, type TokenInfo } from './tokens.ts';

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

let ledger: LocalLedger | undefined;

/** The embedded chain B ledger (accounts, ERC-20s, fees) of this process. */
export function localLedger(): LocalLedger {
  ledger ??= new LocalLedger(readChainBConfig().chainId);
  return ledger;
}

/**
 * The bridge's credit on the local chain B: mints `amount` (smallest units) of `token` (a chain B
 * token address, 0x felt) to `to`, exactly once per `messageId` — a second call with the same
 * message id mints nothing and answers the first transaction's hash. The mint is an L1_HANDLER
 * transaction with an ERC-20 Transfer event from 0x0. Optional `symbol`/`name`/`decimals`
 * register a token other than STRK and ETH the first time it is minted (decimals default 18).
 */
export function bridgeMint(args: { token: string; to: string; amount: bigint; messageId: string; symbol?: string; name?: string; decimals?: number }): Promise<{ txHash: string }> {
  return localLedger().bridgeMint(args);
}

/** ERC-20 `balance_of(address)` of `token` on the local chain B ledger, in smallest units. */
export function balanceOf(token: string, address: string): Promise<bigint> {
  return localLedger().balanceOf(token, address);
}

export type { ChainB, ChainBTransaction, ChainBTxStatus, ExecuteRequest, TransferOutcome } from './port.ts';
export { transferCall } from './local-chain.ts';
export { ChainBOutcomeUnknown, ChainBRejected, ChainBReverted, ChainBUnavailable } from './port.ts';
export { builtinToken, formatUnits, isContractAddress, isFelt, parseUnits } from './tokens.ts';

let port: ChainB | undefined;

/** Chain B for wallets (balances, transfers, transactions), by `CHAINB_ADAPTER`, built once. */
export function chainB(): ChainB {
  if (port) return port;
  const c = readChainBConfig();
  const base = c.CHAINB_ADAPTER === 'rpc' ? new RpcChainB({ rpcUrl: c.CHAINB_RPC_URL!, chainId: c.chainId }) : new LocalChainB(localLedger());
  // CHAIN_FAULTS: the same chain, misbehaving as a real network does (faults.ts), when it names chain B.
  const faults = c.CHAIN_FAULTS ? chainBFaults(c.CHAIN_FAULTS) : undefined;
  port = faults ? new FaultyChainB(base, faults) : base;
  return port;
}

/** The network wallets see: `localnet`, `sepolia` or `mainnet`. */
export const chainBNetwork = (): 'localnet' | 'sepolia' | 'mainnet' => readChainBConfig().CHAIN_B_NETWORK;

/** Where a person looks a transaction up: Voyager on Sepolia and mainnet, this API's own route on localnet. */
export function chainBExplorerUrl(txHash: string, publicBaseUrl: string | undefined): string {
  const network = chainBNetwork();
  if (network === 'mainnet') return `https://voyager.online/tx/${txHash}`;
  if (network === 'sepolia') return `https://sepolia.voyager.online/tx/${txHash}`;
  return `${(publicBaseUrl ?? 'http://localhost:3000').replace(/\/$/, '')}/api/chainb/tx/${txHash}`;
}
