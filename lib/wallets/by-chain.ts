import * as z from 'zod';
import { errors } from '#lib/errors.ts';
import * as chainBWallets from './chain-b.ts';
import { airdrop, balanceQuery, ownedWallet, walletBalance } from './wallets.ts';

/**
 * The wallet routes that serve both chains (`GET /api/wallets/:id/balance`, `POST
 * /api/wallets/:id/airdrop`): the wallet's chain picks chain A (wallets.ts) or chain B (chain-b.ts).
 */
export const anyBalanceQuery = balanceQuery.extend({ token: z.string().min(1).max(66).optional() });
export const anyAirdropInput = chainBWallets.chainBAirdropInput;

export async function balanceOfWallet(userId: string, walletId: string, query: z.infer<typeof anyBalanceQuery>) {
  const w = await ownedWallet(userId, walletId);
  if (w.chain === 'a') {
    if (query.token !== undefined) throw errors.invalidInput('token: chain A balances take mint');
    return walletBalance(userId, walletId, query.mint);
  }
  if (query.mint !== undefined) throw errors.invalidInput('mint: chain B balances take token (STRK, ETH or a token address)');
  return chainBWallets.walletBalance(w, query.token);
}

export async function airdropToWallet(userId: string, walletId: string, input: z.infer<typeof anyAirdropInput>) {
  const w = await ownedWallet(userId, walletId);
  if (w.chain === 'b') return chainBWallets.airdrop(w, input);
  if (input.token !== undefined) throw errors.invalidInput('token: chain A airdrops give the native coin only');
  if (typeof input.amount !== 'number') throw errors.invalidInput('amount: must be a number');
  return airdrop(userId, walletId, { amount: input.amount });
}
