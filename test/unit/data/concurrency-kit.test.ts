import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTable } from '../../support/dynamo-table.ts';

/**
 * The concurrency kit (lib/data/conditional.ts, leases.ts, retry.ts) against DynamoDB Local:
 * random schedules of takers, renewals, releases and clock moves checked against a model of the
 * lease; the retry's bounds and its refusal to retry anything but a lost race.
 */
let table: Awaited<ReturnType<typeof startTable>>;
let leases: typeof import('#lib/data/leases.ts');
let conditional: typeof import('#lib/data/conditional.ts');
let retry: typeof import('#lib/data/retry.ts');
let items: typeof import('#lib/data/items.ts');
let clock: typeof import('#lib/clock.ts');

beforeAll(async () => {
  table = await startTable();
  leases = await import('#lib/data/leases.ts');
  conditional = await import('#lib/data/conditional.ts');
  retry = await import('#lib/data/retry.ts');
  items = await import('#lib/data/items.ts');
  clock = await import('#lib/clock.ts');
});
afterAll(async () => {
  clock?.resetClock();
  await table?.stop();
});

const OWNERS = ['A', 'B', 'C'] as const;
type Step =
  | { op: 'acquire'; owner: string; seconds: number }
  | { op: 'renew'; owner: string; seconds: number }
  | { op: 'release'; owner: string }
  | { op: 'handOver'; owner: string; to: string; seconds: number }
  | { op: 'wait'; ms: number };
const owner = fc.constantFrom(...OWNERS);
// Lease terms and waits drawn from the same few values, so schedules often land exactly on an expiry.
const seconds = fc.constantFrom(1, 5, 10, 30);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('acquire' as const), owner, seconds }),
  fc.record({ op: fc.constant('renew' as const), owner, seconds }),
  fc.record({ op: fc.constant('release' as const), owner }),
  fc.record({ op: fc.constant('handOver' as const), owner, to: owner, seconds }),
  fc.record({ op: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 0, max: 40_000 }), fc.constantFrom(1_000, 5_000, 10_000, 30_000)) }),
);

describe('item lease', () => {
  it('matches the model: one live holder, taken over only once expired, changed only by its holder', async () => {
    // Time stands still but for the schedule's waits, so expiry boundaries are hit exactly.
    vi.useFakeTimers({ toFake: ['Date'] });
    let run = 0;
    await fc
      .assert(
        fc.asyncProperty(fc.array(step, { maxLength: 14 }), async (steps) => {
          const key = { pk: `KITLEASE#${run++}`, sk: 'LOCK' };
          // The model: the stored lease (live or not).
          let model: { owner: string; expiresAt: number } | undefined;
          for (const s of steps) {
            const now = clock.clock.nowMs();
            const live = model !== undefined && model.expiresAt >= now;
            if (s.op === 'wait') {
              clock.advanceClock(s.ms);
              continue;
            }
            if (s.op === 'acquire') {
              const got = await leases.acquireLease(key, s.owner, s.seconds);
              expect(got).toBe(!live);
              if (got) model = { owner: s.owner, expiresAt: now + s.seconds * 1000 };
            } else if (s.op === 'renew' || s.op === 'handOver') {
              const to = s.op === 'renew' ? s.owner : s.to;
              const ok = await leases.handOverLease(key, s.owner, to, s.seconds);
              // The holder of record may renew even a lapsed lease that nobody has taken.
              const holds = model?.owner === s.owner;
              expect(ok).toBe(holds);
              if (ok) model = { owner: to, expiresAt: clock.clock.nowMs() + s.seconds * 1000 };
            } else {
              await leases.releaseLease(key, s.owner);
              if (model?.owner === s.owner) model = undefined;
            }
            const liveNow = model !== undefined && model.expiresAt >= clock.clock.nowMs() ? model.owner : undefined;
            expect(await leases.leaseHolder(key)).toBe(liveNow);
          }
        }),
        { numRuns: 60, seed: 3636 },
      )
      .finally(() => vi.useRealTimers());
  });

  it('of many simultaneous takers exactly one wins, and only after expiry another', async () => {
    const key = { pk: 'KITLEASE#race', sk: 'LOCK' };
    const first = await Promise.all(Array.from({ length: 16 }, (_, i) => leases.acquireLease(key, `o${i}`, 5)));
    expect(first.filter(Boolean)).toHaveLength(1);
    clock.advanceClock(6_000);
    const second = await Promise.all(Array.from({ length: 16 }, (_, i) => leases.acquireLease(key, `p${i}`, 5)));
    expect(second.filter(Boolean)).toHaveLength(1);
    expect((await leases.leaseHolder(key))?.startsWith('p')).toBe(true);
  });
});

