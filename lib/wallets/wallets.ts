import { randomUUID } from 'node:crypto';
import type { Keypair } from '@solana/web3.js';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { chainA } from '#lib/chains/chain-a/index.ts';
import * as repo from '#lib/data/wallets.ts';
import type { Chain, WalletRecord } from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { formatUnits, toUnits, amountInput } from './amounts.ts';
import { onChainA } from './chain-a-errors.ts';
import { keyVault } from './config.ts';
import { openKey, sealKey, unwrapWithPassword, wrapWithPassword } from './custody.ts';
import { chainAKeypair, generateKey, importKey, InvalidSecretKey, type ChainKey } from './keys.ts';

/**
 * Wallets: one user, one chain each; the private key is sealed at rest (custody.ts) and is never
 * logged or returned. Chain B keys are wrapped under the user's password before sealing, so a
 * chain B signature needs the password too. Every lookup is by (user, wallet id): someone else's
 * wallet answers 404 WALLET_NOT_FOUND exactly as an unknown id.
 */
export const NATIVE_DECIMALS = 9;
/** The most test coins one airdrop request gives (the public devnet faucet gives less). */
export const MAX_AIRDROP = 100;

const chainField = z.enum(['a', 'b'], { error: 'must be "a" or "b"' });
const nameField = z
  .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'at most 64 characters')
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters');
const passwordField = z.string().min(8, 'at least 8 characters').max(1024, 'at most 1024 characters');

const passwordRule = (w: { chain: Chain; password?: string }, ctx: z.RefinementCtx) => {
  if (w.chain === 'b' && w.password === undefined) ctx.addIssue({ code: 'custom', path: ['password'], message: 'is required for chain B wallets' });
  if (w.chain === 'a' && w.password !== undefined) ctx.addIssue({ code: 'custom', path: ['password'], message: 'only chain B wallets take a password' });
};

export const createWalletInput = z.object({ chain: chainField, name: nameField, password: passwordField.optional() }).superRefine(passwordRule);
export const importWalletInput = z
  .object({ chain: chainField, name: nameField, secretKey: z.string().min(1, 'must not be empty').max(2048), password: passwordField.optional() })
  .superRefine(passwordRule);
export const listWalletsQuery = z.object({ chain: chainField.optional() });
export const walletIdParams = z.object({ id: z.string().min(1).max(64) });
export const updateWalletInput = z
  .object({
    name: nameField.optional(),
    isActive: z.literal(true, { error: 'only true is accepted: activate another wallet to deactivate this one' }).optional(),
  })
  .refine((x) => x.name !== undefined || x.isActive !== undefined, 'give name and/or isActive');
export const balanceQuery = z.object({ mint: z.string().min(32).max(44).optional() });
export const airdropInput = z.object({ amount: amountInput });

export interface WalletView {
  id: string;
  chain: Chain;
  name: string;
  address: string;
  isActive: boolean;
  createdAt: string;
}

const view = (w: WalletRecord, activeId: string | undefined): WalletView => ({
  id: w.id,
  chain: w.chain,
  name: w.name,
  address: w.address,
  isActive: w.id === activeId,
  createdAt: w.createdAt,
});

async function store(userId: string, chain: Chain, name: string, key: ChainKey, password: string | undefined): Promise<WalletView> {
  const id = randomUUID();
  const secret = chain === 'b' ? await wrapWithPassword(key.secret, password!, id, key.address) : key.secret;
  const record: WalletRecord = {
    id,
    userId,
    chain,
    name,
    address: key.address,
    createdAt: clock.now().toISOString(),
    sealedKey: await sealKey(keyVault(), id, key.address, secret),
  };
  try {
    await onChange(() => repo.insertWallet(record));
  } catch (e) {
    if (e instanceof repo.WalletConflict)
      throw errors.conflict(
        e.reason === 'name'
          ? `name: a ${chain === 'a' ? 'chain A' : 'chain B'} wallet named "${name}" exists`
          : 'secretKey: this key is already one of your wallets',
      );
    throw e;
  }
  const active = await repo.activeWalletIds(userId);
  return view(record, active[chain]);
}

export async function createWallet(userId: string, input: z.infer<typeof createWalletInput>): Promise<WalletView> {
  return store(userId, input.chain, input.name, await generateKey(input.chain), input.password);
}

export async function importWallet(userId: string, input: z.infer<typeof importWalletInput>): Promise<WalletView> {
  let key: ChainKey;
  try {
    key = await importKey(input.chain, input.secretKey);
  } catch (e) {
    if (e instanceof InvalidSecretKey) throw errors.invalidInput(e.message);
    throw e;
  }
  return store(userId, input.chain, input.name, key, input.password);
}

export async function listWallets(userId: string, chain?: Chain): Promise<WalletView[]> {
  const [all, active] = await Promise.all([repo.listWallets(userId), repo.activeWalletIds(userId)]);
  return all
    .filter((w) => !chain || w.chain === chain)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((w) => view(w, active[w.chain]));
}

/** The caller's wallet, or 404 WALLET_NOT_FOUND (unknown and foreign alike). */
export async function ownedWallet(userId: string, walletId: string): Promise<WalletRecord> {
  const w = z.uuid().safeParse(walletId).success ? await repo.getWallet(userId, walletId) : undefined;
  if (!w) throw errors.walletNotFound();
  return w;
}

export async function getWallet(userId: string, walletId: string): Promise<WalletView> {
  const w = await ownedWallet(userId, walletId);
  return view(w, (await repo.activeWalletIds(userId))[w.chain]);
}

