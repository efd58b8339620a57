import { ChainBRejected, ChainBReverted, type ChainB, type StoredInvoke } from './port.ts';

/**
 * What chain B says of an INVOKE recorded before it was sent (its hash, account and nonce): the
 * one rule by which its value moves are settled (lib/moves/chain-b.ts), never a timeout.
 *
 * - ACCEPTED in a block: SUCCEEDED → landed; REVERTED → failed (it ran: its fee charged, its nonce used);
 * - REJECTED → failed (it never ran: nothing moved, its nonce unused);
 * - unknown to the node, and the account's nonce already past its own: the nonce is taken, by this
 *   transaction or by another. A node's NOT_RECEIVED does not tell which: behind a provider's load
 *   balancer each call may reach another node, and one behind the rest has not seen the last blocks.
 *   The block that took the nonce tells, the same on every node that has it: found by the nonce at
 *   past blocks (a node without a block answers BLOCK_NOT_FOUND, never an older nonce), this
 *   transaction in it → what its status says (pending while a node says it does not know it);
 *   another in its place → expired, it can never be included;
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
  return byTheBlockThatTookTheNonce(chain, t);
}

async function byTheBlockThatTookTheNonce(chain: ChainB, t: { txHash: string; account: string; nonce: bigint }): Promise<ChainBSettlement> {
  const head = await chain.blockNumber();
  // A node behind the one that answered the nonce: the next pass asks again.
  if ((await chain.getNonce(t.account, head)) <= t.nonce) return { kind: 'pending' };
  // The first block after which the account's nonce is past this one's: the transaction with this nonce is in it.
  let lo = 0;
  let hi = head;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await chain.getNonce(t.account, mid)) > t.nonce) hi = mid;
    else lo = mid + 1;
  }
  const mine = BigInt(t.txHash);
  if (!(await chain.blockTransactionHashes(lo)).some((h) => BigInt(h) === mine)) return { kind: 'expired' };
  const seen = await decided(chain, t.txHash);
  return seen === 'NOT_RECEIVED' ? { kind: 'pending' } : seen;
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
