import { randomUUID } from 'node:crypto';
import type { Call } from 'starknet';
import * as z from 'zod';
import {
  builtinToken,
  chainB,
  chainBExplorerUrl,
  chainBNetwork,
  ChainBOutcomeUnknown,
  ChainBRejected,
  ChainBReverted,
  ChainBUnavailable,
  FEE_TOKEN,
  formatUnits,
  contractAddress,
  CONTRACT_ADDRESS_RULE,
  isFelt,
  parseUnits,
  STRK,
  transferCall,
  type TokenInfo,
  type TransferOutcome,
} from '#lib/chains/chain-b/index.ts';
import { config } from '#lib/config.ts';
import { clearFailures, reserveAttempt } from '#lib/data/login-failures.ts';
import type { MovePurpose } from '#lib/data/value-moves.ts';
import { acquireWalletLease, endWalletLeaseHold, releaseWalletLease, walletLeaseHeldFor, type WalletRecord } from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { chainBMove, resolveChainBMove, submittedB, type ChainBMove } from '#lib/moves/chain-b.ts';
import { MOVE_HOLD_SECONDS } from '#lib/moves/journal.ts';
import { walletConfig } from './config.ts';
import { WrongPassword } from './custody.ts';
import { chainBPrivateKey, listWallets, MAX_AIRDROP, ownedWallet } from './wallets.ts';

/**
 * Chain B wallets: listing, transfers (ERC-20 `transfer` from the wallet's OpenZeppelin account,
 * deployed first if it is not yet), balances, transactions and the localnet faucet. Amounts are
 * decimal strings in whole units, converted exactly (18 decimals for STRK and ETH).
 *
 * A transfer: the wallet must be the caller's (404 otherwise); the wallet's signing lease
 * serialises its transfers (409 WALLET_LOCKED); the password check is then reserved (five wrong
 * ones within 15 minutes lock the wallet's transfers: 429 TOO_MANY_ATTEMPTS); the key opens only
 * with the password (401 INVALID_PASSWORD) and lives for the signatures only; balances are checked
 * before anything is signed (the amount, then the fees in STRK at their maximum); the chain then
 * applies or refuses the transaction (its nonce taken once, its balances never overdrawn).
 */
export const PASSWORD_ATTEMPTS = 5;
export const PASSWORD_LOCK_SECONDS = 15 * 60;
const lockKey = (walletId: string) => `chainb-transfer:${walletId}`;

const felt = (field: string) => z.string({ error: `${field}: is required` }).max(66, `${field}: at most 66 characters`);
const decimalAmount = z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a decimal string') }).max(100, 'at most 100 characters');
const tokenField = z.string().min(1).max(66).optional().describe('STRK (default), ETH, or a token address');

export const transferInput = z.object({
  amount: decimalAmount,
  recipientAddress: felt('recipientAddress'),
  password: z.string({ error: 'is required' }).min(1, 'is required').max(1024),
  walletId: z.string({ error: 'is required' }).min(1).max(64),
  token: tokenField,
});
export const transferOutput = z.object({
  txHash: z.string(),
  explorerUrl: z.string(),
  deployTxHash: z.string().optional(),
  fee: z.string(),
});

/** 202: sent, but chain B has not said whether it landed (see executeFromWallet). */
export const transferSubmittedOutput = z.object({
  status: z.literal('submitted'),
  txHash: z.string(),
  explorerUrl: z.string(),
  deployTxHash: z.string().optional(),
});

export const balanceParams = z.object({ address: z.string().min(1).max(66) });
export const balanceQuery = z.object({ token: tokenField });
export const balanceOutput = z.object({
  address: z.string(),
  token: z.string(),
  symbol: z.string(),
  balance: z.string(),
  formatted: z.string(),
  decimals: z.number().int(),
});

