import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import type { ChainA } from '#lib/chains/chain-a/index.ts';
import type { HyperlaneToken } from './routes.ts';

/**
 * On the embedded chain A, the SPL state of a `chaina-chainb` route that mainnet already has and
 * a fresh local chain does not: the route's mint at its mainnet address (with the registry's
 * decimals) and the warp route's escrow token account (`routeEscrow`: the PDA `["hyperlane_token",
 * "-", "escrow"]` of chain-a-source.ts, its own authority, as the Hyperlane program creates it). Nothing on a real cluster:
 * there `localTokens` does not exist.
 */
export async function ensureLocalRoute(chain: ChainA, route: HyperlaneToken, routeEscrow?: PublicKey): Promise<void> {
  if (!chain.localTokens || !route.originMint) return;
  const mint = new PublicKey(route.originMint);
  await chain.localTokens.ensureMint(mint, route.decimals);
  if (routeEscrow && !(await chain.rpc.getAccountInfo(routeEscrow))) await chain.localTokens.credit(mint, routeEscrow, routeEscrow, 0n);
}

/** Whole tokens the local release escrow starts with per SPL route (it stands for what deposits locked on mainnet). */
export const LOCAL_TOKEN_COLLATERAL = 1_000_000n;

/**
 * The release escrow's SPL collateral on the embedded chain: credited once, when its token
 * account does not exist yet, as its native coin is funded once from the faucet.
 */
export async function ensureLocalReleaseCollateral(chain: ChainA, route: HyperlaneToken, escrow: PublicKey): Promise<void> {
  if (!chain.localTokens || !route.originMint) return;
  await ensureLocalRoute(chain, route);
  const mint = new PublicKey(route.originMint);
  const account = getAssociatedTokenAddressSync(mint, escrow, true);
  if (!(await chain.rpc.getAccountInfo(account))) await chain.localTokens.credit(mint, account, escrow, LOCAL_TOKEN_COLLATERAL * 10n ** BigInt(route.decimals));
}
