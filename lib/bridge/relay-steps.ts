import { getMove } from '#lib/data/value-moves.ts';
import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import { failBridge, readBridge, takeMailboxNonce, transitionBridge, type BridgeRecord } from '#lib/data/bridge-transfers.ts';
import { expireIfDue } from './bridge.ts';
import { checkDeposit } from './chain-a-source.ts';
import { bridgeMint } from './chain-b-credit.ts';
import { ensureWarpRoute } from './chain-b-source.ts';
import { confirmEthereumSource, deliverEthereum } from './ethereum-relay.ts';
import { formatMessage, messageId, sealevelBytes32, starknetBytes32, tokenMessage } from './hyperlane.ts';
import { bridgeRoutes, destinationToken, routeToken } from './routes.ts';
import { confirmWithdrawSource, deliverWithdraw } from './withdraw.ts';

/**
 * The relayer: what a Hyperlane relayer does for a warp transfer, chain A → chain B (deposits)
 * and back (withdrawals: ./withdraw.ts confirms the transfer_remote on chain B, then releases from
 * the chain A escrow exactly once per message id), run by the service on its local chains. One step per open record, each a conditional transition, so two
 * relayers (two timers, two Lambda instances) never both act on one state:
 * - pending past its expiry → expired;
 * - submitted → source_confirmed once the source transaction is confirmed on chain A and is the
 *   record's deposit (memo, escrow, exact amount); the Hyperlane message and its id are fixed here;
 *   → failed when it is not, or when it has not appeared within CONFIRM_WINDOW_MS (the service's
 *   own deposit: once the value-move journal settled it failed or expired);
 * - source_confirmed → completed once chain B has minted the bridged token to the destination
 *   (bridgeMint is exactly once per message id, so a retried step never credits twice).
 * `npm start` runs `relayOnce` (./relayer.ts) on a timer (lib/local/runtime.ts); on AWS the scheduled function
 * functions/scheduled/bridge-relayer.ts runs it every minute. The ethereum-chainb route's steps
 * (StarkGate: the L1 watcher, and the sequencer's part on the local chain B) are ./ethereum-relay.ts.
 */
export const CONFIRM_WINDOW_MS = 30 * 60 * 1000;
/** A route runs up to 29 s (functions/routes.ts): a deposit refused this recently is its request's to fail. */
const REFUSED_LEFT_TO_REQUEST_MS = 30_000;

async function confirmSource(r: BridgeRecord): Promise<void> {
  if (r.direction === 'withdraw') return confirmWithdrawSource(r, CONFIRM_WINDOW_MS);
  if (r.bridgeType === 'ethereum-chainb') return confirmEthereumSource(r, CONFIRM_WINDOW_MS);
  if (r.bridgeType !== 'chaina-chainb' || !r.sourceTxHash) return;
  const route = routeToken('chaina-chainb', r.token);
  if (!route) return;
  const at = () => clock.now().toISOString();
  const check = await checkDeposit(await chainA(), r.sourceTxHash, route, BigInt(r.amountUnits), r.id);
  if (!check.ok) {
    if (check.missing) {
      // The service's own deposit is in the value-move journal: only the chain's settlement of it
      // decides (lib/moves/journal.ts), never the window; a transaction sent by the user, the window.
      const move = await getMove(r.sourceTxHash);
      if (move ? move.status === 'sent' || move.status === 'landed' : clock.nowMs() - Date.parse(r.submittedAt ?? r.updatedAt) < CONFIRM_WINDOW_MS) return;
      // Refused by chain A just now: the request that sent it fails the record with the chain's own
      // reason (lib/bridge/bridge.ts); the relayer does, with what it can tell, only if that request died.
      if (move?.status === 'failed' && clock.nowMs() - Date.parse(move.settledAt ?? move.createdAt) < REFUSED_LEFT_TO_REQUEST_MS) return;
    }
    const failureReason = check.missing ? 'the source transaction was not found on chain A' : check.reason;
    await failBridge(r, { from: ['submitted'], at: at(), failureReason, sourceTxHash: r.sourceTxHash });
    return;
  }
  const { origin, destination } = bridgeRoutes['chaina-chainb'];
  const message = formatMessage({
    nonce: await takeMailboxNonce(origin.domainId),
    originDomain: origin.domainId,
    sender: sealevelBytes32(route.originRouter),
    destinationDomain: destination.domainId,
    recipient: starknetBytes32(route.destinationRouter),
    body: tokenMessage(starknetBytes32(r.destAddress), BigInt(r.amountUnits)),
  });
  await transitionBridge(r.userId, r.id, { from: ['submitted'], to: 'source_confirmed', at: at(), set: { messageId: messageId(message) } });
}

async function deliver(r: BridgeRecord): Promise<void> {
  if (r.direction === 'withdraw') return deliverWithdraw(r);
  if (r.bridgeType === 'ethereum-chainb') return deliverEthereum(r);
  const token = destinationToken(r.bridgeType, r.token);
  if (!token || !r.messageId) return;
  // The first mint of a bridged token registers its metadata on the local ledger (decimals as the
  // route's), and the warp route's storage, so that its holders can send it back (withdrawals).
  if (r.bridgeType === 'chaina-chainb') await ensureWarpRoute(routeToken('chaina-chainb', r.token)!);
  const { txHash } = await bridgeMint({
    token: token.address,
    to: r.destAddress,
    amount: BigInt(r.amountUnits),
    messageId: r.messageId,
    symbol: r.token,
    name: r.token,
    decimals: token.decimals,
  });
  await transitionBridge(r.userId, r.id, { from: ['source_confirmed'], to: 'completed', at: clock.now().toISOString(), set: { destTxHash: txHash } });
}

/**
 * Takes one record as far as it can go now: each step re-reads it consistently (the queue is an
 * eventually consistent index, and another relayer may have moved it), at most one step per state.
 */
export async function relayBridge(userId: string, id: string): Promise<void> {
  let r = await readBridge(userId, id);
  for (let steps = 0; r && steps < 3; steps++) {
    const before = r.status;
    if (before === 'pending' && Date.parse(r.expiresAt) > clock.nowMs()) return;
    if (before === 'pending') await expireIfDue(r);
    else if (before === 'submitted') await confirmSource(r);
    else if (before === 'source_confirmed') await deliver(r);
    else return;
    r = await readBridge(userId, id);
    if (r?.status === before) return; // nothing to do yet (or the source is still unconfirmed)
  }
}