describe('waiting for an item lease', () => {
  it('gets it once its holder releases it, within the wait; gives up when it is held past the wait', async () => {
    const key = { pk: 'KITLEASE#wait', sk: 'LOCK' };
    expect(await leases.acquireLease(key, 'A', 30)).toBe(true);
    setTimeout(() => void leases.releaseLease(key, 'A'), 300);
    const started = Date.now();
    expect(await leases.acquireLeaseWaiting(key, 'B', 30, 5_000)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await leases.leaseHolder(key)).toBe('B');
    const t = Date.now();
    expect(await leases.acquireLeaseWaiting(key, 'C', 30, 400)).toBe(false);
    expect(Date.now() - t).toBeGreaterThanOrEqual(400);
    expect(await leases.leaseHolder(key)).toBe('B');
  });
});

describe('embedded lease', () => {
  it("guards an entity item: free, held by its owner, taken after expiry; the item's own attributes kept", async () => {
    const key = { pk: 'KITJOB#1', sk: 'JOB' };
    await items.putItem({ ...key, status: 'pending', n: 0 });
    const take = (owner: string, s = 10) => {
      const now = clock.clock.nowMs();
      return conditional.updateIf(
        key,
        conditional.mergeUpdates(leases.embeddedLease.take(leases.leaseFor(owner, s, now)), { add: ['n :one'], values: { ':one': 1 } }),
        leases.embeddedLease.free(now),
      );
    };
    const a = await take('A');
    expect(a && leases.embeddedLease.read(a)?.owner).toBe('A');
    expect(a?.n).toBe(1);
    expect(await take('B')).toBeUndefined();
    expect(await conditional.updateIf(key, leases.embeddedLease.drop(), leases.embeddedLease.heldBy('B'))).toBeUndefined();
    clock.advanceClock(11_000);
    const b = await take('B');
    expect(b && leases.embeddedLease.read(b)?.owner).toBe('B');
    expect(await conditional.updateIf(key, leases.embeddedLease.drop(), leases.embeddedLease.heldBy('A'))).toBeUndefined();
    const dropped = await conditional.updateIf(key, leases.embeddedLease.drop(), leases.embeddedLease.heldBy('B'));
    expect(dropped && leases.embeddedLease.read(dropped)).toBeUndefined();
    expect(dropped?.status).toBe('pending');
    expect(dropped?.n).toBe(2);
  });
});

