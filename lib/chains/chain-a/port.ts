import type { Rpc } from '@lightprotocol/stateless.js';
import type { PublicKey, VersionedTransaction } from '@solana/web3.js';

/**
 * Chain A as the service needs it: one port, two adapters (`local`: LiteSVM running Light
 * Protocol's own programs; `rpc`: a real cluster plus a Photon indexer). The SDKs
 * (`@lightprotocol/stateless.js`, `@lightprotocol/compressed-token`, `@solana/spl-token`) build
 * every transaction against `rpc`; the adapter only reads, sends and confirms.
 */
export type ChainANetwork = 'localnet' | 'devnet' | 'mainnet';

export interface SentTransaction {
  /** The transaction signature, base58. */
  signature: string;
  /** The slot it landed in. */
  slot: number;
}

export interface ChainA {
  readonly network: ChainANetwork;
  /** Solana JSON-RPC reads and the ZK-compression (Photon) API, as the SDKs expect them. */
  readonly rpc: Rpc;
  /** Sends a signed transaction and resolves once it is confirmed; `ChainRejected` when it fails. */
  sendAndConfirm(tx: VersionedTransaction): Promise<SentTransaction>;
  /** Test coins from the chain's own faucet (`requestAirdrop`); never on mainnet. */
  airdrop(to: PublicKey, lamports: bigint): Promise<SentTransaction>;
  /** The newest slot the compression indexer has processed. */
  indexerSlot(): Promise<number>;
  /** A link to the transaction in an explorer of this network. */
  explorerUrl(signature: string): string;
  /**
   * The embedded chain only: SPL state a live cluster already has — the mints of the bridge's
   * routes (at their mainnet addresses) and their holders' balances — which the local chain
   * starts without. Tokens then move only by real, signed transactions.
   */
  readonly localTokens?: LocalTokens;
  /**
   * Emulator set-up, nothing on a live cluster (where the bridge's Hyperlane deployment exists):
   * a bridge route's mint at its mainnet address with these decimals and, when `escrow` is named,
   * the warp route's escrow token account (its own authority, empty), which the embedded chain
   * (lib/local/chain-a/chain.ts) starts without.
   */
  prepareRoute(mint: PublicKey, decimals: number, escrow?: PublicKey): Promise<void>;
  /**
   * Emulator set-up, nothing on a live cluster: the release escrow's collateral in `mint` (it
   * stands for what deposits locked on mainnet), credited once, when its token account is missing.
   */
  prepareReleaseCollateral(mint: PublicKey, decimals: number, escrow: PublicKey): Promise<void>;
}

export interface LocalTokens {
  /** Places a mint with these decimals (fixed supply, no mint or freeze authority) unless it exists; refuses other decimals. */
  ensureMint(mint: PublicKey, decimals: number): Promise<void>;
  /** Adds `amount` to the token account at `account` (made for `owner` when missing) and to the mint's supply. */
  credit(mint: PublicKey, account: PublicKey, owner: PublicKey, amount: bigint): Promise<void>;
}

/** The chain refused a transaction (a program error, missing funds for fees...). */
export class ChainRejected extends Error {
  constructor(
    message: string,
    readonly logs: string[] = [],
    /** A program's custom error code, when the failure was one. */
    readonly customCode?: number,
    /** The fee payer could not pay (fees or rent). */
    readonly insufficientFunds = false,
  ) {
    super(message);
    this.name = 'ChainRejected';
  }
}

/** The chain (RPC node or indexer) could not be reached or answered garbage. */
export class ChainUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainUnavailable';
  }
}
