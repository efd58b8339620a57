import { chainB, chainBExplorerUrl, type ChainB } from '#lib/chains/chain-b/index.ts';
import type { SignedInvoke } from '#lib/chains/chain-b/port.ts';
import { settleChainB, type ChainBSettlement } from '#lib/chains/chain-b/settle.ts';
import { clock } from '#lib/clock.ts';
import { config } from '#lib/config.ts';
import { bindToTransaction, recordKeyOf, settleBound } from '#lib/data/idempotency.ts';
import { getMove, listOpenChainBMoves, recordMove, settleMove, type ChainBMoveRecord, type MovePurpose } from '#lib/data/value-moves.ts';
import { endWalletLeaseHold, holdWalletLeaseFor, reclaimWalletLease } from '#lib/data/wallets.ts';
import { errors } from '#lib/errors.ts';
import { envelope } from '#lib/http/envelope.ts';
import { requestIdempotency } from '#lib/http/request-idempotency.ts';
import { MOVE_HOLD_SECONDS, settlePass, type MovesReport } from './journal.ts';

/**
 * Chain B's value moves in the journal (lib/moves/journal.ts is chain A's; the records are the
 * same, lib/data/value-moves.ts, with `chain: 'b'`). Every chain B send that moves value — a
 * wallet's transfer, a bridge withdrawal's transfer_remote (both lib/wallets/chain-b.ts
 * `executeFromWallet`) — is recorded with its hash, account, nonce and the signed INVOKE itself once
 * signed and before it is sent; from then on only chain B settles it (lib/chains/chain-b/settle.ts:
 * one the node never received is sent again unchanged while its nonce is unused): landed, failed
 * (REVERTED: its fee paid; REJECTED or refused: nothing moved), or expired (unknown to the node and
 * its nonce taken by another transaction). Until then the wallet's signing lease and the request's
 * Idempotency-Key are bound to the transaction, from before the send, as on chain A; once it failed
 * or expired the key is free again. `resolveChainBMovesOnce` (the transfer retry job, every minute)
 * settles what requests left open, as does the next request that finds the wallet held.
 */

export interface ChainBMoveOf {
  userId: string;
  purpose: MovePurpose;
  /** The wallet's signing lease held by the request, bound to the move before the send. */
  lease: { walletId: string; owner: string; seconds: number };
  /** What the transaction moves: token address, amount in its smallest units, and to whom. */
  moves: { token: string; amount: bigint; to: string };
  /** The route's 202 body naming the transaction: what a retry with the key gets if the request dies and it lands. */
  answer: (txHash: string) => object;
}

/** The 202 answer of a chain B move not settled yet. */
export const submittedB = (txHash: string) => ({ status: 'submitted' as const, txHash, explorerUrl: chainBExplorerUrl(txHash, config.PUBLIC_BASE_URL) });

/** The journal of one send: `record` runs as the send's `beforeSend`; `settled` takes the send's own definite answer. */
export interface ChainBMove {
  record(txHash: string, signed: SignedInvoke): Promise<void>;
  /** The transaction recorded and handed to the send, once `record` has finished. */
  readonly txHash: string | undefined;
  settled(s: Exclude<ChainBSettlement, { kind: 'pending' }>): Promise<void>;
  /**
   * Its own send refused for its nonce: taken by another transaction of the account, or by this very
   * one — the same INVOKE sent again first by a settle pass that found it not received yet (the
   * relayer, a request finding the wallet held) and included. Chain B's word on it (the settle
   * rule) decides, never the refusal; a decided move is settled.
   */
  nonceTaken(): Promise<ChainBSettlement>;
}

