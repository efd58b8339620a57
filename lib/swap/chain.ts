import { NATIVE_MINT } from '@solana/spl-token';
import type { PublicKey } from '@solana/web3.js';
import type { ChainA } from '#lib/chains/chain-a/index.ts';
import { NotEnough, tokenBalance } from '#lib/chains/chain-a/operations.ts';

/**
 * What every swap adapter checks on chain A before it builds anything: the wrapped native coin's
 * mint and whether the user can pay the input. The local pools' own transactions are the
 * emulator's (lib/local/swap/transactions.ts).
 */
export const WSOL = NATIVE_MINT;

/** Rent-exempt minimum of a token account (165 bytes); a temporary wrapped-SOL account needs it. */
export const TOKEN_ACCOUNT_RENT = 2_039_280n;
/** Headroom for signature fees on top of the amounts (three signatures at most). */
const FEE_HEADROOM = 20_000n;

/** Refuses before any fee is paid when the user cannot cover the input (and its fees). */
export async function checkInput(chain: ChainA, l: { owner: PublicKey; fromMint: PublicKey; amountIn: bigint }): Promise<void> {
  const owner = l.owner;
  if (l.fromMint.equals(WSOL)) {
    const have = BigInt(await chain.rpc.getBalance(owner));
    const need = l.amountIn + 2n * TOKEN_ACCOUNT_RENT + FEE_HEADROOM;
    if (have < need) throw new NotEnough('lamports (the amount, a temporary token account and fees)', have, need);
    return;
  }
  const have = await tokenBalance(chain, owner, l.fromMint);
  if (have < l.amountIn) throw new NotEnough('tokens', have, l.amountIn);
}
