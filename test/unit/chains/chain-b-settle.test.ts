import { describe, expect, it } from 'vitest';
import type { ChainB, ChainBTransaction, ChainBTxStatus } from '#lib/chains/chain-b/port.ts';
import { settleChainB } from '#lib/chains/chain-b/settle.ts';

/**
 * The rule by which chain B settles a journaled move (lib/chains/chain-b/settle.ts), against a
 * node whose answers are scripted: only what chain B says decides, and a transaction unknown to
 * the node expires only once the account's nonce, read before its status is asked again, is past its own.
 */
const HASH = `0x${'ab'.repeat(32)}`;
const ACCOUNT = `0x${'01'.repeat(32)}`;

function node(script: { statuses: ChainBTxStatus[]; tx?: Partial<ChainBTransaction> | null; nonce?: bigint; onNonce?: () => void }) {
  const calls: string[] = [];
  const chain = {
    async getTransactionStatus(hash: string) {
      calls.push(`status ${hash === HASH}`);
      return script.statuses.length > 1 ? script.statuses.shift()! : script.statuses[0]!;
    },
    async getTransaction() {
      calls.push('tx');
      return script.tx === undefined || script.tx === null ? null : ({ status: 'SUCCEEDED', ...script.tx } as ChainBTransaction);
    },
    async getNonce(address: string) {
      calls.push(`nonce ${address === ACCOUNT}`);
      script.onNonce?.();
      return script.nonce ?? 0n;
    },
  } as unknown as ChainB;
  return { chain, calls };
}
const settle = (chain: ChainB, nonce = 5n) => settleChainB(chain, { txHash: HASH, account: ACCOUNT, nonce });

describe('settleChainB', () => {
  it('ACCEPTED: SUCCEEDED is landed, REVERTED is failed (reverted); accepted without a receipt yet is pending', async () => {
    expect(await settle(node({ statuses: ['ACCEPTED'], tx: { status: 'SUCCEEDED' } }).chain)).toEqual({ kind: 'landed' });
    expect(await settle(node({ statuses: ['ACCEPTED'], tx: { status: 'REVERTED' } }).chain)).toEqual({ kind: 'failed', failure: 'reverted' });
    expect(await settle(node({ statuses: ['ACCEPTED'], tx: null }).chain)).toEqual({ kind: 'pending' });
  });

  it('REJECTED is failed (rejected); RECEIVED is pending, whatever the nonce', async () => {
    expect(await settle(node({ statuses: ['REJECTED'] }).chain)).toEqual({ kind: 'failed', failure: 'rejected' });
    const received = node({ statuses: ['RECEIVED'], nonce: 9n });
    expect(await settle(received.chain)).toEqual({ kind: 'pending' });
    expect(received.calls).toEqual(['status true']);
  });

  it('unknown to the node: pending while the nonce is not past its own, expired once it is', async () => {
    for (const nonce of [0n, 5n]) expect(await settle(node({ statuses: ['NOT_RECEIVED'], nonce }).chain)).toEqual({ kind: 'pending' });
    const past = node({ statuses: ['NOT_RECEIVED'], nonce: 6n });
    expect(await settle(past.chain)).toEqual({ kind: 'expired' });
    // the nonce is read first, the status asked again after it
    expect(past.calls).toEqual(['status true', 'nonce true', 'status true']);
  });

  it('included between the first status and the nonce read: what the second status says, never expired', async () => {
    const late = node({ statuses: ['NOT_RECEIVED', 'ACCEPTED'], tx: { status: 'SUCCEEDED' }, nonce: 6n });
    expect(await settle(late.chain)).toEqual({ kind: 'landed' });
    const reverted = node({ statuses: ['NOT_RECEIVED', 'ACCEPTED'], tx: { status: 'REVERTED' }, nonce: 6n });
    expect(await settle(reverted.chain)).toEqual({ kind: 'failed', failure: 'reverted' });
  });
});
