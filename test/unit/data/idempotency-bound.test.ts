import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTable } from '../../support/dynamo-table.ts';

/**
 * An Idempotency-Key bound to the transaction its attempt sent (lib/data/idempotency.ts): whatever
 * the attempt's error, the key is never freed while that transaction may land — releasing it
 * keeps the answer kept at binding (202 naming the transaction) for a retry — and only the
 * transaction's failure or expiry, settled by the journal, frees it.
 */
let table: Awaited<ReturnType<typeof startTable>>;
let idem: typeof import('#lib/data/idempotency.ts');
let clock: typeof import('#lib/clock.ts');

beforeAll(async () => {
  table = await startTable();
  idem = await import('#lib/data/idempotency.ts');
  clock = await import('#lib/clock.ts');
});
afterAll(async () => {
  clock?.resetClock();
  await table?.stop();
});

const submitted = { statusCode: 202, headers: { 'content-type': 'application/json' }, body: '{"success":true,"status":"submitted","txHash":"tx1"}' };
const scope = 'user-1 POST /api/compression/compress-native';

async function claimed(key: string): Promise<string> {
  const c = await idem.claim(scope, key, `fp-${key}`, 60);
  if (c.kind !== 'claimed') throw new Error(`not claimed: ${c.kind}`);
  return c.owner;
}

describe('a key bound to a transaction', () => {
  it('an unbound claim released is free again', async () => {
    const owner = await claimed('free');
    await idem.release(scope, 'free', owner);
    expect((await idem.claim(scope, 'free', 'fp-free', 60)).kind).toBe('claimed');
  });

  it('released after its attempt failed, it answers a retry with the transaction (202), never a new attempt', async () => {
    const owner = await claimed('sent');
    expect(await idem.bindToTransaction(scope, 'sent', owner, 'tx1', 1800, submitted)).toBe(true);
    await idem.release(scope, 'sent', owner);
    expect(await idem.claim(scope, 'sent', 'fp-sent', 60)).toEqual({ kind: 'replay', response: { ...submitted, isBase64Encoded: false } });
  });

  it('the transaction failed or expired (the journal settles it): the key is free, whether released before or after', async () => {
    for (const [key, outcome, releasedFirst] of [
      ['failed-after', 'failed', false],
      ['expired-before', 'expired', true],
    ] as const) {
      const owner = await claimed(key);
      await idem.bindToTransaction(scope, key, owner, `tx-${key}`, 1800, submitted);
      if (releasedFirst) await idem.release(scope, key, owner);
      await idem.settleBound(idem.recordKeyOf(scope, key), `tx-${key}`, outcome);
      if (!releasedFirst) await idem.release(scope, key, owner);
      expect((await idem.claim(scope, key, `fp-${key}`, 60)).kind, key).toBe('claimed');
    }
  });

  it('its attempt gone without a word (neither completed nor released): 409 while the hold lasts, then the transaction (202), never a new attempt', async () => {
    const owner = await claimed('died');
    await idem.bindToTransaction(scope, 'died', owner, 'tx-died', 1800, submitted);
    expect((await idem.claim(scope, 'died', 'fp-died', 60)).kind).toBe('in_progress');
    clock.advanceClock(1801_000);
    expect(await idem.claim(scope, 'died', 'fp-died', 60)).toEqual({ kind: 'replay', response: { ...submitted, isBase64Encoded: false } });
  });

  it("another attempt's release changes nothing, and another transaction's settlement frees nothing", async () => {
    const owner = await claimed('other');
    await idem.bindToTransaction(scope, 'other', owner, 'tx-mine', 1800, submitted);
    await idem.release(scope, 'other', 'someone-else');
    await idem.settleBound(idem.recordKeyOf(scope, 'other'), 'tx-not-mine', 'failed');
    expect((await idem.claim(scope, 'other', 'fp-other', 60)).kind).toBe('in_progress');
  });
});
