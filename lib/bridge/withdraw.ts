import { chainA } from '#lib/chains/chain-a/index.ts';
import { chainB } from '#lib/chains/chain-b/index.ts';
import { clock } from '#lib/clock.ts';
import { attachSource, failBridge, insertBridge, readBridge, transitionBridge, type BridgeRecord } from '#lib/data/bridge-transfers.ts';
import { getWallet, type WalletRecord } from '#lib/data/wallets.ts';
import { logger } from '#lib/log.ts';
import { resolveChainBMove } from '#lib/moves/chain-b.ts';
import { executeFromWallet } from '#lib/wallets/chain-b.ts';
import { releaseWithdrawal } from './chain-a-release.ts';
import { checkWithdraw, ensureWarpRoute, recipientU256, withdrawCall } from './chain-b-source.ts';
import { bridgeRoutes, routeToken, type HyperlaneToken } from './routes.ts';

/**
 * Withdrawals chain B → chain A on the `chaina-chainb` route (Hyperlane warp route back to its
 * origin): the source transaction is the synthetic token's `transfer_remote` on chain B
 * (chain-b-source.ts), sent by the service from the caller's chain B wallet (its key opens only
 * with the password) or by the caller; the relayer confirms it on chain B and releases the
 * amount from the escrow on chain A (chain-a-release.ts), exactly once per message id.
 */
const at = () => clock.now().toISOString();

/**
 * Sends the record's transfer_remote from the wallet. The record is written only once the wallet
 * has accepted the password and the balances suffice (a wrong password, a locked wallet or a short
 * balance leaves no record), and it takes the transaction's hash before the transaction is sent:
 * it then answers `submitted` — with `unsettled` (the route's 202) when chain B did not say whether
 * the transaction landed (its node gone after the send, no receipt in time): the value-move journal
 * settles it (lib/moves/chain-b.ts) and the relayer follows that settlement — or `failed` with
 * nothing burned when chain B refuses or reverts it. `answer`: the route's 202 body for the record
 * as sent, kept by the journal for a retry with the request's Idempotency-Key.
 */
export async function sendWithdraw(
  r: BridgeRecord,
  w: WalletRecord,
  password: string,
  route: HyperlaneToken,
  answer: (r: BridgeRecord, txHash: string) => object,
): Promise<{ record: BridgeRecord; unsettled?: string }> {
  await ensureWarpRoute(route);
  const amount = BigInt(r.amountUnits);
  const token = { address: route.destinationToken, symbol: r.token, name: r.token, decimals: route.decimals };
  let inserted = false;
  /** The hash the record reserved: released if the record fails. */
  let attached: string | undefined;
  /** The record as this call leaves it (`submitted`), read before the send: the answer. */
  let submitted: BridgeRecord | undefined;
  try {
    const move = {
      purpose: { kind: 'wallet-send' as const, operation: 'bridge-withdraw', ref: r.id },
      to: r.destAddress,
      answer: (txHash: string) => answer(submitted ?? r, txHash),
    };
    const out = await executeFromWallet(w, password, { token, amount }, [withdrawCall(route, r.destAddress, amount)], move, async (txHash) => {
      await insertBridge(r);
      inserted = true;
      // The hash is on the record before the transaction goes out: whatever happens next (no
      // answer from chain B, this function cut off), the relayer finds it there.
      const outcome = await attachSource(r.userId, r, txHash, at());
      if (outcome !== 'attached') throw new Error(`bridge ${r.id}: its own source transaction was refused (${outcome})`);
      attached = txHash;
      // Read now: once the transaction is out, the relayer may move the record on at any moment.
      submitted = await readBridge(r.userId, r.id);
    });
    if ('unsettled' in out) {
      logger.warn('bridge: withdrawal sent, outcome unknown; the journal settles it', { bridgeId: r.id, txHash: out.txHash });
      return { record: submitted ?? r, unsettled: out.txHash };
    }
  } catch (e) {
    if (!inserted) throw e;
    // Refused or reverted on chain B: nothing was burned. The record says so, the caller gets the reason.
    const failureReason = e instanceof Error ? e.message : 'the source transaction failed';
    await failBridge(r, { from: ['pending', 'submitted'], at: at(), failureReason, sourceTxHash: attached ?? null });
    throw e;
  }
  return { record: submitted ?? r };
}

