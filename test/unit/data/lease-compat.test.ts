import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTable } from '../../support/dynamo-table.ts';

/**
 * Records a deployed table holds in the lease shapes from before the concurrency kit
 * (docs/concurrency.md): a payout job's `leaseOwner`/`leaseUntil`, an idempotency record's
 * `lockedUntil` alone. A live one is honoured, an expired one taken over into the kit's
 * `lease {owner, expiresAt}`; the field the code before reads is still written beside it.
 */
let table: Awaited<ReturnType<typeof startTable>>;
let jobs: typeof import('#lib/data/shielded-withdrawals.ts');
let idem: typeof import('#lib/data/idempotency.ts');
let items: typeof import('#lib/data/items.ts');
let clock: typeof import('#lib/clock.ts');

beforeAll(async () => {
  table = await startTable();
  jobs = await import('#lib/data/shielded-withdrawals.ts');
  idem = await import('#lib/data/idempotency.ts');
  items = await import('#lib/data/items.ts');
  clock = await import('#lib/clock.ts');
});
afterAll(async () => {
  clock?.resetClock();
  await table?.stop();
});

describe('payout job lease', () => {
  const job = (id: string) => ({
    id,
    poolId: 'p',
    nullifierHash: `n-${id}`,
    recipient: 'r',
    amount: '1',
    fee: '0',
    status: 'pending' as const,
    attempts: 0,
    createdAt: '2026-11-27T00:00:00.000Z',
  });

  it('an old-shape live lease is honoured; once expired it is taken and migrated', async () => {
    const id = '00000000-0000-4000-8000-000000000001';
    const now = clock.clock.nowMs();
    await items.putItem({ pk: `SJOB#${id}`, sk: 'JOB', ...job(id), leaseOwner: 'old-worker', leaseUntil: now + 60_000 });
    expect(await jobs.leaseJob(id, 'new-worker', clock.clock.nowMs(), clock.clock.nowMs() + 30_000)).toBeUndefined();
    clock.advanceClock(61_000);
    const t = clock.clock.nowMs();
    const taken = await jobs.leaseJob(id, 'new-worker', t, t + 30_000);
    expect(taken?.lease).toEqual({ owner: 'new-worker', expiresAt: t + 30_000 });
    expect(taken?.attempts).toBe(1);
    const raw = await items.getItem({ pk: `SJOB#${id}`, sk: 'JOB' });
    expect(raw?.leaseOwner).toBeUndefined();
    // The code before reads leaseUntil: it sees the job taken.
    expect(raw?.leaseUntil).toBe(t + 30_000);
  });

  it('a new lease: one worker at a time, its writes only while it holds it, released with the reason', async () => {
    const id = '00000000-0000-4000-8000-000000000002';
    await items.putItem({ pk: `SJOB#${id}`, sk: 'JOB', ...job(id) });
    const t = clock.clock.nowMs();
    expect(await jobs.leaseJob(id, 'A', t, t + 30_000)).toBeDefined();
    expect(await jobs.leaseJob(id, 'B', t, t + 30_000)).toBeUndefined();
    await expect(jobs.recordPayoutTx(id, 'B', 'sig', 'bytes', 10)).rejects.toThrow('no longer');
    await jobs.recordPayoutTx(id, 'A', 'sig', 'bytes', 10);
    await jobs.releaseJob(id, 'B', "not B's");
    expect((await jobs.getJob(id))?.lease?.owner).toBe('A');
    await jobs.releaseJob(id, 'A', 'Error: boom');
    const released = await jobs.getJob(id);
    expect(released?.lease).toBeUndefined();
    expect(released?.leaseUntil).toBeUndefined();
    expect(released?.lastError).toBe('Error: boom');
    expect(await jobs.leaseJob(id, 'B', t, t + 30_000)).toBeDefined();
    await jobs.markJobPaid(id, 'sig', 5, '2026-11-27T00:01:00.000Z');
    const paid = await items.getItem({ pk: `SJOB#${id}`, sk: 'JOB' });
    expect(paid?.status).toBe('paid');
    expect(paid?.lease).toBeUndefined();
  });
});

describe('idempotency record lease', () => {
  const response = { statusCode: 200, headers: {}, body: '{}' };

  it('an old-shape in-progress record (lockedUntil only) is honoured until it expires, then claimed', async () => {
    const scope = 'u1 POST /x';
    const pk = idem.recordKeyOf(scope, 'k1');
    const now = clock.clock.nowSeconds();
    await items.putItem({ pk, sk: 'IDEMPOTENCY', status: 'in_progress', fingerprint: 'fp', lockedUntil: now + 120, response: null, ttl: now + 86_400 });
    const busy = await idem.claim(scope, 'k1', 'fp', 60);
    expect(busy.kind).toBe('in_progress');
    expect(busy.kind === 'in_progress' && busy.retryAfter).toBeGreaterThan(100);
    // The attempt of the code before may still finish it.
    clock.advanceClock(121_000);
    const claimed = await idem.claim(scope, 'k1', 'fp', 60);
    expect(claimed.kind).toBe('claimed');
    const owner = claimed.kind === 'claimed' ? claimed.owner : '';
    const raw = await items.getItem({ pk, sk: 'IDEMPOTENCY' });
    // The lease names this attempt (two attempts of one request share the fingerprint).
    expect(raw?.lease).toEqual({ owner: expect.stringMatching(/^fp:/), expiresAt: expect.any(Number) });
    // The code before reads lockedUntil: the same expiry, in seconds.
    expect(raw?.lockedUntil).toBe(Math.floor((raw!.lease as { expiresAt: number }).expiresAt / 1000));
    await expect(idem.complete(scope, 'k1', 'fp', response)).rejects.toThrow(idem.ClaimLost);
    await idem.complete(scope, 'k1', owner, response);
    expect(await idem.claim(scope, 'k1', 'fp', 60)).toEqual({ kind: 'replay', response: { ...response, isBase64Encoded: false } });
  });

  it('an old-shape record is completed and released by its fingerprint, as before', async () => {
    const scope = 'u2 POST /x';
    const pk = idem.recordKeyOf(scope, 'k2');
    const now = clock.clock.nowSeconds();
    await items.putItem({ pk, sk: 'IDEMPOTENCY', status: 'in_progress', fingerprint: 'fp2', lockedUntil: now + 120, response: null, ttl: now + 86_400 });
    await idem.release(scope, 'k2', 'other');
    expect((await idem.claim(scope, 'k2', 'fp2', 60)).kind).toBe('in_progress');
    await idem.release(scope, 'k2', 'fp2');
    expect((await idem.claim(scope, 'k2', 'fp2', 60)).kind).toBe('claimed');
  });
});
