import { readChainBConfig } from './config.ts';
import { chainBFaults, FaultyChainB } from './faults.ts';
import type { ChainB } from './port.ts';
import { RpcChainB } from './rpc-chain.ts';
import { keysFromPrivateKey, loadOrCreateLocalKeys } from './registry-keys.ts';
import type { ProofRegistry } from './registry.ts';
import { RpcProofRegistry } from './rpc.ts';
import { DeferredChainB, DeferredProofRegistry, embedded, type BridgeMint, type EmbeddedLedger } from '../embedded.ts';

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
    // The emulator (lib/local/chain-b/registry.ts) loads at the first call; the addresses are the keys'.
    const k = keys;
    let loading: Promise<ProofRegistry> | undefined;
    cached = new DeferredProofRegistry(k, () => (loading ??= embedded().proofRegistry(k, c.chainId)));
  }
  return cached;
}

let embeddedChainB: Promise<{ chain: ChainB; ledger: EmbeddedLedger }> | undefined;

/** The embedded chain B (lib/local/chain-b), loaded once at its first use. */
function embeddedB(): Promise<{ chain: ChainB; ledger: EmbeddedLedger }> {
  embeddedChainB ??= embedded().chainB(readChainBConfig().chainId);
  embeddedChainB.catch(() => (embeddedChainB = undefined));
  return embeddedChainB;
}

/**
 * The bridge's credit on the embedded chain B: mints `amount` (smallest units) of `token` (a chain B
 * token address, 0x felt) to `to`, exactly once per `messageId` — a second call with the same
 * message id mints nothing and answers the first transaction's hash. The mint is an L1_HANDLER
 * transaction with an ERC-20 Transfer event from 0x0. Optional `symbol`/`name`/`decimals`
 * register a token other than STRK and ETH the first time it is minted (decimals default 18).
 */
export async function bridgeMint(args: BridgeMint): Promise<{ txHash: string }> {
  return (await embeddedB()).ledger.bridgeMint(args);
}

/** ERC-20 `balance_of(address)` of `token` on the embedded chain B ledger, in smallest units. */
export async function balanceOf(token: string, address: string): Promise<bigint> {
  return (await embeddedB()).ledger.balanceOf(token, address);
}

export type { ChainB, ChainBTransaction, ChainBTxStatus, ExecuteRequest, TransferOutcome } from './port.ts';
export { transferCall } from './tokens.ts';
export type { WarpRouteSetup } from './port.ts';
export { ChainBOutcomeUnknown, ChainBRejected, ChainBReverted, ChainBUnavailable } from './port.ts';
export { builtinToken, contractAddress, CONTRACT_ADDRESS_RULE, formatUnits, isContractAddress, isFelt, parseUnits } from './tokens.ts';

let port: ChainB | undefined;

/** Chain B for wallets (balances, transfers, transactions), by `CHAINB_ADAPTER`, built once. */
export function chainB(): ChainB {
  if (port) return port;
  const c = readChainBConfig();
  const base =
    c.CHAINB_ADAPTER === 'rpc' ? new RpcChainB({ rpcUrl: c.CHAINB_RPC_URL!, chainId: c.chainId }) : new DeferredChainB(async () => (await embeddedB()).chain);
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
