import type { Call } from 'starknet';
import type { TokenInfo } from './tokens.ts';

/**
 * Chain B for wallets: balances, transfers (deploying the account first when it is not yet),
 * transactions. Two adapters: `local` (local-chain.ts, the embedded ledger) and `rpc`
 * (rpc-chain.ts, starknet.js against a node). Both sign with starknet.js's `Signer`.
 */
export interface TransferRequest {
  /** The account's Stark private key (0x-hex); held only for the signatures. */
  privateKey: string;
  token: string;
  to: string;
  amount: bigint;
}

/** Any calls through the account's `__execute__` (a warp route's `transfer_remote`, …). */
export interface ExecuteRequest {
  /** The account's Stark private key (0x-hex); held only for the signatures. */
  privateKey: string;
  calls: Call[];
  /**
   * Runs once the INVOKE is signed, with its hash, just before it is sent (after the
   * DEPLOY_ACCOUNT when one comes first): a caller keeps the hash first, so that a send whose
   * outcome is unknown can still be found on chain later.
   */
  beforeSend?: (txHash: string, signed: SignedInvoke) => Promise<void>;
}

/**
 * What a signed INVOKE is besides its hash: its account, the nonce it takes, and the transaction
 * itself — what a value move's journal record keeps (lib/moves/chain-b.ts), so that one the node
 * never received is sent again unchanged (`resend`: the same hash).
 */
export interface SignedInvoke {
  sender: string;
  nonce: bigint;
  invoke: StoredInvoke;
}

/**
 * A signed INVOKE v3 as stored (JSON-safe): its calls (calldata as felts), resource bounds, tip
 * and signature. The other fields are fixed for every INVOKE the adapters sign: Cairo 1
 * `__execute__` calldata, both data-availability modes L1, no paymaster, no deployment data.
 */
export interface StoredInvoke {
  calls: { contractAddress: string; entrypoint: string; calldata: string[] }[];
  resourceBounds: Record<'l1_gas' | 'l2_gas' | 'l1_data_gas', { max_amount: string; max_price_per_unit: string }>;
  tip: string;
  signature: string[];
}

export interface TransferOutcome {
  txHash: string;
  /** The DEPLOY_ACCOUNT that came first, when the account was not deployed. */
  deployTxHash?: string;
  /** The fees charged, in FRI (both transactions together). */
  fee: bigint;
}

export interface ChainBEvent {
  fromAddress: string;
  keys: string[];
  data: string[];
}

export interface ChainBTransaction {
  hash: string;
  /** The execution status. */
  status: 'SUCCEEDED' | 'REVERTED';
  revertReason?: string;
  type: string;
  sender: string;
  nonce: string;
  /** The fee charged, in FRI (10^-18 STRK), a decimal string. */
  fee: string;
  events: ChainBEvent[];
  blockNumber: number | null;
}

/**
 * Where a transaction stands on chain B: unknown to the node; received and not executed yet;
 * rejected (never executed: nothing changed, its nonce unused, no fee); or accepted in a block
 * (succeeded or reverted: `getTransaction` tells which).
 */
export type ChainBTxStatus = 'NOT_RECEIVED' | 'RECEIVED' | 'REJECTED' | 'ACCEPTED';

/** A transaction of a block: its hash and, for one an account sent (INVOKE, DECLARE), its sender and the nonce it took. */
export interface BlockTransaction {
  hash: string;
  sender?: string;
  nonce?: bigint;
}

export interface MaxFees {
  invoke: bigint;
  deployAccount: bigint;
}

/** The node refused the transaction before including it; nothing changed on chain. */
export class ChainBRejected extends Error {
  constructor(
    readonly kind: 'NONCE' | 'FEE_BALANCE' | 'INVALID',
    message: string,
  ) {
    super(message);
    this.name = 'ChainBRejected';
  }
}

/** The transaction was included and reverted (its nonce used, its fee charged). */
export class ChainBReverted extends Error {
  constructor(
    readonly reason: string,
    readonly txHash: string,
    readonly deployTxHash?: string,
  ) {
    super(`transaction reverted: ${reason}`);
    this.name = 'ChainBReverted';
  }
}

/**
 * The INVOKE `txHash` was handed to the chain, but whether it landed is unknown: the node went
 * away after the send, or no receipt came in time. Not a failure — it may still be included —
 * so it must not be retried blindly; its hash tells later (`getTransaction`).
 */
export class ChainBOutcomeUnknown extends Error {
  constructor(
    readonly txHash: string,
    readonly deployTxHash: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`transaction ${txHash} sent, outcome unknown: ${message}`, options);
    this.name = 'ChainBOutcomeUnknown';
  }
}

/** The chain could not be reached or answered nonsense. */
export class ChainBUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChainBUnavailable';
  }
}

export interface ChainB {
  readonly adapter: 'local' | 'rpc';
  tokenInfo(address: string): Promise<TokenInfo | undefined>;
  balanceOf(token: string, address: string): Promise<bigint>;
  isDeployed(address: string): Promise<boolean>;
  /** The most an INVOKE and a DEPLOY_ACCOUNT may cost (what the account must hold in STRK); undefined where the node estimates per transaction. */
  maxFees(): Promise<MaxFees | undefined>;
  transfer(req: TransferRequest): Promise<TransferOutcome>;
  /**
   * One INVOKE of `calls` (deploying the account first when it is not yet). Once `beforeSend` has
   * run, a lost answer is ChainBOutcomeUnknown, never ChainBUnavailable.
   */
  execute(req: ExecuteRequest): Promise<TransferOutcome>;
  /** An accepted transaction (succeeded or reverted); null while it is not (unknown, received, rejected). */
  getTransaction(hash: string): Promise<ChainBTransaction | null>;
  getTransactionStatus(hash: string): Promise<ChainBTxStatus>;
  /**
   * The account's next nonce as of the latest accepted block, or as of accepted block `block` (0
   * before deployment): once it has moved past a transaction's nonce, another transaction of the
   * account or that one took it. A node that has not reached `block` answers ChainBUnavailable
   * (BLOCK_NOT_FOUND), never an older nonce.
   */
  getNonce(address: string, block?: number): Promise<bigint>;
  /** The number of the latest accepted block (of whichever node answers: behind a load balancer, one may be behind another). */
  blockNumber(): Promise<number>;
  /**
   * The transactions in accepted block `block`: the same list from every node that has the block;
   * a node that has not reached it answers ChainBUnavailable (BLOCK_NOT_FOUND).
   */
  blockTransactions(block: number): Promise<BlockTransaction[]>;
  /**
   * Sends a signed INVOKE again, unchanged (the same hash): one the node never received (a send lost
   * on its way, its sender gone). Resolves once the node took it; a refusal is ChainBRejected (its
   * nonce taken meanwhile: NONCE) or ChainBReverted, an unreachable node ChainBUnavailable.
   */
  resend(signed: SignedInvoke): Promise<void>;
  /** The localnet faucet; the rpc adapter has none. */
  faucet(token: string, to: string, amount: bigint): Promise<{ txHash: string }>;
  /**
   * Emulator set-up, nothing on a node (which has the real deployment): the warp route `router`'s
   * storage as deployed and enrolled — its synthetic token, Mailbox, local domain and remote routers.
   */
  prepareWarpRoute(router: string, route: WarpRouteSetup): Promise<void>;
}

export interface WarpRouteSetup {
  token: string;
  mailbox: string;
  localDomain: number;
  /** Remote domain → that domain's router, 0x + 64 hex. */
  routers: Record<string, string>;
}
