import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createNote, noteCommitment } from '#lib/client/transfer-note.ts';
import { advanceClock } from '#lib/clock.ts';
import type { Accrual } from '#lib/data/rewards-ledger.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';
import { feeOf } from '../support/fees.ts';

/**
 * Reward accruals that fail after their source transaction is confirmed are not lost: the accrual
 * is noted as owed first (the outbox), and the retry job records it later, exactly once. The
 * fault is real: the store's accrual write (lib/data/rewards-ledger.ts `recordAccrual`, the runtime
 * runs in this process) throws for the next N calls, as DynamoDB would when it is down; everything
 * else — the swap, the deposit, the chain, the outbox — is the real thing.
 */
const faults = vi.hoisted(() => ({ failNext: 0, calls: 0, owedPutsToPass: 0, owedPutsToFail: 0 }));
vi.mock('#lib/data/rewards-ledger.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('#lib/data/rewards-ledger.ts')>();
  return {
    ...real,
    recordAccrual: async (a: Accrual) => {
      faults.calls++;
      if (faults.failNext > 0) {
        faults.failNext--;
        throw new Error('the accrual write was killed by the test');
      }
      return real.recordAccrual(a);
    },
    putOwed: async (o: Parameters<typeof real.putOwed>[0]) => {
      if (faults.owedPutsToPass > 0) faults.owedPutsToPass--;
      else if (faults.owedPutsToFail > 0) {
        faults.owedPutsToFail--;
        throw new Error('the owed note was killed by the test');
      }
      return real.putOwed(o);
    },
  };
});

let rt: TestRuntime;
let alice: HttpClient;
let aliceUserId: string;
let wallet: { id: string; address: string };

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};
const ledger = async () => ok(await alice.get('/api/rewards/ledger')).entries as { source: string; txHash: string; points: number; basis: string }[];

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = rt.client();
  aliceUserId = (await signedInUser(alice)).user.id;
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  ok(await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 }));
  for (let attempt = 1; ; attempt++) {
    const warm = await alice.get('/api/transfer/pools');
    if (warm.status === 200) break;
    if (warm.status !== 503 || attempt === 4) throw new Error(`pools: ${warm.status} ${JSON.stringify(warm.json)}`);
    await new Promise((wait) => setTimeout(wait, 2_000));
  }
}, 120_000);
afterAll(async () => {
  faults.failNext = 0;
  faults.owedPutsToFail = 0;
  await rt?.stop();
});
beforeEach(() => advanceClock(61_000));

