import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTable, type TestTable } from '../support/dynamo-table.ts';

/**
 * The leased rate limiter against DynamoDB Local. Each RateLimiter is one function instance's
 * lease state; two of them in one test play two instances drawing from one counter.
 */
let table: TestTable;
let rate: typeof import('#lib/http/rate-limit.ts');
let counters: typeof import('#lib/data/rate-counters.ts');
let items: typeof import('#lib/data/items.ts');
let data: typeof import('#lib/data/client.ts');
let clock: typeof import('#lib/clock.ts');

beforeAll(async () => {
  table = await startTable();
  rate = await import('#lib/http/rate-limit.ts');
  counters = await import('#lib/data/rate-counters.ts');
  items = await import('#lib/data/items.ts');
  data = await import('#lib/data/client.ts');
  clock = await import('#lib/clock.ts');
});
afterAll(async () => {
  clock?.resetClock();
  await table?.stop();
});
afterEach(() => vi.restoreAllMocks());

/** Move to the start of a fresh window (plus a second), so a test's hits share one window. */
function freshWindow(): number {
  const now = clock.clock.nowSeconds();
  clock.advanceClock((rate.WINDOW_SECONDS - (now % rate.WINDOW_SECONDS) + 1) * 1000);
  const t = clock.clock.nowSeconds();
  return t - (t % rate.WINDOW_SECONDS);
}

async function storedCount(group: string, client: string, windowStart: number): Promise<number | undefined> {
  const item = await items.getItem(counters.rateCounterKey(group, client, windowStart));
  return item?.count as number | undefined;
}