export function withdrawInstructions(r: BridgeRecord): { step1: string; step2: string; step3: string } {
  const route = routeToken('chaina-chainb', r.token)!;
  const step3 = `Follow GET /api/bridge/status/${r.id}: submitted → source_confirmed → completed when the ${r.token} is released to ${r.destAddress} on chain A.`;
  if (r.sourceTxHash) {
    return {
      step1: `Sent: transfer_remote of ${r.amount} ${r.token} from your chain B wallet through the ${route.warpRouteId} warp route (transaction ${r.sourceTxHash}); the synthetic ${r.token} is burned.`,
      step2: 'Nothing to do: the relayer confirms the transaction on chain B and delivers the message to chain A.',
      step3,
    };
  }
  const recipient = `0x${recipientU256(r.destAddress).toString(16).padStart(64, '0')}`;
  return {
    step1: `On chain B, call transfer_remote(${bridgeRoutes['chaina-chainb'].origin.domainId}, ${recipient}, ${r.amountUnits}, 0, None, None) on the warp route ${route.destinationRouter} (destination domain, recipient ${r.destAddress} as u256, amount in smallest units as u256, no gas value, the default hook); it burns your synthetic ${r.token}. Before ${r.expiresAt}.`,
    step2: `POST /api/bridge/${r.id}/source-tx {"txHash": "<the chain B transaction hash>"}.`,
    step3,
  };
}

/** submitted → source_confirmed (the message id fixed) or failed; waits while the transaction is not on chain B yet. */
export async function confirmWithdrawSource(r: BridgeRecord, confirmWindowMs: number): Promise<void> {
  const route = routeToken('chaina-chainb', r.token);
  if (!route || !r.sourceTxHash) return;
  // Sent by the service from a wallet: from that wallet's account (a deleted wallet's address is unknown).
  const from = r.walletId ? (await getWallet(r.userId, r.walletId))?.address : undefined;
  const check = await checkWithdraw(r.sourceTxHash, route, r.destAddress, BigInt(r.amountUnits), from);
  if (!check.ok) {
    // Not on chain B. The service's own send is in the value-move journal: only chain B's settlement
    // of it decides (settled here too, so the wallet and the key are free at once), never the window.
    // A transaction sent by the user: REJECTED is final (it never ran, nothing was burned); otherwise
    // it may still come, within the window.
    const journaled = check.missing && r.walletId ? await resolveChainBMove(r.sourceTxHash) : 'unknown';
    if (journaled === 'pending' || journaled === 'landed') return; // landed: its receipt is read on the next pass
    const rejected = check.missing && journaled === 'unknown' && (await chainB().getTransactionStatus(r.sourceTxHash)) === 'REJECTED';
    if (check.missing && journaled === 'unknown' && !rejected && clock.nowMs() - Date.parse(r.submittedAt ?? r.updatedAt) < confirmWindowMs) return;
    const failureReason =
      rejected || journaled === 'failed'
        ? 'chain B REJECTED the source transaction (it never ran: nothing was burned)'
        : journaled === 'expired'
          ? 'the source transaction can never land on chain B: its nonce was taken by another transaction of the account (nothing was burned)'
          : check.missing
            ? 'the source transaction was not found on chain B'
            : check.reason;
    await failBridge(r, { from: ['submitted'], at: at(), failureReason, sourceTxHash: r.sourceTxHash });
    return;
  }
  await transitionBridge(r.userId, r.id, { from: ['submitted'], to: 'source_confirmed', at: at(), set: { messageId: check.messageId } });
}

/** source_confirmed → completed once chain A has released the amount to destAddress (exactly once per message id). */
export async function deliverWithdraw(r: BridgeRecord): Promise<void> {
  const route = routeToken('chaina-chainb', r.token);
  if (!route || !r.messageId) return;
  const signature = await releaseWithdrawal(await chainA(), {
    bridgeId: r.id,
    messageId: r.messageId,
    route,
    to: r.destAddress,
    amount: BigInt(r.amountUnits),
  });
  if (!signature) return;
  await transitionBridge(r.userId, r.id, { from: ['source_confirmed'], to: 'completed', at: at(), set: { destTxHash: signature } });
}