export const txParams = z.object({ hash: z.string().min(1).max(66) });
const eventSchema = z.object({ fromAddress: z.string(), keys: z.array(z.string()), data: z.array(z.string()) });
export const txOutput = z.object({
  transaction: z.object({
    hash: z.string(),
    status: z.enum(['SUCCEEDED', 'REVERTED']),
    revertReason: z.string().optional(),
    type: z.string(),
    sender: z.string(),
    nonce: z.string(),
    fee: z.string(),
    events: z.array(eventSchema),
    blockNumber: z.number().int().nullable(),
  }),
});

export const chainBWalletsOutput = z.object({ wallets: z.array(z.object({ id: z.string(), name: z.string(), address: z.string(), isActive: z.boolean() })) });

export const chainBAirdropInput = z.object({ amount: z.union([z.number(), decimalAmount]), token: z.enum(['STRK', 'ETH']).optional() });

/** A chain B address, or 400 INVALID_ADDRESS. */
function address(value: string, field: string): string {
  const checked = contractAddress(value);
  if (!checked) throw errors.invalidAddress(`${field}: ${CONTRACT_ADDRESS_RULE}`);
  return checked;
}

/** STRK (default), ETH, or the address of a token the chain knows; 400 otherwise. */
async function token(value: string | undefined): Promise<TokenInfo> {
  if (value === undefined) return STRK;
  const builtin = builtinToken(value);
  if (builtin) return builtin;
  if (!isFelt(value)) throw errors.invalidInput('token: STRK, ETH or a token address (0x-hex)');
  const info = await onChainB(() => chainB().tokenInfo(value));
  if (!info) throw errors.invalidInput('token: no token at this address on chain B');
  return info;
}

/** Whole units (decimal string or JSON number) → smallest units, or 400 INVALID_AMOUNT. */
function units(amount: string | number, t: TokenInfo, max?: bigint): bigint {
  const text = typeof amount === 'number' ? (Number.isFinite(amount) && amount > 0 ? String(amount) : '') : amount.trim();
  const value = /e/i.test(text) ? null : parseUnits(text, t.decimals);
  if (value === null) throw errors.invalidAmount(`amount: a positive decimal in whole ${t.symbol} with at most ${t.decimals} decimal places`);
  if (value === 0n) throw errors.invalidAmount('amount: must be greater than 0');
  if (value >= 1n << 256n) throw errors.invalidAmount('amount: too large');
  if (max !== undefined && value > max) throw errors.invalidAmount(`amount: at most ${formatUnits(max, t.decimals)} ${t.symbol}`);
  return value;
}

/** A chain B call; the chain unreachable → 502 CHAINB_ERROR. */
async function onChainB<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ChainBUnavailable) throw errors.chainBError(`chain B unreachable: ${e.message}`);
    throw e;
  }
}

export async function listChainBWallets(userId: string) {
  const wallets = await listWallets(userId, 'b');
  return { wallets: wallets.map(({ id, name, address: a, isActive }) => ({ id, name, address: a, isActive })) };
}

/** The wallet's private key for one operation, behind the password lock. */
async function unlock(w: WalletRecord, password: string): Promise<Buffer> {
  const r = await reserveAttempt(lockKey(w.id), PASSWORD_ATTEMPTS, PASSWORD_LOCK_SECONDS);
  if (!r.reserved) throw errors.tooManyAttempts(r.retryAfterSeconds);
  try {
    const key = await chainBPrivateKey(w, password);
    await clearFailures(lockKey(w.id));
    return key;
  } catch (e) {
    if (e instanceof WrongPassword) throw errors.invalidPassword();
    throw e;
  }
}