describe('leased rate limits', () => {
  it('admit exactly `limit` of parallel hits on one instance, and the counter stops at the limit', async () => {
    const window = freshWindow();
    const limiter = new rate.RateLimiter();
    const results = await Promise.all(Array.from({ length: 150 }, () => limiter.hit('rl-one', 'ip:1', 97)));
    expect(results.filter((r) => !r.exceeded)).toHaveLength(97);
    expect(results.filter((r) => r.exceeded).every((r) => r.remaining === 0)).toBe(true);
    // Every admitted hit saw a different remaining count: 96 down to 0.
    expect(
      results
        .filter((r) => !r.exceeded)
        .map((r) => r.remaining)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 97 }, (_, i) => i));
    expect(await storedCount('rl-one', 'ip:1', window)).toBe(97);
  });

  it('never admit more than `limit` across two instances, whatever the interleaving', async () => {
    for (const limit of [1, 7, 40, 300]) {
      const window = freshWindow();
      const a = new rate.RateLimiter();
      const b = new rate.RateLimiter();
      // Instance A warms up alone first (its leases grow), then both race.
      const warm = await Promise.all(Array.from({ length: Math.floor(limit / 2) }, () => a.hit('rl-two', 'ip:1', limit)));
      const race = await Promise.all(Array.from({ length: 2 * limit }, (_, i) => (i % 3 === 0 ? a : b).hit('rl-two', 'ip:1', limit)));
      const drainA = await Promise.all(Array.from({ length: limit + 1 }, () => a.hit('rl-two', 'ip:1', limit)));
      const drainB = await Promise.all(Array.from({ length: limit + 1 }, () => b.hit('rl-two', 'ip:1', limit)));
      const admitted = [...warm, ...race, ...drainA, ...drainB].filter((r) => !r.exceeded).length;
      expect(admitted).toBeLessThanOrEqual(limit);
      // Under-admission is bounded: each instance strands at most what its last lease left over.
      expect(admitted).toBeGreaterThanOrEqual(limit - 2 * Math.max(1, Math.floor(limit / 8)));
      // Once the counter is spent, both refuse; the counter itself stops at the limit.
      expect(drainA.at(-1)!.exceeded && drainB.at(-1)!.exceeded).toBe(true);
      expect(await storedCount('rl-two', 'ip:1', window)).toBe(limit);
    }
  });

  it('lease exactly what remains when another instance took most of the window', async () => {
    const window = freshWindow();
    const a = new rate.RateLimiter();
    const b = new rate.RateLimiter();
    for (let i = 0; i < 3; i++) expect((await b.hit('rl-rest', 'ip:1', 10)).exceeded).toBe(false);
    // A's growing leases must stop at the 7 that remain, not overshoot.
    const results = await Promise.all(Array.from({ length: 20 }, () => a.hit('rl-rest', 'ip:1', 10)));
    expect(results.filter((r) => !r.exceeded).length).toBeLessThanOrEqual(7);
    expect(await storedCount('rl-rest', 'ip:1', window)).toBeLessThanOrEqual(10);
  });

  it('go back to DynamoDB only when a lease runs out: a few writes for many hits', async () => {
    freshWindow();
    const limiter = new rate.RateLimiter();
    const send = vi.spyOn(data.db, 'send');
    for (let i = 0; i < 1000; i++) expect((await limiter.hit('rl-few', 'ip:1', 100_000)).exceeded).toBe(false);
    // Leases of 1, 1, 2, 4, ... 512: eleven writes for a thousand hits. Only this counter's calls
    // count (the client is the process's one; with a runtime, its scheduled jobs would use it too).
    const mine = send.mock.calls.filter(([command]) => (command as { input?: { Key?: { pk?: string } } }).input?.Key?.pk === 'RATE#rl-few#ip:1');
    expect(mine.length).toBeLessThanOrEqual(12);
    expect(mine.length).toBeGreaterThan(0);
  });

  it('start over when the window rolls, per client', async () => {
    freshWindow();
    const limiter = new rate.RateLimiter();
    for (let i = 0; i < 3; i++) expect((await limiter.hit('rl-roll', 'ip:1', 3)).exceeded).toBe(false);
    expect((await limiter.hit('rl-roll', 'ip:1', 3)).exceeded).toBe(true);
    expect((await limiter.hit('rl-roll', 'ip:2', 3)).exceeded).toBe(false);
    clock.advanceClock(rate.WINDOW_SECONDS * 1000);
    const next = await limiter.hit('rl-roll', 'ip:1', 3);
    expect(next).toMatchObject({ exceeded: false, remaining: 2, limit: 3 });
  });

  it('report limit, remaining and reset as the headers carry them', async () => {
    freshWindow();
    clock.advanceClock(9_000); // 10 s into the window: 50 s to go
    const limiter = new rate.RateLimiter();
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push(await limiter.hit('rl-headers', 'ip:1', 5));
    expect(seen.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(seen.map((s) => s.exceeded)).toEqual([false, false, false, false, false, true]);
    // 50 s to go, less the seconds this test itself takes on a busy machine.
    expect(seen.every((s) => s.reset > 40 && s.reset <= 50)).toBe(true);
    expect(rate.rateLimitHeaders(seen[1]!)).toEqual({ 'ratelimit-limit': '5', 'ratelimit-remaining': '3', 'ratelimit-reset': String(seen[1]!.reset) });
  });
});

describe('rate counters', () => {
  it('take tokens without passing the limit, granting exactly what remains', async () => {
    const key = counters.rateCounterKey('rc', 'ip:9', freshWindow());
    const ttl = clock.clock.nowSeconds() + 120;
    expect(await counters.takeTokens(key, 4, 10, ttl)).toEqual({ granted: 4, count: 4 });
    expect(await counters.takeTokens(key, 5, 10, ttl)).toEqual({ granted: 5, count: 9 });
    expect(await counters.takeTokens(key, 5, 10, ttl)).toEqual({ granted: 1, count: 10 });
    expect(await counters.takeTokens(key, 1, 10, ttl)).toEqual({ granted: 0, count: 10 });
    const item = await items.getItem(key);
    expect(item).toMatchObject({ count: 10, ttl });
  });
});
