import { PublicKey } from '@solana/web3.js';
import * as z from 'zod';
import { chainA, ChainRejected, type ChainA } from '#lib/chains/chain-a/index.ts';
import * as native from '#lib/chains/chain-a/native-operations.ts';
import { NotEnough } from '#lib/chains/chain-a/operation-errors.ts';
import { listWallets, type WalletRecord } from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { journaled, MoveUnsettled, submitted, type MoveOf } from '#lib/moves/journal.ts';
import { accrualSettleItems, accrueNoted, forgetOwed, leftOwed, owedItem } from '#lib/rewards/accrue.ts';
import { amountInput, formatUnits, toUnits } from '#lib/wallets/amounts.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { withWalletLock } from '#lib/wallets/lock.ts';
import { chainAAddress } from '#lib/wallets/addresses.ts';
import { chainASigner, NATIVE_DECIMALS, ownedWallet } from '#lib/wallets/wallets.ts';

/**
 * Compression on chain A (the /api/compression routes of functions/routes.ts): the native coin and SPL tokens moved between
 * ordinary accounts and compressed accounts of Light Protocol's state trees, compressed token
 * transfers, and the mints to try them with. Every request that signs holds the wallet's lease
 * from before its transaction is built until it is confirmed; every read and every signing
 * request first checks that the indexer has reached the slot of the wallet's last transaction
 * (503 INDEXER_SYNC otherwise: its view of the wallet would be stale).
 */

/** The token operations (Light's compressed-token, spl-token), loaded with the first request that names a mint. */
const tokenOps = () => import('#lib/chains/chain-a/operations.ts');

const walletId = z
  .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
  .min(1)
  .max(64);
const address = z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') }).max(64);

export const nativeInput = z.object({ walletId, amount: amountInput });
export const tokenInput = z.object({ walletId, mint: address, amount: amountInput });
export const transferInput = z.object({ walletId, mint: address, to: address, amount: amountInput });
export const createTokenInput = z.object({
  walletId,
  decimals: z
    .number({ error: (i) => (i.input === undefined ? 'is required' : 'must be an integer') })
    .int('must be an integer')
    .min(0)
    .max(9),
});
export const mintToInput = z.object({ walletId, mint: address, amount: amountInput, to: address.optional() });
export const balanceParams = z.object({ walletId });
export const tokenBalanceParams = z.object({ walletId, mint: address });

/** Seconds a client should wait before asking again when the indexer is behind. */
const INDEXER_RETRY_SECONDS = 2;

async function caughtUp(chain: ChainA, w: WalletRecord): Promise<void> {
  if (w.lastSlot === undefined) return;
  const slot = await onChainA(() => chain.indexerSlot());
  if (slot < w.lastSlot) throw errors.indexerSync(INDEXER_RETRY_SECONDS);
}

async function chainAWallet(userId: string, id: string): Promise<WalletRecord> {
  return onChainAOnly(await ownedWallet(userId, id));
}

function onChainAOnly(w: WalletRecord): WalletRecord {
  if (w.chain !== 'a') throw errors.invalidInput('walletId: compression needs a chain A wallet');
  return w;
}

/** The mint's address and decimals; 400 INVALID_MINT for a non-address or a non-mint. */
async function mintOf(chain: ChainA, mint: string) {
  const key = chainAAddress(mint, 'mint', errors.invalidMint);
  const { mintInfo } = await tokenOps();
  const info = await onChainA(() => mintInfo(chain, key));
  return { key, ...info };
}

/**
 * Lock, check the indexer, sign and send through the value-move journal (lib/moves/journal.ts);
 * the lease's release records the slot. A send the chain has not settled in time comes back as
 * `submitted` (the route answers 202): the wallet and the Idempotency-Key stay bound to it.
 */
