import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.ts';

/** The signing lease against DynamoDB Local: conditional writes with an expiry. */
let rt: TestRuntime;
let repo: typeof import('#lib/data/wallets.ts');
let clock: typeof import('#lib/clock.ts');

beforeAll(async () => {
  rt = await startTestRuntime();
  repo = await import('#lib/data/wallets.ts');
  clock = await import('#lib/clock.ts');
});
afterAll(async () => {
  clock?.resetClock();
  await rt?.stop();
});

describe('wallet lease', () => {
  it('one holder at a time; released by its owner only; taken over after expiry', async () => {
    expect(await repo.acquireWalletLease('w-1', 'A', 30)).toBe(true);
    expect(await repo.acquireWalletLease('w-1', 'B', 30)).toBe(false);
    await repo.releaseWalletLease('w-1', 'B'); // not B's: nothing happens
    expect(await repo.acquireWalletLease('w-1', 'B', 30)).toBe(false);
    await repo.releaseWalletLease('w-1', 'A');
    expect(await repo.acquireWalletLease('w-1', 'B', 30)).toBe(true);
    clock.advanceClock(31_000);
    expect(await repo.acquireWalletLease('w-1', 'C', 30)).toBe(true);
    await repo.releaseWalletLease('w-1', 'B'); // B's lease expired and was taken: C keeps it
    expect(await repo.acquireWalletLease('w-1', 'D', 30)).toBe(false);
  });

  it('of many simultaneous takers exactly one wins', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => repo.acquireWalletLease('w-2', `o${i}`, 30)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe('withWalletLock with an accrual', () => {
  const wallet = async (id: string) => {
    const w = { id, userId: `user-${id}`, chain: 'a' as const, name: id, address: `addr-${id}`, createdAt: new Date().toISOString(), sealedKey: { vault: 'local', dataKey: 'x', iv: 'x', ciphertext: 'x', tag: 'x' } };
    await repo.insertWallet(w);
    return w;
  };
  /** DynamoDB calls made while `work` runs, by command name. */
  const counting = async <T>(work: () => Promise<T>): Promise<[T, string[]]> => {
    const { dynamo } = await import('#lib/data/client.ts');
    const calls: string[] = [];
    const name = `count-${Math.random()}`;
    dynamo.middlewareStack.add((next, ctx) => (args) => (calls.push(ctx.commandName!), next(args)), { step: 'initialize', name });
    try {
      return [await work(), calls];
    } finally {
      dynamo.middlewareStack.remove(name);
    }
  };

  it('releases the lease, records the slot and the accrual in one transaction after the work', async () => {
    const { withWalletLock } = await import('#lib/wallets/lock.ts');
    const { ledger } = await import('#lib/data/rewards-ledger.ts');
    const w = await wallet('00000000-0000-4000-8000-000000000001');
    const [, calls] = await counting(() => withWalletLock(w, async () => ({ slot: 42, signature: 'tx-one' }), (r) => ({ userId: w.userId, source: 'compression', txHash: r.signature, lamports: 3_000_000n })));
    expect(calls).toEqual(['PutItemCommand', 'TransactWriteItemsCommand']);
    expect((await repo.getWallet(w.userId, w.id))?.lastSlot).toBe(42);
    expect(await repo.acquireWalletLease(w.id, 'next', 30)).toBe(true);
    expect((await ledger(w.userId)).map((e) => [e.txHash, e.points])).toEqual([['tx-one', 3]]);
  });

  it('when a condition fails (the accrual there already, the lease lost) it writes them one by one', async () => {
    const { withWalletLock } = await import('#lib/wallets/lock.ts');
    const { accrue } = await import('#lib/rewards/accrue.ts');
    const { ledger } = await import('#lib/data/rewards-ledger.ts');
    const w = await wallet('00000000-0000-4000-8000-000000000002');
    const earns = (r: { signature: string }) => ({ userId: w.userId, source: 'compression' as const, txHash: r.signature });
    await accrue({ userId: w.userId, source: 'compression', txHash: 'tx-dup' });
    await withWalletLock(w, async () => ({ slot: 7, signature: 'tx-dup' }), earns);
    expect((await repo.getWallet(w.userId, w.id))?.lastSlot).toBe(7);
    expect(await repo.acquireWalletLease(w.id, 'next', 30)).toBe(true);
    await repo.releaseWalletLease(w.id, 'next');

    // the lease expires during the work and another holder takes it: its lease stays, the rest lands
    await withWalletLock(w, async () => {
      clock.advanceClock(10 * 60_000);
      expect(await repo.acquireWalletLease(w.id, 'other', 30)).toBe(true);
      return { slot: 8, signature: 'tx-late' };
    }, earns);
    expect((await repo.getWallet(w.userId, w.id))?.lastSlot).toBe(8);
    expect(await repo.acquireWalletLease(w.id, 'third', 30)).toBe(false);
    expect((await ledger(w.userId)).map((e) => e.txHash).sort()).toEqual(['tx-dup', 'tx-late']);
  });
});
