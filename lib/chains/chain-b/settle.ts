import { ChainBRejected, ChainBReverted, type ChainB, type StoredInvoke } from './port.ts';

/**
 * What chain B says of an INVOKE recorded before it was sent (its hash, account and nonce): the
 * one rule by which its value moves are settled (lib/moves/chain-b.ts), never a timeout.
 *
 * - ACCEPTED in a block: SUCCEEDED → landed; REVERTED → failed (it ran: its fee charged, its nonce used);
 * - REJECTED → failed (it never ran: nothing moved, its nonce unused);
 * - unknown to the node, and the account's nonce already past its own → expired: another
 *   transaction of the account took that nonce, so this one can never be included. The nonce is
 *   read first and the status again after it, so a transaction included in between is seen;
 * - unknown to the node with its nonce unused: it never arrived (lost on its way, its sender gone),
 *   so the signed INVOKE is sent again unchanged — the same hash — and what chain B says of it then
 *   decides (a refusal changes nothing: it stays pending, and expires once another takes its nonce);
 * - otherwise (RECEIVED, or unknown after the resend) → pending.
 */
export type ChainBSettlement = { kind: 'landed' } | { kind: 'failed'; failure: 'reverted' | 'rejected' } | { kind: 'expired' } | { kind: 'pending' };

export async function settleChainB(chain: ChainB, t: { txHash: string; account: string; nonce: bigint; invoke?: StoredInvoke }): Promise<ChainBSettlement> {
  const first = await decided(chain, t.txHash);
  if (first !== 'NOT_RECEIVED') return first;
  if ((await chain.getNonce(t.account)) <= t.nonce) {
    if (!t.invoke) return { kind: 'pending' }; // recorded before the journal kept the INVOKE
    try {
      await chain.resend({ sender: t.account, nonce: t.nonce, invoke: t.invoke });
    } catch (e) {
      if (!(e instanceof ChainBRejected || e instanceof ChainBReverted)) throw e;
    }
    const resent = await decided(chain, t.txHash);
    return resent === 'NOT_RECEIVED' ? { kind: 'pending' } : resent;
  }
  const again = await decided(chain, t.txHash);
  return again === 'NOT_RECEIVED' ? { kind: 'expired' } : again;
}

async function decided(chain: ChainB, txHash: string): Promise<ChainBSettlement | 'NOT_RECEIVED'> {
  const status = await chain.getTransactionStatus(txHash);
  if (status === 'NOT_RECEIVED') return status;
  if (status === 'REJECTED') return { kind: 'failed', failure: 'rejected' };
  if (status === 'RECEIVED') return { kind: 'pending' };
  const tx = await chain.getTransaction(txHash);
  if (!tx) return { kind: 'pending' }; // accepted, its receipt not served yet
  return tx.status === 'SUCCEEDED' ? { kind: 'landed' } : { kind: 'failed', failure: 'reverted' };
}