async function signing<T extends { slot: number; signature: string }>(
  chain: ChainA,
  w: WalletRecord,
  operation: string,
  fn: (via: native.Sender) => Promise<T>,
  accrual?: { source: 'compression' },
): Promise<T | Submitted> {
  const points = (txHash: string) => accrual && { userId: w.userId, source: accrual.source, txHash };
  // The points are noted as owed in the write that records the move, before it is sent: whatever
  // happens after the send, the accrual outbox (lib/rewards/accrue.ts) records them once the chain shows it landed.
  let noted: ReturnType<typeof points>;
  let settledAccrual: MoveOf['alsoSettle'];
  try {
    const sent = await withWalletLock(w, async (owner, lease) => {
      await caughtUp(chain, w);
      const alsoRecord = accrual && ((txHash: string) => [owedItem((noted = points(txHash)!))]);
      // Landed, the points are recorded in the write that settles the move, when they can be.
      const alsoSettle = accrual && (settledAccrual = { writes: (txHash: string) => accrualSettleItems(points(txHash)!, { ownPayer: w.address }) });
      const via = journaled(chain, {
        userId: w.userId,
        purpose: { kind: 'wallet-send', operation },
        lease,
        ...(alsoRecord ? { alsoRecord, alsoSettle } : {}),
      });
      return onChainA(async () => {
        try {
          return await fn(via);
        } catch (e) {
          // Refused by the chain (the journal settled it failed): nothing moved, nothing is owed.
          if (noted && e instanceof ChainRejected) await forgetOwed(noted).catch(() => undefined);
          throw e;
        }
      });
    });
    // Signed by this wallet: no need to list the user's wallets to see who paid.
    // Not recorded with the settlement: refused there (the epoch closing), or its fee not readable yet (the retry job's then).
    if (noted && !settledAccrual?.written) {
      if (settledAccrual?.unavailable) leftOwed(noted, settledAccrual.unavailable);
      else await accrueNoted(noted, { ownPayer: w.address });
    }
    return sent;
  } catch (e) {
    if (!(e instanceof MoveUnsettled)) throw e;
    return submitted(chain, e.txHash);
  }
}

type Submitted = ReturnType<typeof submitted>;
const isSubmitted = (x: object): x is Submitted => 'status' in x;

export async function compressNative(userId: string, input: z.infer<typeof nativeInput>) {
  const w = await chainAWallet(userId, input.walletId);
  const lamports = toUnits(input.amount, NATIVE_DECIMALS);
  const chain = await chainA();
  const signer = await chainASigner(w);
  const sent = await signing(
    chain,
    w,
    'compress-native',
    async (via) => {
      const have = await native.nativeBalance(chain, signer.publicKey);
      if (have < lamports) throw new NotEnough('lamports', have, lamports);
      return native.compressNative(chain, signer, lamports, via);
    },
    { source: 'compression' },
  );
  if (isSubmitted(sent)) return sent;
  return { txHash: sent.signature, compressedAmount: lamports.toString(), decimals: NATIVE_DECIMALS };
}

export async function decompressNative(userId: string, input: z.infer<typeof nativeInput>) {
  const w = await chainAWallet(userId, input.walletId);
  const lamports = toUnits(input.amount, NATIVE_DECIMALS);
  const chain = await chainA();
  const signer = await chainASigner(w);
  const sent = await signing(chain, w, 'decompress-native', (via) => native.decompressNative(chain, signer, lamports, via), { source: 'compression' });
  if (isSubmitted(sent)) return sent;
  return { txHash: sent.signature, decompressedAmount: lamports.toString() };
}

export async function compressToken(userId: string, input: z.infer<typeof tokenInput>) {
  const w = await chainAWallet(userId, input.walletId);
  const chain = await chainA();
  const mint = await mintOf(chain, input.mint);
  const amount = toUnits(input.amount, mint.decimals);
  const signer = await chainASigner(w);
  const sent = await signing(chain, w, 'compress-token', async (via) => (await tokenOps()).compressToken(chain, signer, mint.key, amount, via), {
    source: 'compression',
  });
  if (isSubmitted(sent)) return sent;
  return { txHash: sent.signature, mint: mint.key.toBase58(), compressedAmount: amount.toString(), decimals: mint.decimals };
}