export async function transfer(userId: string, input: z.infer<typeof transferInput>) {
  const to = address(input.recipientAddress, 'recipientAddress');
  const t = await token(input.token);
  const amount = units(input.amount, t);
  const w = await ownedWallet(userId, input.walletId);
  if (w.chain !== 'b') throw errors.walletNotFound();
  const out = await executeFromWallet(w, input.password, { token: t, amount }, [transferCall(t.address, to, amount)], {
    purpose: { kind: 'wallet-send', operation: 'chainb-transfer' },
    to,
    answer: submittedB,
  });
  const sent = {
    txHash: out.txHash,
    explorerUrl: chainBExplorerUrl(out.txHash, config.PUBLIC_BASE_URL),
    ...(out.deployTxHash ? { deployTxHash: out.deployTxHash } : {}),
  };
  // Handed to chain B, not settled (the route answers 202). The hash tells (GET /api/chainb/tx/:hash); a retry
  // with the same Idempotency-Key gets this answer again instead of a second transfer until the journal settles it.
  if ('unsettled' in out) return { status: 'submitted', ...sent } satisfies z.infer<typeof transferSubmittedOutput>;
  return { ...sent, fee: out.fee.toString() };
}

/** A send chain B has not settled yet (see ChainBOutcomeUnknown): it may still land; the journal settles it. */
export interface UnsettledSend {
  unsettled: true;
  txHash: string;
  deployTxHash?: string;
}

/** The journal's part of a send (lib/moves/chain-b.ts): what it is for, to whom, and the route's 202 body naming it. */
export interface SendMove {
  purpose: MovePurpose;
  to: string;
  answer: (txHash: string) => object;
}

/**
 * Sends `calls` from the chain B wallet `w` (the caller's, checked by the caller) as a transfer
 * does: under its signing lease, behind the password lock, after the balance check of what it
 * spends and of the fees, with the same error codes. The bridge's withdrawals use it too:
 * `beforeSend` runs once the password and the balances have passed and the INVOKE is signed,
 * with its hash, just before it is sent (a withdrawal writes its record there, so that a refused
 * one leaves none and a lost one can be found). Then the value-move journal records the
 * transaction (hash, account, nonce, what it moves) and binds the wallet's lease and the request's
 * Idempotency-Key to it, before the send (lib/moves/chain-b.ts). A send whose outcome chain B did
 * not tell (its node gone after the send, no receipt in time) is not an error: it comes back
 * unsettled, with its hash — it may still land, so failing it would invite a second — and the
 * journal settles it by chain B's word only.
 */