describe('an accrual killed after a confirmed swap and a confirmed deposit', () => {
  let swapTx: string;
  let depositTx: string;

  it('the swap and the deposit still succeed; their points are owed, not recorded', async () => {
    const q = ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'sUSD', amount: 1, slippageBps: 100 }));
    faults.failNext = 1;
    const x = ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
    expect(faults.failNext).toBe(0); // the accrual was attempted, and killed
    swapTx = x.txHash;

    faults.failNext = 1;
    const d = ok(await alice.post('/api/transfer/deposit', { pool: 'sol-0.1', walletId: wallet.id, commitment: await noteCommitment(createNote('sol-0.1')) }));
    expect(faults.failNext).toBe(0);
    expect(d.deposit.status).toBe('complete');
    depositTx = d.deposit.txHash;

    expect((await ledger()).filter((e) => e.txHash === swapTx || e.txHash === depositTx)).toEqual([]);
    // fresh: the retry job leaves them to the request for now
    const { retryAccrualsOnce } = await import('#lib/rewards/accrue.ts');
    expect((await retryAccrualsOnce()).seen).toBe(0);
  });

  it('the retry job records each owed accrual exactly once, whether it fails itself or runs three times at once', async () => {
    const { retryAccrualsOnce, ACCRUAL_RETRY_AFTER_MS } = await import('#lib/rewards/accrue.ts');
    // the job itself fails once too: the note stays for the next pass
    advanceClock(ACCRUAL_RETRY_AFTER_MS + 1_000);
    faults.failNext = 1;
    const first = await retryAccrualsOnce();
    expect(first.failures).toBeGreaterThanOrEqual(1);

    const passes = await Promise.all([1, 2, 3].map(() => retryAccrualsOnce()));
    expect(passes.reduce((n, p) => n + p.recorded, 0) + first.recorded).toBe(2);
    const mine = (await ledger()).filter((e) => e.txHash === swapTx || e.txHash === depositTx);
    expect(mine).toHaveLength(2);
    expect(mine).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'swap', txHash: swapTx, points: (await feeOf(swapTx)).points, basis: (await feeOf(swapTx)).fee.toString() }),
        expect.objectContaining({
          source: 'shielded-deposit',
          txHash: depositTx,
          points: (await feeOf(depositTx)).points,
          basis: (await feeOf(depositTx)).fee.toString(),
        }),
      ]),
    );
    // nothing is owed any more: a later pass finds nothing, and the ledger stays as it is
    advanceClock(61_000);
    expect((await retryAccrualsOnce()).seen).toBe(0);
    expect((await ledger()).filter((e) => e.txHash === swapTx || e.txHash === depositTx)).toHaveLength(2);
    expect(ok(await alice.get('/api/rewards/me')).points).toBe((await feeOf(swapTx)).points + (await feeOf(depositTx)).points);
  });

  it('a crash after the send: the late note and the accrual both killed, the note written before the send keeps it owed', async () => {
    const q = ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 100 }));
    // the first note (before the send) passes; the one after the confirmation fails, and so does the accrual
    faults.owedPutsToPass = 1;
    faults.owedPutsToFail = 1;
    faults.failNext = 1;
    const x = ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
    expect([faults.owedPutsToPass, faults.owedPutsToFail, faults.failNext]).toEqual([0, 0, 0]);
    expect((await ledger()).filter((e) => e.txHash === x.txHash)).toEqual([]);
    const { retryAccrualsOnce, ACCRUAL_RETRY_AFTER_MS } = await import('#lib/rewards/accrue.ts');
    advanceClock(ACCRUAL_RETRY_AFTER_MS + 1_000);
    await Promise.all([retryAccrualsOnce(), retryAccrualsOnce()]);
    expect((await ledger()).filter((e) => e.txHash === x.txHash)).toEqual([
      expect.objectContaining({ source: 'swap', points: (await feeOf(x.txHash)).points, basis: (await feeOf(x.txHash)).fee.toString() }),
    ]);
  });

  it('a noted transaction the chain never saw earns nothing: kept a while, then dropped', async () => {
    const { noteOwed, retryAccrualsOnce, OWED_UNSEEN_DROP_MS } = await import('#lib/rewards/accrue.ts');
    const { Keypair } = await import('@solana/web3.js');
    const bs58 = (await import('bs58')).default;
    // a well-formed signature of a transaction that was never sent
    const never = bs58.encode(Keypair.generate().secretKey);
    await noteOwed({ userId: aliceUserId, source: 'swap', txHash: never });
    advanceClock(61_000);
    expect(await retryAccrualsOnce()).toMatchObject({ seen: 1, unseen: 1, recorded: 0 });
    advanceClock(OWED_UNSEEN_DROP_MS);
    expect(await retryAccrualsOnce()).toMatchObject({ seen: 1, dropped: 1, recorded: 0 });
    expect((await retryAccrualsOnce()).seen).toBe(0);
    expect((await ledger()).filter((e) => e.txHash === never)).toEqual([]);
  });

  it('a deposit retried with its idempotency key and accrued again from everywhere still counts once', async () => {
    const { accrue, accrueAfter } = await import('#lib/rewards/accrue.ts');
    const key = { headers: { 'idempotency-key': 'deposit-once-1' } };
    const body = { pool: 'sol-0.1', walletId: wallet.id, commitment: await noteCommitment(createNote('sol-0.1')) };
    const [a, b] = [ok(await alice.post('/api/transfer/deposit', body, key)), ok(await alice.post('/api/transfer/deposit', body, key))];
    expect(b.deposit.txHash).toBe(a.deposit.txHash);
    const again = await Promise.all([...[1, 2, 3].map(() => accrue({ userId: aliceUserId, source: 'shielded-deposit', txHash: a.deposit.txHash }))]);
    expect(again.filter((r) => r.recorded)).toHaveLength(0);
    await accrueAfter({ userId: aliceUserId, source: 'shielded-deposit', txHash: a.deposit.txHash });
    expect((await ledger()).filter((e) => e.txHash === a.deposit.txHash)).toEqual([
      expect.objectContaining({ source: 'shielded-deposit', points: (await feeOf(a.deposit.txHash)).points }),
    ]);
    expect(ok(await alice.get('/api/rewards/me')).points).toBe((await ledger()).reduce((n, e) => n + e.points, 0));
  });
});