export async function decompressToken(userId: string, input: z.infer<typeof tokenInput>) {
  const w = await chainAWallet(userId, input.walletId);
  const chain = await chainA();
  const mint = await mintOf(chain, input.mint);
  const amount = toUnits(input.amount, mint.decimals);
  const signer = await chainASigner(w);
  const sent = await signing(chain, w, 'decompress-token', async (via) => (await tokenOps()).decompressToken(chain, signer, mint.key, amount, via), {
    source: 'compression',
  });
  if (isSubmitted(sent)) return sent;
  return { txHash: sent.signature, decompressedAmount: amount.toString() };
}

export async function transfer(userId: string, input: z.infer<typeof transferInput>) {
  // The user's wallets, read once: the one that signs, and whether `to` is another of them.
  const wallets = await listWallets(userId);
  const mine = wallets.find((x) => x.id === input.walletId);
  if (!mine) throw errors.walletNotFound();
  const w = onChainAOnly(mine);
  const chain = await chainA();
  const mint = await mintOf(chain, input.mint);
  const to = chainAAddress(input.to, 'to');
  const amount = toUnits(input.amount, mint.decimals);
  const signer = await chainASigner(w);
  // To one of the user's own wallets: nothing moved to anyone, nothing earned (lib/rewards/rules.ts).
  const own = wallets.some((x) => x.chain === 'a' && x.address === to.toBase58());
  const sent = await signing(
    chain,
    w,
    'transfer',
    async (via) => (await tokenOps()).transferCompressed(chain, signer, mint.key, to, amount, via),
    own ? undefined : { source: 'compression' },
  );
  if (isSubmitted(sent)) return sent;
  return { txHash: sent.signature, from: w.address, to: to.toBase58(), amount: amount.toString() };
}

export async function createToken(userId: string, input: z.infer<typeof createTokenInput>) {
  const w = await chainAWallet(userId, input.walletId);
  const chain = await chainA();
  const signer = await chainASigner(w);
  // The mint's rent and fee leave the wallet: journaled like every other send (202 while unsettled).
  const sent = await signing(chain, w, 'create-token', async (via) => (await tokenOps()).createMint(chain, signer, input.decimals, via));
  if (isSubmitted(sent)) return sent;
  return { mintAddress: sent.mint.toBase58(), txHash: sent.signature };
}

export async function mintTo(userId: string, input: z.infer<typeof mintToInput>) {
  const w = await chainAWallet(userId, input.walletId);
  const chain = await chainA();
  const mint = await mintOf(chain, input.mint);
  if (!mint.authority || mint.authority.toBase58() !== w.address) throw errors.forbidden('mint: this wallet is not the mint authority');
  const to = input.to === undefined ? new PublicKey(w.address) : chainAAddress(input.to, 'to');
  const amount = toUnits(input.amount, mint.decimals);
  const signer = await chainASigner(w);
  const sent = await signing(chain, w, 'mint-to', async (via) => (await tokenOps()).mintTo(chain, signer, mint.key, to, amount, via));
  if (isSubmitted(sent)) return sent;
  return { txHash: sent.signature, mint: mint.key.toBase58(), mintedAmount: amount.toString() };
}

export async function compressedBalance(userId: string, id: string) {
  const w = await chainAWallet(userId, id);
  const chain = await chainA();
  await caughtUp(chain, w);
  const balance = await onChainA(() => native.compressedNativeBalance(chain, new PublicKey(w.address)));
  return { balance: balance.toString(), formatted: formatUnits(balance, NATIVE_DECIMALS), decimals: NATIVE_DECIMALS };
}

export async function compressedTokenBalance(userId: string, id: string, mintAddress: string) {
  const w = await chainAWallet(userId, id);
  const chain = await chainA();
  const mint = await mintOf(chain, mintAddress);
  await caughtUp(chain, w);
  const balance = await onChainA(() => native.compressedTokenBalance(chain, new PublicKey(w.address), mint.key));
  return { mint: mint.key.toBase58(), balance: balance.toString(), formatted: formatUnits(balance, mint.decimals), decimals: mint.decimals };
}
