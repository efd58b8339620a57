import type { Keypair, PublicKey } from '@solana/web3.js';
import type { SentTransaction } from '#lib/chains/chain-a/port.ts';
import type { Sender } from '#lib/chains/chain-a/operations.ts';
import type { Reserves } from './pricing.ts';

/**
 * The swap venue's port: what the service (swap.ts) needs of pools it prices from and swaps
 * against. Its one adapter is the embedded default's constant-product pools on the local chain A
 * (lib/local/swap/pools.ts), which lib/swap never imports: the embedded runtime and the test setup
 * install it (lib/local/adapters.ts), as they install the chains behind lib/chains/embedded.ts.
 * Jupiter (aggregator.ts) is not a venue of this shape: it prices a route and builds the
 * transaction itself. A Lambda installs nothing, so `SWAP_ADAPTER=local` there fails at first use.
 */
export interface Token {
  symbol: string;
  mint: PublicKey;
  decimals: number;
}

export interface Pair {
  pairId: string;
  base: Token;
  quote: Token;
  feeBps: number;
  /** The pool's address: its reserves are that key's associated token accounts. */
  pool: string;
}

export interface Execution {
  user: Keypair;
  recipient: Keypair;
  pairId: string;
  from: string;
  to: string;
  amountIn: bigint;
  minAmountOut: bigint;
  /** The output funds a shielded-pool deposit in the same transaction (see `ShieldedLeg`). */
  shielded?: ShieldedLeg;
  /** Told the signature and the priced output before the send (the reward accrual's note), and of a refusal. */
  journal?: { beforeSend(signature: string, amountOut: bigint): Promise<void>; refused(): Promise<void> };
  /** Sends through the value-move journal (lib/moves/journal.ts), told the priced output; left out: sent straight. */
  via?: (amountOut: bigint) => Sender;
}

/**
 * A deposit paid from the swap's output: `units` to the pool account `to`. `record` is called
 * with the transaction's signature before it is sent (the deposit's journal: lib/transfer), and
 * `refused` when the chain refused it (nothing moved: the reservation goes).
 */
export interface ShieldedLeg {
  to: PublicKey;
  units: bigint;
  record(signature: string): Promise<void>;
  refused(): Promise<void>;
}

export interface Executed extends SentTransaction {
  amountOut: bigint;
  fee: bigint;
  reservesBefore: Reserves;
}

export interface SwapVenue {
  /** The pairs of this venue (seeded at first use by the local one). */
  pairs(): Promise<Pair[]>;
  /** The pair and direction for `from` → `to` (symbols or mint addresses); 400 UNSUPPORTED_PAIR otherwise. */
  findPair(from: string, to: string): Promise<{ pair: Pair; tokenIn: Token; tokenOut: Token }>;
  reserves(pair: Pair, tokenIn: Token, tokenOut: Token): Promise<Reserves>;
  /**
   * Prices again from the reserves (under the pool's lease) and sends the one transaction:
   * 409 SLIPPAGE_EXCEEDED when the price moved past the minimum, 422 INSUFFICIENT_BALANCE before
   * any fee when the user cannot pay.
   */
  execute(x: Execution): Promise<Executed>;
}

let installed: (() => Promise<SwapVenue>) | undefined;

/** Installs the venue's loader (lib/local/adapters.ts calls it; a second call replaces the first). */
export function installSwapVenue(load: () => Promise<SwapVenue>): void {
  installed = load;
}

/** The installed venue; a failure to load (none installed) is the call's rejection. */
export async function swapVenue(): Promise<SwapVenue> {
  if (!installed) {
    throw new Error(
      'invalid configuration: SWAP_ADAPTER=local outside the embedded runtime (lib/local/adapters.ts installs the local pools; on AWS use jupiter)',
    );
  }
  return installed();
}