export async function executeFromWallet(
  w: WalletRecord,
  password: string,
  spends: { token: TokenInfo; amount: bigint },
  calls: Call[],
  send: SendMove,
  beforeSend?: (txHash: string) => Promise<void>,
): Promise<TransferOutcome | UnsettledSend> {
  // The lease comes first: one request per wallet at a time, so at most one password check is
  // ever in flight for it, and five failures are exactly five (parallel guesses get 409).
  const owner = randomUUID();
  await takeWalletLease(w, owner);
  const move = chainBMove({
    userId: w.userId,
    purpose: send.purpose,
    lease: { walletId: w.id, owner, seconds: walletConfig.WALLET_LOCK_SECONDS },
    moves: { token: spends.token.address, amount: spends.amount, to: send.to },
    answer: send.answer,
  });
  /** Set once the send has an answer that is not an error (landed, or handed to chain B and unsettled). */
  let answered = false;
  try {
    const key = await unlock(w, password);
    try {
      await onChainB(() => preflight(w.address, spends.token, spends.amount));
      const out = await onChainB(() =>
        chainB().execute({
          privateKey: `0x${key.toString('hex')}`,
          calls,
          beforeSend: async (txHash, signed) => {
            await beforeSend?.(txHash);
            await move.record(txHash, signed);
          },
        }),
      );
      // Landed: the answer is the transfer's even if the journal's bookkeeping fails now (its pass finishes it then).
      await move
        .settled({ kind: 'landed' })
        .catch((e: unknown) => logger.warn('chain B: landed, the journal settles it later', { txHash: out.txHash, error: e as Error }));
      answered = true;
      return out;
    } finally {
      key.fill(0);
    }
  } catch (e) {
    if (e instanceof ChainBReverted) {
      await move.settled({ kind: 'failed', failure: 'reverted' });
      throw errors.transactionReverted(`transaction ${e.txHash} reverted: ${e.reason}`);
    }
    if (e instanceof ChainBRejected && e.kind === 'NONCE' && move.txHash) {
      const outcome = await decideNonceTaken(move, e);
      answered = outcome !== undefined;
      if (outcome) return outcome;
    }
    if (e instanceof ChainBRejected) {
      await move.settled({ kind: 'failed', failure: 'rejected' });
      if (e.kind === 'NONCE') throw errors.nonceConflict();
      if (e.kind === 'FEE_BALANCE') throw errors.insufficientFeeBalance();
      throw errors.transactionFailed(`chain B refused the transaction: ${e.message}`);
    }
    if (move.txHash) {
      // Recorded and handed to chain B, its outcome unknown: the wallet and the key stay bound to it.
      logger.warn('chain B: sent, outcome unknown; the journal settles it', { walletId: w.id, txHash: move.txHash, error: e as Error });
      const deployTxHash = e instanceof ChainBOutcomeUnknown ? e.deployTxHash : undefined;
      answered = true;
      return { unsettled: true, txHash: move.txHash, ...(deployTxHash ? { deployTxHash } : {}) };
    }
    throw e;
  } finally {
    // Held for an unsettled move, the lease is no longer `owner`'s: this changes nothing then.
    // After an answer (a send that landed or may land) a failed release must not become the
    // request's error: the lease lapses by itself after WALLET_LOCK_SECONDS, and an error would free
    // the Idempotency-Key of a transaction that moved value (a retry would send a second one) and
    // fail a bridge withdrawal's record with its burn landed (lib/bridge/withdraw.ts).
    if (answered) {
      await releaseWalletLease(w.id, owner).catch((e: unknown) =>
        logger.warn('chain B: wallet lease not released after a send; it lapses by itself', { walletId: w.id, error: e as Error }),
      );
    } else await releaseWalletLease(w.id, owner);
  }
}

/**
 * A recorded send refused for its nonce, which may have been taken by the transaction itself (its
 * copy, sent again by a settle pass, included first): chain B decides. Landed: the transfer's
 * answer. Not decided yet, or chain B unreachable now: unsettled (202), the journal settles it.
 * Expired (another transaction took the nonce) or failed: settled, and the caller's refusal
 * answer (undefined) stands — 409 NONCE_CONFLICT, nothing of it moved.
 */
async function decideNonceTaken(move: ChainBMove, refusal: ChainBRejected): Promise<TransferOutcome | UnsettledSend | undefined> {
  const txHash = move.txHash!;
  const s = await move.nonceTaken().catch((e: unknown) => {
    logger.warn('chain B: its nonce taken, chain B not asked yet; the journal settles it', { txHash, refusal: refusal.message, error: e as Error });
    return { kind: 'pending' } as const;
  });
  if (s.kind === 'pending') return { unsettled: true, txHash };
  if (s.kind !== 'landed') return undefined;
  const tx = await chainB()
    .getTransaction(txHash)
    .catch(() => null);
  return { txHash, fee: tx ? BigInt(tx.fee) : 0n };
}

/** How long a wallet and an Idempotency-Key stay bound to a send chain B has not settled, at most (the journal's). */
export const UNSETTLED_HOLD_SECONDS = MOVE_HOLD_SECONDS;

/**
 * The wallet's signing lease, or 409 WALLET_LOCKED. A lease held for a sent transaction ends as
 * soon as chain B has settled that transaction (lib/moves/chain-b.ts: landed, failed, or expired);
 * until then the answer names it.
 */
