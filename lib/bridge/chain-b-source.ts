import { PublicKey } from '@solana/web3.js';
import { chainB, type ChainBTransaction } from '#lib/chains/chain-b/index.ts';
import { transferRemoteCall, WARP_EVENT_KEYS } from '#lib/chains/chain-b/warp.ts';
import { formatMessage, messageId, sealevelBytes32, starknetBytes32, tokenMessage } from './hyperlane.ts';
import { bridgeRoutes, type HyperlaneToken } from './routes.ts';

/**
 * The source side of a chain B → chain A withdrawal, as Hyperlane's warp route does it: the
 * holder calls `transfer_remote(<chain A domain>, <recipient as u256>, amount, 0, None, None)` on
 * the route's chain B router, which burns the synthetic token and dispatches the message (its id
 * in the Mailbox's DispatchId event). The relayer accepts a transaction only if it SUCCEEDED and
 * carries, from the route's router, SentTransferRemote {destination = chain A, recipient = the
 * record's destAddress, amount = the record's amount}, and the Mailbox's DispatchId equals the id
 * of the message recomputed from those fields and the dispatch nonce.
 */
const { origin, destination } = bridgeRoutes['chaina-chainb'];

/** The chain A recipient as the u256 the warp route takes (its 32 bytes, big-endian). */
export const recipientU256 = (chainAAddress: string): bigint => BigInt(`0x${Buffer.from(new PublicKey(chainAAddress).toBytes()).toString('hex')}`);

/** The call a wallet sends on chain B to withdraw `amount` of the route's token to `to` on chain A. */
export const withdrawCall = (route: HyperlaneToken, to: string, amount: bigint) =>
  transferRemoteCall(route.destinationRouter, origin.domainId, recipientU256(to), amount);

/**
 * On the embedded chain B the warp route's storage exists once its first use enrolls it: the
 * synthetic token, the Mailbox, the local domain and the chain A router (ChainB.prepareWarpRoute).
 * A node (rpc) has the real deployment and does nothing.
 */
export async function ensureWarpRoute(route: HyperlaneToken): Promise<void> {
  await chainB().prepareWarpRoute(route.destinationRouter, {
    token: route.destinationToken,
    mailbox: destination.mailbox,
    localDomain: destination.domainId,
    routers: { [origin.domainId]: `0x${Buffer.from(sealevelBytes32(route.originRouter)).toString('hex')}` },
  });
}

export type WithdrawCheck = { ok: true; messageId: string } | { ok: false; missing: true } | { ok: false; missing: false; reason: string };

const felt = (x: string | undefined) => (x === undefined ? -1n : BigInt(x));
const u256 = (lo: string | undefined, hi: string | undefined) => felt(lo) + (felt(hi) << 128n);

/**
 * Whether `txHash` on chain B is a successful transfer_remote of exactly `amount` to `to` through
 * the route (sent by the account `from`, when the record names the wallet that sent it).
 */
export async function checkWithdraw(txHash: string, route: HyperlaneToken, to: string, amount: bigint, from?: string): Promise<WithdrawCheck> {
  const tx: ChainBTransaction | null = await chainB().getTransaction(txHash);
  if (!tx) return { ok: false, missing: true };
  if (from !== undefined && BigInt(tx.sender) !== BigInt(from))
    return { ok: false, missing: false, reason: "the source transaction was not sent by the record's chain B wallet" };
  if (tx.status !== 'SUCCEEDED')
    return { ok: false, missing: false, reason: `the source transaction reverted on chain B${tx.revertReason ? `: ${tx.revertReason}` : ''}` };
  const router = BigInt(route.destinationRouter);
  const recipient = recipientU256(to);
  const sent = tx.events.findIndex(
    (e) =>
      BigInt(e.fromAddress) === router &&
      felt(e.keys[0]) === BigInt(WARP_EVENT_KEYS.sentTransferRemote) &&
      felt(e.keys[1]) === BigInt(origin.domainId) &&
      u256(e.keys[2], e.keys[3]) === recipient &&
      u256(e.data[0], e.data[1]) === amount,
  );
  if (sent < 0)
    return {
      ok: false,
      missing: false,
      reason: "the source transaction is not a transfer_remote of this record's amount to its destAddress through the route",
    };
  // The Dispatch and DispatchId the same call emitted just before its SentTransferRemote.
  const dispatch = tx.events[sent - 2];
  const dispatchId = tx.events[sent - 1];
  const mailbox = BigInt(destination.mailbox);
  if (
    !dispatch ||
    !dispatchId ||
    BigInt(dispatch.fromAddress) !== mailbox ||
    BigInt(dispatchId.fromAddress) !== mailbox ||
    felt(dispatch.keys[0]) !== BigInt(WARP_EVENT_KEYS.dispatch) ||
    felt(dispatchId.keys[0]) !== BigInt(WARP_EVENT_KEYS.dispatchId)
  ) {
    return { ok: false, missing: false, reason: 'the source transaction carries no Mailbox dispatch for the transfer' };
  }
  const id = messageId(
    formatMessage({
      nonce: Number(felt(dispatch.data[1])),
      originDomain: destination.domainId,
      sender: starknetBytes32(route.destinationRouter),
      destinationDomain: origin.domainId,
      recipient: sealevelBytes32(route.originRouter),
      body: tokenMessage(Uint8Array.from(Buffer.from(recipient.toString(16).padStart(64, '0'), 'hex')), amount),
    }),
  );
  if (BigInt(id) !== u256(dispatchId.keys[1], dispatchId.keys[2]))
    return { ok: false, missing: false, reason: 'the dispatched message id does not match the transfer' };
  return { ok: true, messageId: id };
}
