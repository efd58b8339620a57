import bs58 from 'bs58';
import { chainA, ChainRejected, type ChainA, type SentTransaction } from '#lib/chains/chain-a/index.ts';
import type { Sender } from '#lib/chains/chain-a/operations.ts';
import { clock } from '#lib/clock.ts';
import { bindToTransactionItem, recordKeyOf, settleBound } from '#lib/data/idempotency.ts';
import { markClaimPaid, releaseClaimFor } from '#lib/data/rewards-ledger.ts';
import { getOrder, markExecuted, markFailed } from '#lib/data/swap-orders.ts';
import {
  getMove,
  listOpenMoves,
  recordMoveWith,
  settleMove,
  settleMoveWith,
  type ChainAMoveRecord,
  type MovePurpose,
  type MoveRecord,
  type MoveWrites,
} from '#lib/data/value-moves.ts';
import { endHoldRecordingSlotItems, endWalletLeaseHold, holdWalletLeaseItem, reclaimWalletLease, type WalletLease } from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { envelope } from '#lib/http/envelope.ts';
import { logger } from '#lib/log.ts';
import { isAlreadyProcessed, isBlockhashNotFound, settle, type Settlement } from '#lib/chains/chain-a/settle.ts';
import { requestIdempotency } from '#lib/http/request-idempotency.ts';
import { MoveUnsettled } from './unsettled.ts';

/**
 * The value-move journal: every chain A transaction routed through it (compression, compressed
 * transfers, mint-to, token creation, reward claims, shielded deposits, swaps (local pools and
 * Jupiter), sweeps, the service's bridge deposits, the test-token faucet; docs/value-moves.md) is recorded — signed bytes and the
 * block height after which it can no longer land — before it is sent, and only the chain settles
 * it: landed, failed, or expired past that height with no status in the history
 * (lib/transfer/chain.ts `settle`). A timeout settles nothing: the request answers 202
 * `{status: "submitted", txHash}` and, until the move settles,
 *
 * - the wallet's signing lease is held for the transaction (a second send from the wallet is 409
 *   WALLET_LOCKED naming it), from before the send, so that a crash holds it too;
 * - the request's Idempotency-Key is bound to it: a retry gets 409 in progress (the attempt died)
 *   or the 202 again, never a second transaction.
 *
 * `resolveMovesOnce` (the transfer retry job, every minute) settles what requests left open, as does
 * the next request that finds the wallet held.
 */

/** How long a wallet and an Idempotency-Key stay bound to an unsettled move at most (far past any blockhash's life). */
export const MOVE_HOLD_SECONDS = 30 * 60;

export { MoveUnsettled };

export interface MoveOf {
  userId: string;
  purpose: MovePurpose;
  /** The wallet's signing lease held by this request (lib/wallets/lock.ts), to bind to the move; `seconds`: its term once handed back. */
  lease?: WalletLease;
  /** Writes that go with the move's record, in its transaction (an accrual owed once it lands: lib/compression/compression.ts). */
  alsoRecord?: (txHash: string) => MoveWrites;
  /**
   * Writes that go with the move's settlement as landed when this request settles it (the accrual
   * noted with the record: lib/compression/compression.ts); `written` says whether they went. A
   * settlement that fails on them is written without them, and the caller does them its own way;
   * `unavailable`: what `writes` threw (they could not be named: the settlement went without them).
   */
  alsoSettle?: { writes: (txHash: string) => Promise<MoveWrites>; written?: boolean; unavailable?: unknown };
  /** Set once the move is recorded: from then on only the journal settles what it was for. */
  recorded?: { done: boolean };
  /**
   * Binds what the move pays for to its transaction before anything is recorded or sent (a reward
   * claim: lib/rewards/rewards.ts); throws when this request no longer holds it (nothing is sent).
   */
  bind?: (txHash: string, lastValidBlockHeight: number) => Promise<void>;
  /** The route's 202 body, when it says more than `submitted` (the answer a retry gets if this request dies). */
  answer?: (txHash: string) => object;
}

/** The 202 answer of a move not settled yet. */
export const submitted = (chain: ChainA, txHash: string) => ({ status: 'submitted' as const, txHash, explorerUrl: chain.explorerUrl(txHash) });

/**
 * A Sender that journals: records the move, binds the wallet lease and the Idempotency-Key to it
 * (one transaction), sends, and settles it by the chain's answer. Landed → the transaction (the
 * lease handed back to the request, or ended with the settlement: `settledWithLease`); refused → ChainRejected as before (nothing moved); no answer → MoveUnsettled.
 */