export function chainBMove(m: ChainBMoveOf): ChainBMove {
  /** The transaction recorded and handed to the send. */
  let sent: { txHash: string; signed: SignedInvoke } | undefined;
  return {
    get txHash() {
      return sent?.txHash;
    },
    async record(txHash, signed) {
      const claim = requestIdempotency.getStore();
      if (!(await holdWalletLeaseFor(m.lease.walletId, m.lease.owner, txHash, MOVE_HOLD_SECONDS))) {
        throw errors.walletLocked("this request lost the wallet's lease before it could send; retry");
      }
      let written = false;
      try {
        written = await recordMove({
          txHash,
          chain: 'b',
          userId: m.userId,
          walletId: m.lease.walletId,
          ...(claim ? { idempotencyPk: recordKeyOf(claim.scope, claim.key) } : {}),
          purpose: m.purpose,
          account: signed.sender,
          nonce: signed.nonce.toString(),
          invoke: signed.invoke,
          moves: { token: m.moves.token, amount: m.moves.amount.toString(), to: m.moves.to },
          createdAt: clock.now().toISOString(),
        });
        if (!written) {
          // This very INVOKE (account, nonce, calls: one hash) is another request's move already, in
          // flight or landed (the same key in two wallets): sending it moves nothing for this one.
          throw errors.walletLocked(`transaction ${txHash} from this account is journaled already; retry once it has settled`);
        }
        if (claim) {
          const answer = { statusCode: 202, headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope(claim.envelope, m.answer(txHash))) };
          if (!(await bindToTransaction(claim.scope, claim.key, claim.owner, txHash, MOVE_HOLD_SECONDS, answer))) {
            throw errors.idempotencyInProgress(1);
          }
        }
      } catch (e) {
        // Not sent: nothing can move. The move (if written) fails at once, the wallet back to the request.
        if (written) await finish(txHash, { kind: 'failed', failure: 'rejected' }, m.lease).catch(() => undefined);
        else await reclaimWalletLease(m.lease.walletId, txHash, m.lease.owner, m.lease.seconds).catch(() => undefined);
        throw e;
      }
      sent = { txHash, signed };
    },
    async settled(s) {
      if (sent) await finish(sent.txHash, s, m.lease);
    },
    async nonceTaken() {
      if (!sent) return { kind: 'pending' };
      const { txHash, signed } = sent;
      const s = await settleChainB(chainB(), { txHash, account: signed.sender, nonce: signed.nonce, invoke: signed.invoke });
      if (s.kind !== 'pending') await finish(txHash, s, m.lease);
      return s;
    },
  };
}

/** Settles every open chain B move chain B can now decide (the transfer retry job's pass). */
export async function resolveChainBMovesOnce(olderThanMs = 0): Promise<MovesReport> {
  const open = await listOpenChainBMoves(new Date(clock.nowMs() - olderThanMs + 1).toISOString());
  const chain = open.length ? chainB() : undefined;
  return settlePass(open, (m) => resolve(chain!, m), 'chain B value move not settled; next pass');
}

/** Settles one move now if chain B can tell (a request that finds its wallet held for it). */
export async function resolveChainBMove(txHash: string): Promise<ChainBSettlement['kind'] | 'unknown'> {
  const m = await getMove(txHash);
  if (!m || m.chain !== 'b') return 'unknown';
  if (m.status !== 'sent') return m.status;
  return (await resolve(chainB(), m)).kind;
}

async function resolve(chain: ChainB, m: ChainBMoveRecord): Promise<ChainBSettlement> {
  const s = await settleChainB(chain, { txHash: m.txHash, account: m.account, nonce: BigInt(m.nonce), ...(m.invoke ? { invoke: m.invoke } : {}) });
  if (s.kind !== 'pending') await finish(m.txHash, s);
  return s;
}

/**
 * What a settlement finishes, each step idempotent and done before the move is marked settled (a
 * crash between them leaves it open and the next pass does them again): the Idempotency-Key (unless
 * the request, still running, answers a landing itself: `lease` given), the wallet's lease (back to that
 * request, or released), and last the move. A bridge withdrawal's record is the relayer's, which
 * reads this settlement (lib/bridge/withdraw.ts).
 */
async function finish(txHash: string, s: Exclude<ChainBSettlement, { kind: 'pending' }>, lease?: ChainBMoveOf['lease']): Promise<void> {
  const m = await getMove(txHash);
  if (!m || m.status !== 'sent') return;
  // A request still running answers a landing itself; a failure frees the key here either way (the
  // request's own release of a key bound to a transaction would keep it: lib/data/idempotency.ts).
  if (m.idempotencyPk && (!lease || s.kind !== 'landed')) await settleBound(m.idempotencyPk, txHash, s.kind);
  if (m.walletId) {
    if (lease) await reclaimWalletLease(m.walletId, txHash, lease.owner, lease.seconds);
    else await endWalletLeaseHold(m.walletId, txHash);
  }
  await settleMove(txHash, s.kind, clock.now().toISOString(), s.kind === 'failed' ? { failure: s.failure } : {});
}
