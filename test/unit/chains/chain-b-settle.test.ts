import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainBRejected, ChainBUnavailable, type ChainB, type ChainBTransaction, type ChainBTxStatus } from '#lib/chains/chain-b/port.ts';
import { settleChainB } from '#lib/chains/chain-b/settle.ts';

/**
 * The rule by which chain B settles a journaled move (lib/chains/chain-b/settle.ts), against a
 * node whose answers are scripted: only what chain B says decides, and a transaction unknown to
 * the node expires only once the block that took its nonce holds another transaction (a node's
 * NOT_RECEIVED may come from one behind the node that answered the nonce).
 */
const HASH = `0x${'ab'.repeat(32)}`;
const ACCOUNT = `0x${'01'.repeat(32)}`;

/**
 * A scripted node. `statuses`: what the status of HASH reads as, call by call (the last one
 * repeats); `nonce`: the account's nonce at the latest block. `blocks`: the chain's blocks
 * (index = number), each the transactions of the account it holds as [hash, nonce after]; the
 * nonce at a past block and a block's hashes come from them.
 */
function node(script: {
  statuses: ChainBTxStatus[];
  tx?: Partial<ChainBTransaction> | null;
  nonce?: bigint;
  blocks?: [string, bigint][][];
  onNonce?: () => void;
}) {
  const calls: string[] = [];
  const blocks = script.blocks ?? [];
  const chain = {
    async getTransactionStatus(hash: string) {
      calls.push(`status ${hash === HASH}`);
      return script.statuses.length > 1 ? script.statuses.shift()! : script.statuses[0]!;
    },
    async getTransaction() {
      calls.push('tx');
      return script.tx === undefined || script.tx === null ? null : ({ status: 'SUCCEEDED', ...script.tx } as ChainBTransaction);
    },
    async getNonce(address: string, block?: number) {
      if (block === undefined) {
        calls.push(`nonce ${address === ACCOUNT}`);
        script.onNonce?.();
        return script.nonce ?? 0n;
      }
      calls.push(`nonce@${block}`);
      if (block >= blocks.length) throw new ChainBUnavailable(`BLOCK_NOT_FOUND ${block}`);
      return blocks.slice(0, block + 1).reduce((n, b) => b.reduce((_, [, after]) => after, n), 0n);
    },
    async blockNumber() {
      calls.push('head');
      return blocks.length - 1;
    },
    async blockTransactions(block: number) {
      calls.push(`block ${block}`);
      let before = blocks.slice(0, block).reduce((n, b) => b.reduce((_, [, after]) => after, n), 0n);
      return blocks[block]!.map(([hash, after]) => {
        const tx = { hash, sender: ACCOUNT, nonce: before };
        before = after;
        return tx;
      });
    },
  } as unknown as ChainB;
  return { chain, calls };
}
const OTHER = `0x${'cd'.repeat(32)}`;
/** Blocks 0–9; the transaction taking nonce 5 (→ 6) in block 7. */
const chainWith = (hash: string): [string, bigint][][] =>
  Array.from({ length: 10 }, (_, i) => (i === 3 ? [[`0x${'11'.repeat(32)}`, 5n]] : i === 7 ? [[hash, 6n]] : []));
const settle = (chain: ChainB, nonce = 5n) => settleChainB(chain, { txHash: HASH, account: ACCOUNT, nonce });