export function journaled(chain: ChainA, m: MoveOf): Sender {
  return async (tx, lastValidBlockHeight) => {
    const txHash = bs58.encode(tx.signatures[0]!);
    const claim = requestIdempotency.getStore();
    if (m.bind) await m.bind(txHash, lastValidBlockHeight);
    // The answer a retry gets once the move landed, if this request dies before it answers: 202 naming it.
    const bind =
      claim &&
      bindToTransactionItem(claim.scope, claim.key, claim.owner, txHash, MOVE_HOLD_SECONDS, {
        statusCode: 202,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelope(claim.envelope, m.answer?.(txHash) ?? submitted(chain, txHash))),
      });
    // One transaction, each write with its own condition as it would have alone: the key bound to
    // the transaction, the wallet's lease held for it, and the move recorded with its signed bytes.
    const before: MoveWrites = [];
    const at = {
      claim: bind ? before.push(bind) - 1 : -2,
      lease: m.lease ? before.push(holdWalletLeaseItem(m.lease.walletId, m.lease.owner, txHash, MOVE_HOLD_SECONDS)) - 1 : -2,
    };
    const failed = await recordMoveWith(
      {
        txHash,
        chain: 'a',
        userId: m.userId,
        ...(m.lease ? { walletId: m.lease.walletId } : {}),
        ...(claim ? { idempotencyPk: recordKeyOf(claim.scope, claim.key) } : {}),
        purpose: m.purpose,
        signedTx: Buffer.from(tx.serialize()).toString('base64'),
        lastValidBlockHeight,
        createdAt: clock.now().toISOString(),
      },
      before,
      m.alsoRecord?.(txHash) ?? [],
    );
    // The claim first: an attempt whose claim another attempt of the same request took over (its
    // lock lapsed while it stalled) sends nothing; that other attempt does the work.
    if (failed === at.claim) throw errors.idempotencyInProgress(1);
    if (failed === at.lease) throw errors.walletLocked("this request lost the wallet's lease before it could send; retry");
    if (failed !== -1) {
      // These very bytes are journaled already, in flight or landed (identical transactions have one
      // signature): sending them again moves nothing; the wallet stays the request's (nothing was written).
      throw errors.walletLocked(`transaction ${txHash} from this wallet is journaled already; retry once it has settled`);
    }
    if (m.recorded) m.recorded.done = true;
    let sent: SentTransaction;
    try {
      sent = await chain.sendAndConfirm(tx);
    } catch (e) {
      // BlockhashNotFound decides nothing: a node behind refuses a blockhash the cluster still takes,
      // while another copy of these bytes (the journal's pass, a request that found the wallet held
      // and settles its move) may land. Left open, the chain settles it: landed, or expired past its height.
      if (e instanceof ChainRejected && !isAlreadyProcessed(e) && !isBlockhashNotFound(e)) {
        // Refused before it ran, or ran and failed: nothing moved. Settled, the lease back to the request.
        // Refused before it ran: the same bytes may be sent again later (recordMove reopens it).
        await finish(chain, txHash, { kind: 'failed' }, { lease: m.lease, rejected: true });
        throw e;
      }
      logger.warn('value move sent, outcome unknown; the journal settles it', { txHash, error: e as Error });
      throw new MoveUnsettled(txHash);
    }
    try {
      if (!(await settledWithLease(txHash, sent.slot, m))) await finish(chain, txHash, { kind: 'landed', slot: sent.slot }, { lease: m.lease });
    } catch (e) {
      // Landed, and its settlement not written (DynamoDB failed past its retries): the answer is the
      // transaction's all the same (as on chain B: lib/wallets/chain-b.ts). An error now would free
      // the Idempotency-Key of a transaction that moved value, and a retry could send again. The move
      // stays open, holding the wallet, and the journal's pass settles it.
      logger.warn('value move landed, its settlement not written; the journal settles it', { txHash, error: e as Error });
    }
    return sent;
  };
}

/**
 * A landed wallet send of a request that holds its wallet's lease, settled in one transaction:
 * the move marked landed (only from `sent`), the hold on it ended (only while held for it) and the
 * slot recorded on the wallet — what `finish` then the lock's release write one after the other,
 * with the same conditions. A wallet send's settlement has no effect of its own (`afterSettled`), so
 * the record just written is all it needs. False (nothing written) when any condition failed or it
 * is not such a move: `finish` then does it step by step, as for any other.
 */
async function settledWithLease(txHash: string, slot: number, m: MoveOf): Promise<boolean> {
  const lease = m.lease;
  if (m.purpose.kind !== 'wallet-send' || !lease?.userId) return false;
  const settle = (also: MoveWrites) =>
    settleMoveWith(txHash, 'landed', clock.now().toISOString(), { slot }, [
      ...endHoldRecordingSlotItems({ id: lease.walletId, userId: lease.userId! }, txHash, slot),
      ...also,
    ]);
  // The caller's writes when it can name them, else (or when that fails in any way: the transaction landed,
  // its answer must not become an error) without them, and the caller does them its own way.
  const also =
    m.alsoSettle &&
    (await m.alsoSettle.writes(txHash).catch((e: unknown) => {
      m.alsoSettle!.unavailable = e;
      return undefined;
    }));
  if (also?.length && (await settle(also).catch(() => false))) m.alsoSettle!.written = true;
  else if (!(await settle([]))) return false;
  lease.released = true;
  return true;
}