async function takeWalletLease(w: WalletRecord, owner: string): Promise<void> {
  if (await acquireWalletLease(w.id, owner, walletConfig.WALLET_LOCK_SECONDS)) return;
  const pending = await walletLeaseHeldFor(w.id);
  if (pending) {
    const outcome = await onChainB(() => resolveChainBMove(pending));
    // Not a move of the journal (a hold from before it, or one whose record was never written): chain B's status decides.
    const settled =
      outcome === 'unknown' ? ['ACCEPTED', 'REJECTED'].includes(await onChainB(() => chainB().getTransactionStatus(pending))) : outcome !== 'pending';
    if (!settled) {
      throw errors.walletLocked(
        `transaction ${pending} from this wallet was sent and chain B has not settled it yet (GET /api/chainb/tx/${pending}); the wallet sends again once it has landed or failed, or after ${UNSETTLED_HOLD_SECONDS / 60} minutes`,
      );
    }
    await endWalletLeaseHold(w.id, pending);
    if (await acquireWalletLease(w.id, owner, walletConfig.WALLET_LOCK_SECONDS)) return;
  }
  throw errors.walletLocked('another transfer from this wallet is running; retry when it has finished');
}

/** What a wallet checks before it signs: the amount, then the fees at their maximum, in STRK. */
async function preflight(from: string, t: TokenInfo, amount: bigint): Promise<void> {
  const chain = chainB();
  const [balance, deployed, maxFees] = await Promise.all([chain.balanceOf(t.address, from), chain.isDeployed(from), chain.maxFees()]);
  if (balance < amount) throw errors.insufficientBalance(`insufficient ${t.symbol} balance: ${formatUnits(balance, t.decimals)} available`);
  if (!maxFees) return; // a node estimates per transaction and refuses what the account cannot pay
  const fees = maxFees.invoke + (deployed ? 0n : maxFees.deployAccount);
  const strk = t.address === FEE_TOKEN.address ? balance - amount : await chain.balanceOf(FEE_TOKEN.address, from);
  if (strk < fees) {
    throw errors.insufficientFeeBalance(
      `the fee needs up to ${formatUnits(fees, FEE_TOKEN.decimals)} STRK${deployed ? '' : ' (this first transfer also deploys the account)'}; ${formatUnits(strk, FEE_TOKEN.decimals)} STRK left for it`,
    );
  }
}

export async function balance(rawAddress: string, rawToken: string | undefined) {
  const a = address(rawAddress, 'address');
  const t = await token(rawToken);
  const value = await onChainB(() => chainB().balanceOf(t.address, a));
  return { address: a, token: t.address, symbol: t.symbol, balance: value.toString(), formatted: formatUnits(value, t.decimals), decimals: t.decimals };
}

export async function transaction(hash: string) {
  if (!isFelt(hash)) throw errors.invalidInput('hash: a transaction hash (0x-hex)');
  const tx = await onChainB(() => chainB().getTransaction(hash));
  if (!tx) throw errors.txNotFound();
  return { transaction: tx };
}

/** The wallet's balance of a token, STRK by default (the wallets route's chain B branch). */
export async function walletBalance(w: WalletRecord, rawToken: string | undefined) {
  const { balance: b, formatted, decimals, token: t } = await balance(w.address, rawToken);
  return { address: w.address, balance: b, formatted, decimals, token: t };
}

/** Test tokens from the localnet faucet (403 elsewhere: Sepolia has its public faucet, mainnet none). */
export async function airdrop(w: WalletRecord, input: z.infer<typeof chainBAirdropInput>) {
  if (chainBNetwork() !== 'localnet' || chainB().adapter !== 'local') throw errors.forbidden('chain B airdrops exist on localnet only');
  const t = input.token === 'ETH' ? builtinToken('ETH')! : STRK;
  const amount = units(input.amount, t, BigInt(MAX_AIRDROP) * 10n ** BigInt(t.decimals));
  const { txHash } = await onChainB(() => chainB().faucet(t.address, w.address, amount));
  return {
    txHash,
    address: w.address,
    token: t.address,
    amount: amount.toString(),
    formatted: formatUnits(amount, t.decimals),
    decimals: t.decimals,
    explorerUrl: chainBExplorerUrl(txHash, config.PUBLIC_BASE_URL),
  };
}
