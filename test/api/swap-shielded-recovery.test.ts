import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createNote, noteCommitment } from '#lib/client/transfer-note.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * A swap into a shielded deposit whose bookkeeping fails after the chain took the transaction:
 * nothing is lost. The faults are real failures of the store's writes (lib/data/shielded-pools.ts;
 * the runtime runs in this process): marking the deposit transferred, then appending it to the
 * tree, each fails once. The swap still answers 200 (its transaction landed) with the deposit
 * `transferred`; the transfer retry job finds the journalled deposit, asks the chain about its
 * signature and appends it; its points accrue once.
 */
const faults = vi.hoisted(() => ({ markTransferred: 0, append: 0 }));
vi.mock('#lib/data/shielded-pools.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('#lib/data/shielded-pools.ts')>();
  return {
    ...real,
    markDepositTransferred: async (...a: Parameters<typeof real.markDepositTransferred>) => {
      if (faults.markTransferred > 0) {
        faults.markTransferred--;
        throw new Error('the deposit write was killed by the test');
      }
      return real.markDepositTransferred(...a);
    },
    appendDeposit: async (...a: Parameters<typeof real.appendDeposit>) => {
      if (faults.append > 0) {
        faults.append--;
        throw new Error('the tree append was killed by the test');
      }
      return real.appendDeposit(...a);
    },
  };
});

let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
const POOL = 'sol-0.1';

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  ok(await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 }));
  for (let attempt = 1; ; attempt++) {
    const warm = await alice.get('/api/transfer/pools');
    if (warm.status === 200) break;
    if (warm.status !== 503 || attempt === 4) throw new Error(`pools: ${warm.status} ${JSON.stringify(warm.json)}`);
    await new Promise((wait) => setTimeout(wait, 2_000));
  }
  ok(
    await alice.post('/api/swap/execute', {
      quoteId: ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'sUSD', amount: 1, slippageBps: 100 })).quoteId,
    }),
  );
}, 120_000);
afterAll(async () => {
  faults.markTransferred = 0;
  faults.append = 0;
  await rt?.stop();
});
beforeEach(() => advanceClock(61_000));

async function swapIntoPool(fault: 'markTransferred' | 'append') {
  const commitment = await noteCommitment(createNote(POOL));
  const q = ok(
    await alice.post('/api/swap/quote', {
      walletId: wallet.id,
      from: 'sUSD',
      to: 'SOL',
      amount: 16,
      slippageBps: 100,
      output: { type: 'shielded', pool: POOL, commitment },
    }),
  );
  faults[fault] = 1;
  const x = ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
  expect(faults[fault]).toBe(0); // the write was attempted, and killed
  expect(x.deposit).toEqual({ id: expect.any(String), pool: POOL, commitment, denomination: '100000000', status: 'transferred' });
  return { commitment, txHash: x.txHash as string, depositId: x.deposit.id as string, orderId: q.quoteId as string };
}

describe('the swap landed, its deposit bookkeeping did not', () => {
  it('answers 200 with the deposit transferred, and the retry job appends both, each once, with its points', async () => {
    const a = await swapIntoPool('markTransferred');
    const b = await swapIntoPool('append');
    const leaves = async () => ok(await alice.get(`/api/transfer/pools/${POOL}/leaves`)).leaves as string[];
    expect(await leaves()).not.toContain(a.commitment);
    expect(await leaves()).not.toContain(b.commitment);

    const { retryTransfersOnce } = await import('#lib/transfer/retry.ts');
    advanceClock(31_000);
    const passes = await Promise.all([1, 2].map(() => retryTransfersOnce()));
    expect(passes.reduce((n, p) => n + p.depositsAppended, 0)).toBeGreaterThanOrEqual(2);
    expect(passes.reduce((n, p) => n + p.depositsDropped, 0)).toBe(0);

    const now = await leaves();
    expect(now.filter((l) => l === a.commitment)).toHaveLength(1);
    expect(now.filter((l) => l === b.commitment)).toHaveLength(1);
    const deposits = ok(await alice.get('/api/transfer/deposits')).deposits as { id: string; status: string; txHash: string }[];
    for (const d of [a, b]) expect(deposits.find((x) => x.id === d.depositId)).toMatchObject({ status: 'complete', txHash: d.txHash });
    // the order shows the deposit where it is now
    for (const d of [a, b]) {
      const leafIndex = now.indexOf(d.commitment);
      expect(ok(await alice.get(`/api/swap/orders/${d.orderId}`)).order.deposit).toEqual({
        id: d.depositId,
        pool: POOL,
        commitment: d.commitment,
        denomination: '100000000',
        leafIndex,
        root: expect.any(String),
      });
    }

    const ledger = ok(await alice.get('/api/rewards/ledger')).entries as { source: string; txHash: string }[];
    for (const d of [a, b]) {
      expect(
        ledger
          .filter((e) => e.txHash === d.txHash)
          .map((e) => e.source)
          .sort(),
      ).toEqual(['shielded-deposit', 'swap']);
    }
    // a later pass has nothing left to do
    advanceClock(61_000);
    expect((await retryTransfersOnce()).depositsSeen).toBe(0);
  });

  it('a swap the chain refuses moves nothing: the reservation and the owed points go, the commitment can be used again', async () => {
    // bob: sUSD in a wallet without a lamport to pay the fee (swept there from one of alice's one-time addresses)
    const bob = rt.client();
    const bobId = (await signedInUser(bob)).user.id;
    const bobWallet = (await bob.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
    const x = ok(
      await alice.post('/api/swap/execute', {
        quoteId: ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 100, output: 'one-time' }))
          .quoteId,
      }),
    );
    ok(await alice.post(`/api/swap/addresses/${x.outputAddress}/sweep`, { to: bobWallet.address }));

    const commitment = await noteCommitment(createNote(POOL));
    const body = { walletId: bobWallet.id, from: 'sUSD', to: 'SOL', amount: 16, slippageBps: 100, output: { type: 'shielded', pool: POOL, commitment } };
    const refused = await bob.post('/api/swap/execute', { quoteId: ok(await bob.post('/api/swap/quote', body)).quoteId });
    // refused by the chain itself (signed, journalled and sent: the fee payer has no lamports)
    expect([refused.status, refused.json.error, refused.json.message]).toEqual([
      422,
      'INSUFFICIENT_BALANCE',
      'insufficient balance to cover the amount and its fees',
    ]);
    expect((await bob.get('/api/transfer/deposits')).json.deposits).toEqual([]);
    const { listOwed } = await import('#lib/data/rewards-ledger.ts');
    expect((await listOwed(new Date(Date.now() + 86_400_000 * 365).toISOString())).filter((o) => o.userId === bobId)).toEqual([]);

    // funded, the same commitment goes in
    ok(await bob.post(`/api/wallets/${bobWallet.id}/airdrop`, { amount: 1 }));
    const done = ok(await bob.post('/api/swap/execute', { quoteId: ok(await bob.post('/api/swap/quote', body)).quoteId }));
    expect(done.deposit).toMatchObject({ commitment, status: 'complete' });
  });
});