export interface MovesReport {
  seen: number;
  landed: number;
  failed: number;
  expired: number;
  pending: number;
  failures: number;
}

/** Settles every unsettled move the chain can now decide (the transfer retry job's pass). */
export async function resolveMovesOnce(olderThanMs = 0): Promise<MovesReport> {
  const open = await listOpenMoves(new Date(clock.nowMs() - olderThanMs + 1).toISOString());
  const chain = open.length ? await chainA() : undefined;
  return settlePass(open, (m) => resolve(chain!, m), 'value move not settled; next pass');
}

/** One pass over open moves (either chain's): each settled if its chain can tell, a failure logged and left for the next pass. */
export async function settlePass<M extends { txHash: string }>(
  open: M[],
  resolveOne: (m: M) => Promise<{ kind: 'landed' | 'failed' | 'expired' | 'pending' }>,
  failure: string,
): Promise<MovesReport> {
  const report: MovesReport = { seen: 0, landed: 0, failed: 0, expired: 0, pending: 0, failures: 0 };
  for (const m of open) {
    report.seen++;
    try {
      report[(await resolveOne(m)).kind]++;
    } catch (e) {
      report.failures++;
      logger.warn(failure, { txHash: m.txHash, error: e as Error });
    }
  }
  return report;
}

/** Settles one chain A move now if the chain can tell (a request that finds its chain A wallet held for it). */
export async function resolveMove(txHash: string): Promise<Settlement['kind'] | 'unknown'> {
  const m = await getMove(txHash);
  if (!m) return 'unknown';
  if (m.status !== 'sent') return m.status;
  // A chain B move holds a chain B wallet, settled by lib/moves/chain-b.ts (the wallet's own next request).
  if (m.chain === 'b') return 'unknown';
  return (await resolve(await chainA(), m)).kind;
}

async function resolve(chain: ChainA, m: ChainAMoveRecord): Promise<Settlement> {
  const s = await settle(chain, { signature: m.txHash, bytes: m.signedTx, lastValidBlockHeight: m.lastValidBlockHeight });
  if (s.kind !== 'pending') await finish(chain, m.txHash, s);
  return s;
}

/**
 * What a settlement finishes, each step idempotent and done before the move is marked settled
 * (a crash between them leaves it open and the next pass does them again): the purpose's effect,
 * the Idempotency-Key (unless `request`, still running, answers a landing itself), then the wallet's lease
 * (back to the request's owner, or released), and last the move itself.
 */
async function finish(
  chain: ChainA,
  txHash: string,
  s: Exclude<Settlement, { kind: 'pending' }>,
  request?: { lease?: MoveOf['lease']; rejected?: boolean },
): Promise<void> {
  const m = await getMove(txHash);
  if (!m || m.status !== 'sent') return;
  const lease = request?.lease;
  await afterSettled(m, s);
  // A request still running answers a landing itself; a failure frees the key here either way (the
  // request's own release of a key bound to a transaction would keep it: lib/data/idempotency.ts).
  if (m.idempotencyPk && (!request || s.kind !== 'landed')) await settleBound(m.idempotencyPk, txHash, s.kind);
  if (m.walletId) {
    if (lease) await reclaimWalletLease(m.walletId, txHash, lease.owner, lease.seconds);
    else await endWalletLeaseHold(m.walletId, txHash);
  }
  await settleMove(txHash, s.kind, clock.now().toISOString(), s.kind === 'landed' ? { slot: s.slot } : request?.rejected ? { failure: 'rejected' } : {});
}

/**
 * The purpose's own effect of a settlement (idempotent: conditional writes keyed by the
 * transaction). A wallet send's reward points are the caller's: accrued on a 200, noted as owed
 * on a 202 (lib/rewards/accrue.ts's outbox records them once the chain shows the transaction).
 * A wallet send with a record of its own (a shielded deposit: lib/transfer/retry.ts) is finished
 * by that record's pass, by the same chain rule. A swap's order is executed or failed here (the
 * request that sees it land marks it again with its deposit's leaf: the same values and more).
 */
async function afterSettled(m: MoveRecord, s: Exclude<Settlement, { kind: 'pending' }>): Promise<void> {
  const p = m.purpose;
  if (p.kind === 'reward-claim') {
    if (s.kind === 'landed') await markClaimPaid(p.epoch, p.account, m.txHash);
    else await releaseClaimFor(p.epoch, p.account, m.txHash);
    return;
  }
  if (p.kind !== 'swap') return;
  const order = await getOrder(m.userId, p.orderId);
  if (order?.status !== 'executing') return;
  if (s.kind !== 'landed') return markFailed(order, s.kind === 'expired' ? 'EXPIRED' : 'TRANSACTION_FAILED');
  await markExecuted(order, {
    txHash: m.txHash,
    executedAmountOut: p.amountOut,
    outputAddress: p.outputAddress,
    ...(order.shielded && p.depositId ? { shielded: { ...order.shielded, depositId: p.depositId } } : {}),
  });
}
