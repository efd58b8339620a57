import { Keypair, PublicKey } from '@solana/web3.js';
import * as z from 'zod';
import { chainA } from '#lib/chains/chain-a/index.ts';
import { createMint, mintTo } from '#lib/chains/chain-a/operations.ts';
import { clock } from '#lib/clock.ts';
import * as repo from '#lib/data/shielded-pools.ts';
import type { TestTokenRecord } from '#lib/data/shielded-pools.ts';
import { errors } from '#lib/errors.ts';
import { journaled, MoveUnsettled, submitted } from '#lib/moves/journal.ts';
import { amountInput, toUnits } from '#lib/wallets/amounts.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { keyVault } from '#lib/wallets/config.ts';
import { openKey, sealKey } from '#lib/wallets/custody.ts';
import { chainAKeypair } from '#lib/wallets/keys.ts';
import { ownedWallet } from '#lib/wallets/wallets.ts';
import { TEST_TOKEN_DECIMALS } from './config.ts';

/**
 * The test token of the token pools: an SPL mint (6 decimals) that the service creates on the
 * local chain (and devnet) at first use, its mint authority a key the service holds sealed like the
 * pools' keys. `POST /api/transfer/test-tokens` mints some to a caller's wallet, as the faucet
 * gives test coins. Never on mainnet (no token pools there).
 */
/** The most one request mints, in whole tokens. */
export const MAX_TEST_TOKENS = 10_000;
/** Lamports the faucet gives the mint authority: the mint's rent and its transactions' fees. */
const AUTHORITY_FUNDS = 1_000_000_000n;
const SEAL_ID = 'test-token';

let token: Promise<TestTokenRecord | undefined> | undefined;

/** The test token (created once, by whichever instance comes first); undefined on mainnet. */
export function ensureTestToken(): Promise<TestTokenRecord | undefined> {
  token ??= (async () => {
    const known = await repo.getTestToken();
    if (known) return known;
    const chain = await chainA();
    if (chain.network === 'mainnet') return undefined;
    const authority = Keypair.generate();
    try {
      await chain.airdrop(authority.publicKey, AUTHORITY_FUNDS);
      const { mint } = await createMint(chain, authority, TEST_TOKEN_DECIMALS);
      const address = authority.publicKey.toBase58();
      await repo.createTestToken({
        mint: mint.toBase58(),
        decimals: TEST_TOKEN_DECIMALS,
        authority: address,
        sealedKey: await sealKey(keyVault(), SEAL_ID, address, authority.secretKey),
        createdAt: clock.now().toISOString(),
      });
    } finally {
      authority.secretKey.fill(0);
    }
    return repo.getTestToken(); // the first writer's, if another instance raced this one
  })();
  token.catch(() => (token = undefined));
  return token;
}

export const testTokensInput = z.object({ walletId: z.string().min(1).max(64), amount: amountInput });
export const testTokensResponse = z.object({ txHash: z.string(), mint: z.string(), amount: z.string(), decimals: z.number().int() });

/**
 * Mints `amount` whole test tokens to the caller's chain A wallet (its associated token account).
 * The service's mint authority signs it: a value move of the service, through the journal
 * (lib/moves/journal.ts) — a mint the chain has not settled in time is `submitted` (202), its
 * Idempotency-Key bound to it, never minted a second time by a retry.
 */
export async function mintTestTokens(
  userId: string,
  input: z.infer<typeof testTokensInput>,
): Promise<z.infer<typeof testTokensResponse> | ReturnType<typeof submitted>> {
  const w = await ownedWallet(userId, input.walletId);
  if (w.chain !== 'a') throw errors.invalidInput('walletId: test tokens go to chain A wallets');
  const units = toUnits(input.amount, TEST_TOKEN_DECIMALS);
  if (units > BigInt(MAX_TEST_TOKENS) * 10n ** BigInt(TEST_TOKEN_DECIMALS)) throw errors.invalidInput(`amount: at most ${MAX_TEST_TOKENS} per request`);
  const t = await ensureTestToken();
  if (!t) throw errors.forbidden('the test token exists on localnet and devnet only');
  const chain = await chainA();
  const secret = await openKey(keyVault(), SEAL_ID, t.authority, t.sealedKey);
  let authority: Keypair;
  try {
    authority = await chainAKeypair(Uint8Array.from(secret));
  } finally {
    secret.fill(0);
  }
  const via = journaled(chain, { userId, purpose: { kind: 'wallet-send', operation: 'test-tokens', ref: w.id } });
  try {
    const sent = await onChainA(() => mintTo(chain, authority, new PublicKey(t.mint), new PublicKey(w.address), units, via));
    return { txHash: sent.signature, mint: t.mint, amount: units.toString(), decimals: TEST_TOKEN_DECIMALS };
  } catch (e) {
    if (e instanceof MoveUnsettled) return submitted(chain, e.txHash);
    throw e;
  }
}
