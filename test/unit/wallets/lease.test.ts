import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTable, type TestTable } from '../../support/dynamo-table.ts';

/** The signing lease against DynamoDB Local: conditional writes with an expiry. */
let table: TestTable;
let repo: typeof import('#lib/data/wallets.ts');
let clock: typeof import('#lib/clock.ts');

beforeAll(async () => {
  table = await startTable();
  repo = await import('#lib/data/wallets.ts');
  clock = await import('#lib/clock.ts');
});
afterAll(async () => {
  clock?.resetClock();
  await table?.stop();
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