describe('conditional write', () => {
  it('a failed condition is false / undefined, any other failure is thrown', async () => {
    const key = { pk: 'KITCOND#1', sk: 'X' };
    expect(await conditional.putIf({ ...key, v: 1 }, { ConditionExpression: 'attribute_not_exists(pk)' })).toBe(true);
    expect(await conditional.putIf({ ...key, v: 2 }, { ConditionExpression: 'attribute_not_exists(pk)' })).toBe(false);
    expect(
      await conditional.updateIf(key, { set: ['v = :v'], values: { ':v': 3 } }, { ConditionExpression: 'v = :old', ExpressionAttributeValues: { ':old': 2 } }),
    ).toBeUndefined();
    expect(
      (await conditional.updateIf(key, { set: ['v = :v'], values: { ':v': 3 } }, { ConditionExpression: 'v = :old', ExpressionAttributeValues: { ':old': 1 } }))
        ?.v,
    ).toBe(3);
    expect(await conditional.deleteIf(key, { ConditionExpression: 'v = :x', ExpressionAttributeValues: { ':x': 1 } })).toBe(false);
    expect(await conditional.deleteIf(key, { ConditionExpression: 'v = :x', ExpressionAttributeValues: { ':x': 3 } })).toBe(true);
    // A malformed condition is a bug, not a lost race.
    await expect(conditional.putIf({ ...key, v: 1 }, { ConditionExpression: 'v = :missing' })).rejects.toThrow();
  });

  it('update clauses are joined in order, with their names and values merged', () => {
    const u = conditional.mergeUpdates(
      { set: ['a = :a'], values: { ':a': 1 } },
      { remove: ['b'], set: ['#c = :c'], names: { '#c': 'c' }, values: { ':c': 2 } },
      { add: ['n :one'] },
    );
    expect(conditional.updateExpression(u)).toBe('SET a = :a, #c = :c REMOVE b ADD n :one');
    expect(u.values).toEqual({ ':a': 1, ':c': 2 });
  });
});

describe('optimistic retry', () => {
  const noSleep = { sleep: async () => undefined };
  const conflictError = () =>
    Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] });

  it('pauses with full jitter: within [0, min(cap, base·2^i)]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (i, base, cap, r) => {
          const ms = retry.backoffMs(i, { baseMs: base, capMs: cap }, () => r);
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThanOrEqual(Math.min(cap, base * 2 ** i));
        },
      ),
      { seed: 36 },
    );
  });

  it('retries a lost race until it wins, at most `attempts` times; anything else ends it at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 12 }), fc.boolean(), async (attempts, losses, thrown) => {
        const pauses: number[] = [];
        let calls = 0;
        const run = retry.retryOnConflict(
          async () => {
            calls++;
            if (calls <= losses) {
              if (thrown) throw conflictError();
              return retry.CONFLICT;
            }
            return 'won';
          },
          { attempts, sleep: async (ms) => void pauses.push(ms) },
        );
        if (losses < attempts) {
          expect(await run).toBe('won');
          expect(calls).toBe(losses + 1);
        } else {
          await expect(run).rejects.toThrow(thrown ? 'cancelled' : 'still conflicting');
          expect(calls).toBe(attempts);
        }
        expect(pauses).toHaveLength(calls - 1);
      }),
      { seed: 37 },
    );
  });

  it('does not retry other errors, nor a transaction cancelled by its own condition', async () => {
    let calls = 0;
    await expect(
      retry.retryOnConflict(async () => {
        calls++;
        throw new Error('boom');
      }, noSleep),
    ).rejects.toThrow('boom');
    const own = Object.assign(new Error('cond'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'TransactionConflict' }],
    });
    await expect(
      retry.retryOnConflict(async () => {
        calls++;
        throw own;
      }, noSleep),
    ).rejects.toThrow('cond');
    expect(calls).toBe(2);
    await expect(retry.retryOnConflict(async () => retry.CONFLICT, { ...noSleep, attempts: 2, exhausted: () => new Error('mine') })).rejects.toThrow('mine');
  });

  it('serializes read-modify-write on a real item: no increment lost', async () => {
    const key = { pk: 'KITCOUNT#1', sk: 'N' };
    await items.putItem({ ...key, n: 0 });
    const bump = () =>
      retry.retryOnConflict(
        async () => {
          const n = Number((await items.getItem(key))!.n);
          return (await conditional.putIf({ ...key, n: n + 1 }, { ConditionExpression: 'n = :n', ExpressionAttributeValues: { ':n': n } }))
            ? n + 1
            : retry.CONFLICT;
        },
        { attempts: 50 },
      );
    await Promise.all(Array.from({ length: 10 }, bump));
    expect((await items.getItem(key))!.n).toBe(10);
  });
});