describe('settleChainB', () => {
  it('ACCEPTED: SUCCEEDED is landed, REVERTED is failed (reverted); accepted without a receipt yet is pending', async () => {
    expect(await settle(node({ statuses: ['ACCEPTED'], tx: { status: 'SUCCEEDED' } }).chain)).toEqual({ kind: 'landed' });
    expect(await settle(node({ statuses: ['ACCEPTED'], tx: { status: 'REVERTED' } }).chain)).toEqual({ kind: 'failed', failure: 'reverted' });
    expect(await settle(node({ statuses: ['ACCEPTED'], tx: null }).chain)).toEqual({ kind: 'pending' });
  });

  it('REJECTED with its nonce unused is failed (rejected); with its nonce used, the block that took it decides; RECEIVED is pending, whatever the nonce', async () => {
    expect(await settle(node({ statuses: ['REJECTED'] }).chain)).toEqual({ kind: 'failed', failure: 'rejected' });
    // A node's REJECTED (of a copy it refused) for a transaction in the chain: never failed, which would free its key.
    expect(await settle(node({ statuses: ['REJECTED'], nonce: 6n, blocks: chainWith(HASH) }).chain)).toEqual({ kind: 'pending' });
    const known = node({ statuses: ['REJECTED', 'ACCEPTED'], tx: { status: 'SUCCEEDED' }, nonce: 6n, blocks: chainWith(HASH) });
    expect(await settle(known.chain)).toEqual({ kind: 'landed' });
    expect(await settle(node({ statuses: ['REJECTED'], nonce: 6n, blocks: chainWith(OTHER) }).chain)).toEqual({ kind: 'expired' });
    const received = node({ statuses: ['RECEIVED'], nonce: 9n });
    expect(await settle(received.chain)).toEqual({ kind: 'pending' });
    expect(received.calls).toEqual(['status true']);
  });

  it('unknown to the node: pending while the nonce is not past its own; expired once the block that took it holds another transaction', async () => {
    for (const nonce of [0n, 5n]) expect(await settle(node({ statuses: ['NOT_RECEIVED'], nonce }).chain)).toEqual({ kind: 'pending' });
    const past = node({ statuses: ['NOT_RECEIVED'], nonce: 6n, blocks: chainWith(OTHER) });
    expect(await settle(past.chain)).toEqual({ kind: 'expired' });
    // the nonce at the head, then back in doubling steps and halving to the block that took it (7), whose transactions decide
    expect(past.calls).toEqual(['status true', 'nonce true', 'head', 'nonce@9', 'nonce@8', 'nonce@7', 'nonce@5', 'nonce@6', 'block 7']);
  });

  it('answers that do not add up (the block found holds no transaction of the account with that nonce: a node that clamped a block number) decide nothing', async () => {
    const clamped = node({ statuses: ['NOT_RECEIVED'], nonce: 6n, blocks: chainWith(OTHER) });
    const real = clamped.chain.blockTransactions.bind(clamped.chain);
    clamped.chain.blockTransactions = async (b) => (await real(b)).map((tx) => ({ ...tx, nonce: 99n }));
    expect(await settle(clamped.chain)).toEqual({ kind: 'pending' });
  });

  it('a node behind says NOT_RECEIVED of a transaction that took the nonce (another node answered the nonce): never expired', async () => {
    // Its block holds it: what its status says then, pending while the node asked still does not know it.
    const behind = node({ statuses: ['NOT_RECEIVED'], nonce: 6n, blocks: chainWith(HASH) });
    expect(await settle(behind.chain)).toEqual({ kind: 'pending' });
    const caughtUp = node({ statuses: ['NOT_RECEIVED', 'ACCEPTED'], tx: { status: 'SUCCEEDED' }, nonce: 6n, blocks: chainWith(HASH) });
    expect(await settle(caughtUp.chain)).toEqual({ kind: 'landed' });
    const reverted = node({ statuses: ['NOT_RECEIVED', 'ACCEPTED'], tx: { status: 'REVERTED' }, nonce: 6n, blocks: chainWith(HASH) });
    expect(await settle(reverted.chain)).toEqual({ kind: 'failed', failure: 'reverted' });
    // Included, and a node answers REJECTED (a copy of it it refused): it ran, so that decides nothing.
    const rejectedCopy = node({ statuses: ['NOT_RECEIVED', 'REJECTED'], nonce: 6n, blocks: chainWith(HASH) });
    expect(await settle(rejectedCopy.chain)).toEqual({ kind: 'pending' });
    // The head read from a node behind the one that answered the nonce: its nonce there not past ours, pending.
    const headBehind = node({ statuses: ['NOT_RECEIVED'], nonce: 6n, blocks: chainWith(HASH).slice(0, 5) });
    expect(await settle(headBehind.chain)).toEqual({ kind: 'pending' });
  });

  /**
   * Chains of random histories read through a load balancer: each call reaches a node some blocks
   * behind the latest (its own head, nonces and transactions; a block past it is BLOCK_NOT_FOUND).
   * Whatever the nodes, a transaction in the chain is never expired; read from nodes up to date,
   * it is landed, and one whose nonce another transaction took is expired.
   */
  it('through nodes of different heads: never expired when it is in the chain; decided once the nodes are up to date', async () => {
    const history = fc.record({
      // The account's transactions, nonce i in block blocks[i] (ascending), ours at nonce `ours` if `landed`.
      gaps: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
      ours: fc.nat(),
      landed: fc.boolean(),
      tail: fc.integer({ min: 0, max: 5 }),
      lags: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 40 }),
    });
    await fc.assert(
      fc.asyncProperty(history, async (h) => {
        const nonce = h.ours % h.gaps.length;
        const inBlock: number[] = [];
        for (const g of h.gaps) inBlock.push((inBlock.at(-1) ?? 0) + 1 + g);
        const head = inBlock.at(-1)! + h.tail;
        const hashOf = (i: number) => (i === nonce && h.landed ? HASH : `0x${(i + 1).toString(16).padStart(64, '0')}`);
        const chainThrough = (lags: number[]) => {
          let call = 0;
          const view = () => head - lags[call++ % lags.length]!;
          const at = (b: number, top: number) => {
            if (b > top) throw new ChainBUnavailable(`BLOCK_NOT_FOUND ${b}`);
            return BigInt(inBlock.filter((x) => x <= b).length);
          };
          const ourBlock = h.landed ? inBlock[nonce]! : Infinity;
          return {
            async getTransactionStatus() {
              return ourBlock <= view() ? 'ACCEPTED' : 'NOT_RECEIVED';
            },
            async getTransaction() {
              return ourBlock <= view() ? ({ status: 'SUCCEEDED' } as ChainBTransaction) : null;
            },
            async getNonce(_a: string, block?: number) {
              const top = view();
              return at(block ?? top, top);
            },
            async blockNumber() {
              return view();
            },
            async blockTransactions(b: number) {
              if (b > view()) throw new ChainBUnavailable(`BLOCK_NOT_FOUND ${b}`);
              return inBlock.flatMap((x, i) => (x === b ? [{ hash: hashOf(i), sender: ACCOUNT, nonce: BigInt(i) }] : []));
            },
            async resend() {
              throw new ChainBRejected('NONCE', 'invalid transaction nonce'); // the nonce is taken on the chain
            },
          } as unknown as ChainB;
        };
        const t = { txHash: HASH, account: ACCOUNT, nonce: BigInt(nonce), invoke: {} as never };
        const through = await settleChainB(chainThrough(h.lags), t).catch((e: unknown) => {
          if (e instanceof ChainBUnavailable) return { kind: 'unavailable' as const }; // the pass logs it and asks again
          throw e;
        });
        expect(h.landed ? ['landed', 'pending', 'unavailable'] : ['expired', 'pending', 'unavailable']).toContain(through.kind);
        expect(await settleChainB(chainThrough([0]), t)).toEqual({ kind: h.landed ? 'landed' : 'expired' });
      }),
      { numRuns: 300, seed: 39 },
    );
  });
});
