import { ChainBRejected, ChainBReverted, type ChainB, type StoredInvoke } from './port.ts';

/**
 * What chain B says of an INVOKE recorded before it was sent (its hash, account and nonce): the
 * one rule by which its value moves are settled (lib/moves/chain-b.ts), never a timeout.
 *
 * - ACCEPTED in a block: SUCCEEDED → landed; REVERTED → failed (it ran: its fee charged, its nonce used);
 * - REJECTED, its nonce unused → failed (it never ran: nothing moved). With its nonce used, a node's
 *   REJECTED (a copy it refused, say) does not tell: the block that took the nonce does, as below;
 * - unknown to the node, and the account's nonce already past its own: the nonce is taken, by this
 *   transaction or by another. A node's NOT_RECEIVED does not tell which: behind a provider's load
 *   balancer each call may reach another node, and one behind the rest has not seen the last blocks.
 *   The block that took the nonce tells, the same on every node that has it: found by the nonce at
 *   past blocks (a node without a block answers BLOCK_NOT_FOUND, never an older nonce), this
 *   transaction in it → what its status says (pending while a node says it does not know it, or
 *   REJECTED); the account's transaction with that nonce there another one → expired, it can never
 *   be included; neither found → pending (answers that do not add up decide nothing);
 * - unknown to the node with its nonce unused: it never arrived (lost on its way, its sender gone),
 *   so the signed INVOKE is sent again unchanged — the same hash — and what chain B says of it then
 *   decides (a refusal changes nothing: it stays pending, and expires once another takes its nonce);
 * - otherwise (RECEIVED, or unknown after the resend) → pending.
 */
export type ChainBSettlement = { kind: 'landed' } | { kind: 'failed'; failure: 'reverted' | 'rejected' } | { kind: 'expired' } | { kind: 'pending' };

export async function settleChainB(chain: ChainB, t: { txHash: string; account: string; nonce: bigint; invoke?: StoredInvoke }): Promise<ChainBSettlement> {
  const first = await decided(chain, t.txHash);
  const rejected = first !== 'NOT_RECEIVED' && first.kind === 'failed' && first.failure === 'rejected';
  if (first !== 'NOT_RECEIVED' && !rejected) return first;
  const nonceUnused = (await chain.getNonce(t.account)) <= t.nonce;
  if (rejected) return nonceUnused ? first : byTheBlockThatTookTheNonce(chain, t);
  if (nonceUnused) {
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
  const taken = async (block: number) => block >= 0 && (await chain.getNonce(t.account, block)) > t.nonce;
  // A node behind the one that answered the nonce: the next pass asks again.
  if (!(await taken(head))) return { kind: 'pending' };
  // The first block after which the account's nonce is past this one's: back from the head in
  // doubling steps (recent blocks, which a node that prunes history still has), then halving.
  let hi = head;
  let lo = head - 1;
  for (let step = 1; await taken(lo); step *= 2) [hi, lo] = [lo, Math.max(-1, head - 2 * step)];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await taken(mid)) hi = mid;
    else lo = mid;
  }
  // Expired only on the block's own word: the account's transaction with this nonce in it, another one.
  // Answers that do not add up (a node that clamped a block number) decide nothing.
  const account = BigInt(t.account);
  const took = (await chain.blockTransactions(hi)).find((x) => x.sender !== undefined && BigInt(x.sender) === account && x.nonce === t.nonce);
  if (!took) return { kind: 'pending' };
  if (BigInt(took.hash) !== BigInt(t.txHash)) return { kind: 'expired' };
  // In the block, it ran: a node's NOT_RECEIVED (behind) or REJECTED (a copy it refused) waits for one that knows.
  const seen = await decided(chain, t.txHash);
  return seen === 'NOT_RECEIVED' || (seen.kind === 'failed' && seen.failure === 'rejected') ? { kind: 'pending' } : seen;
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
