import type { constants } from 'starknet';
import type { ChainA } from './chain-a/port.ts';
import type {
  BlockTransaction,
  ChainB,
  ChainBTransaction,
  ChainBTxStatus,
  ExecuteRequest,
  MaxFees,
  SignedInvoke,
  TransferOutcome,
  TransferRequest,
  WarpRouteSetup,
} from './chain-b/port.ts';
import type { LocalKeys } from './chain-b/registry-keys.ts';
import type { ProofRegistry, ProofStoredEvent, StoreProofArgs, StoredProof } from './chain-b/registry.ts';
import type { TokenInfo } from './chain-b/tokens.ts';

/**
 * The seam between the ports (lib/chains) and the emulators of the embedded default (lib/local),
 * which lib/<domain> never imports (test/unit/architecture/dependencies.test.ts). The embedded
 * runtime and the test setup install the emulators (lib/local/adapters.ts: installEmbeddedAdapters);
 * a Lambda never does, and `CHAIN_A_ADAPTER` / `CHAINB_ADAPTER` = local then fails at first use.
 * Every loader is asynchronous so that installing loads nothing: a module of the emulators reads
 * its configuration when first used, after the process (or the test) has set it.
 */
export interface EmbeddedChains {
  chainA(dataDir: string | undefined): Promise<ChainA>;
  /** The embedded chain B: the wallets' port over its ledger, and the ledger's bridge side. */
  chainB(chainId: constants.StarknetChainId): Promise<{ chain: ChainB; ledger: EmbeddedLedger }>;
  proofRegistry(keys: LocalKeys, chainId: constants.StarknetChainId): Promise<ProofRegistry>;
}

/** A bridge mint: `amount` of `token` to `to` for the message `messageId` (a new token named by `symbol`, `name`, `decimals`). */
export interface BridgeMint {
  token: string;
  to: string;
  amount: bigint;
  messageId: string;
  symbol?: string;
  name?: string;
  decimals?: number;
}

/** What the bridge's relayer does on the embedded chain B's ledger beyond the wallets' port. */
export interface EmbeddedLedger {
  /** Mints `amount` of `token` to `to` once per `messageId` (an L1_HANDLER transaction); again, the first hash. */
  bridgeMint(args: BridgeMint): Promise<{ txHash: string }>;
  balanceOf(token: string, address: string): Promise<bigint>;
}

let installed: EmbeddedChains | undefined;

/** Installs the emulators (lib/local/adapters.ts calls it; a second call replaces the first). */
export function installEmbedded(chains: EmbeddedChains): void {
  installed = chains;
}

export function embedded(): EmbeddedChains {
  if (!installed) {
    throw new Error(
      'invalid configuration: a local chain adapter outside the embedded runtime (lib/local/adapters.ts installs the emulators; on AWS set the rpc adapters)',
    );
  }
  return installed;
}

/** Chain B's port over a chain that loads at its first call (the embedded one: `chainB()` is synchronous). */
export class DeferredChainB implements ChainB {
  readonly adapter = 'local' as const;
  /** The emulator itself, for a test reading its own surface. */
  constructor(readonly load: () => Promise<ChainB>) {}
  /** A failure to load (no emulators installed) is the call's rejection, as any chain failure is. */
  #inner = (): Promise<ChainB> => Promise.resolve().then(() => this.load());
  tokenInfo(address: string): Promise<TokenInfo | undefined> {
    return this.#inner().then((c) => c.tokenInfo(address));
  }
  balanceOf(token: string, address: string): Promise<bigint> {
    return this.#inner().then((c) => c.balanceOf(token, address));
  }
  isDeployed(address: string): Promise<boolean> {
    return this.#inner().then((c) => c.isDeployed(address));
  }
  maxFees(): Promise<MaxFees | undefined> {
    return this.#inner().then((c) => c.maxFees());
  }
  transfer(req: TransferRequest): Promise<TransferOutcome> {
    return this.#inner().then((c) => c.transfer(req));
  }
  execute(req: ExecuteRequest): Promise<TransferOutcome> {
    return this.#inner().then((c) => c.execute(req));
  }
  getTransaction(hash: string): Promise<ChainBTransaction | null> {
    return this.#inner().then((c) => c.getTransaction(hash));
  }
  getTransactionStatus(hash: string): Promise<ChainBTxStatus> {
    return this.#inner().then((c) => c.getTransactionStatus(hash));
  }
  getNonce(address: string, block?: number): Promise<bigint> {
    return this.#inner().then((c) => c.getNonce(address, block));
  }
  blockNumber(): Promise<number> {
    return this.#inner().then((c) => c.blockNumber());
  }
  blockTransactions(block: number): Promise<BlockTransaction[]> {
    return this.#inner().then((c) => c.blockTransactions(block));
  }
  resend(signed: SignedInvoke): Promise<void> {
    return this.#inner().then((c) => c.resend(signed));
  }
  faucet(token: string, to: string, amount: bigint): Promise<{ txHash: string }> {
    return this.#inner().then((c) => c.faucet(token, to, amount));
  }
  prepareWarpRoute(router: string, route: WarpRouteSetup): Promise<void> {
    return this.#inner().then((c) => c.prepareWarpRoute(router, route));
  }
}

/** The proof registry over one that loads at its first call; its addresses are the keys' (known before). */
export class DeferredProofRegistry implements ProofRegistry {
  readonly adapter = 'local' as const;
  readonly address: string;
  readonly accountAddress: string;
  constructor(
    keys: LocalKeys,
    readonly load: () => Promise<ProofRegistry>,
  ) {
    this.address = keys.registryAddress;
    this.accountAddress = keys.accountAddress;
  }
  #inner = (): Promise<ProofRegistry> => Promise.resolve().then(() => this.load());
  storeProof(args: StoreProofArgs): Promise<{ txHash: string }> {
    return this.#inner().then((r) => r.storeProof(args));
  }
  getProof(proofId: bigint): Promise<StoredProof | null> {
    return this.#inner().then((r) => r.getProof(proofId));
  }
  verifyProofExists(proofId: bigint): Promise<boolean> {
    return this.#inner().then((r) => r.verifyProofExists(proofId));
  }
  getEvents(opts?: { fromBlock?: number; proofId?: bigint }): Promise<ProofStoredEvent[]> {
    return this.#inner().then((r) => r.getEvents(opts));
  }
}