/** A rename or delete tries this often against a wallet that keeps changing under it, then 409. */
const CHANGE_ATTEMPTS = 8;
const changedMeanwhile = () => errors.conflict('the wallet changed while this request ran: read it and try again');

/**
 * Each change applies to the wallet as read (its version: lib/data/wallets.ts); one beaten to it
 * by a concurrent change reads the wallet again and retries — 404 once it is gone.
 */
export async function updateWallet(userId: string, walletId: string, input: z.infer<typeof updateWalletInput>): Promise<WalletView> {
  let w = await ownedWallet(userId, walletId);
  for (let i = 0; input.name !== undefined && w.name !== input.name; i++) {
    if (i === CHANGE_ATTEMPTS) throw changedMeanwhile();
    try {
      if (await repo.renameWallet(w, input.name)) w = { ...w, name: input.name, version: (w.version ?? 0) + 1 };
      else w = await ownedWallet(userId, walletId);
    } catch (e) {
      if (e instanceof repo.WalletConflict) throw errors.conflict(`name: a wallet named "${input.name}" exists on this chain`);
      throw e;
    }
  }
  if (input.isActive && !(await onChange(() => repo.setActive(w)))) throw errors.walletNotFound();
  return view(w, (await repo.activeWalletIds(userId))[w.chain]);
}

/** Deletes the record and with it the only copy of the sealed key; the oldest wallet left on the chain becomes active if this one was. */
export async function deleteWallet(userId: string, walletId: string): Promise<{ deleted: true }> {
  let w = await ownedWallet(userId, walletId);
  for (let i = 0; !(await onChange(() => repo.deleteWallet(w))); i++) {
    if (i === CHANGE_ATTEMPTS) throw changedMeanwhile();
    w = await ownedWallet(userId, walletId);
  }
  return { deleted: true };
}

/** The data layer's `WalletChanged` (beaten on the chain's head every time) as a 409. */
async function onChange<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof repo.WalletChanged) throw changedMeanwhile();
    throw e;
  }
}

/** The chain A signer of a wallet, for the length of one operation. */
export async function chainASigner(w: WalletRecord): Promise<Keypair> {
  if (w.chain !== 'a') throw errors.invalidInput('walletId: not a chain A wallet');
  const secret = await openKey(keyVault(), w.id, w.address, w.sealedKey);
  try {
    return await chainAKeypair(Uint8Array.from(secret));
  } finally {
    secret.fill(0);
  }
}

/**
 * A chain B wallet's private key (32 bytes, big-endian), for one signature: it opens only with
 * the vault and the user's password (`WrongPassword` otherwise). The caller zeroes it after use.
 */
export async function chainBPrivateKey(w: WalletRecord, password: string): Promise<Buffer> {
  if (w.chain !== 'b') throw errors.invalidInput('walletId: not a chain B wallet');
  const wrapped = await openKey(keyVault(), w.id, w.address, w.sealedKey);
  try {
    return await unwrapWithPassword(wrapped, password, w.id, w.address);
  } finally {
    wrapped.fill(0);
  }
}

export async function walletBalance(userId: string, walletId: string, mint: string | undefined) {
  const w = await ownedWallet(userId, walletId);
  if (w.chain !== 'a') throw errors.invalidInput('chain B balances are served by the chain B routes');
  const chain = await chainA();
  // On first use: with Light's compressed-token and spl-token (~0.7 MB) and web3.js, not parsed at
  // the cold start of every function that reaches this module (chain B's, rewards', swap's listings).
  const [chainAOps, { PublicKey }, { chainAAddress }] = await Promise.all([
    import('#lib/chains/chain-a/operations.ts'),
    import('@solana/web3.js'),
    import('./addresses.ts'),
  ]);
  const owner = new PublicKey(w.address);
  if (!mint) {
    const balance = await onChainA(() => chainAOps.nativeBalance(chain, owner));
    return { address: w.address, balance: balance.toString(), formatted: formatUnits(balance, NATIVE_DECIMALS), decimals: NATIVE_DECIMALS };
  }
  const mintKey = chainAAddress(mint, 'mint', errors.invalidMint);
  const { decimals } = await onChainA(() => chainAOps.mintInfo(chain, mintKey));
  const balance = await onChainA(() => chainAOps.tokenBalance(chain, owner, mintKey));
  return { address: w.address, balance: balance.toString(), formatted: formatUnits(balance, decimals), decimals, mint: mintKey.toBase58() };
}

/** Test coins from the chain's faucet: localnet and devnet only (mainnet → 403). */
export async function airdrop(userId: string, walletId: string, input: z.infer<typeof airdropInput>) {
  const w = await ownedWallet(userId, walletId);
  if (w.chain !== 'a') throw errors.invalidInput('chain B airdrops come with the chain B routes');
  const chain = await chainA();
  if (chain.network === 'mainnet') throw errors.forbidden('airdrops exist on localnet and devnet only');
  const lamports = toUnits(input.amount, NATIVE_DECIMALS);
  if (lamports > BigInt(MAX_AIRDROP) * 10n ** BigInt(NATIVE_DECIMALS)) throw errors.invalidInput(`amount: at most ${MAX_AIRDROP} per airdrop`);
  const { PublicKey } = await import('@solana/web3.js');
  const sent = await onChainA(() => chain.airdrop(new PublicKey(w.address), lamports));
  await repo.recordLastSlot(w, sent.slot);
  return {
    txHash: sent.signature,
    address: w.address,
    amount: lamports.toString(),
    formatted: formatUnits(lamports, NATIVE_DECIMALS),
    decimals: NATIVE_DECIMALS,
    explorerUrl: chain.explorerUrl(sent.signature),
  };
}
