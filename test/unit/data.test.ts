import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTable, type TestTable } from '../support/dynamo-table.ts';

/** lib/data against DynamoDB Local (startTable sets the endpoint before these modules load). */
let table: TestTable;
let items: typeof import('#lib/data/items.ts');
let rate: typeof import('#lib/http/rate-limit.ts');
let clock: typeof import('#lib/clock.ts');
let sessions: typeof import('#lib/data/sessions.ts');

beforeAll(async () => {
  table = await startTable();
  items = await import('#lib/data/items.ts');
  rate = await import('#lib/http/rate-limit.ts');
  clock = await import('#lib/clock.ts');
  sessions = await import('#lib/data/sessions.ts');
});
afterAll(async () => {
  clock?.resetClock();
  await table?.stop();
});

describe('items', () => {
  it('treats an item past its ttl as absent, before DynamoDB deletes it', async () => {
    await items.putItem({ pk: 'T#1', sk: 'a', ttl: clock.clock.nowSeconds() + 30, v: 1 });
    expect(await items.getItem({ pk: 'T#1', sk: 'a' })).toMatchObject({ v: 1 });
    clock.advanceClock(31_000);
    expect(await items.getItem({ pk: 'T#1', sk: 'a' })).toBeUndefined();
    expect(await items.queryPartition('T#1')).toEqual([]);
  });

  it('writes a new key once; a second putNew fails conditionally, an expired one may be replaced', async () => {
    await items.putNew({ pk: 'T#2', sk: 'a', ttl: items.ttlIn(10) });
    const second = await items.putNew({ pk: 'T#2', sk: 'a' }).catch((e) => e);
    expect(items.isConditionalFailure(second)).toBe(true);
    clock.advanceClock(11_000);
    await expect(items.putNew({ pk: 'T#2', sk: 'a', v: 2 })).resolves.toBeUndefined();
  });

  it('pages a partition newest first and by prefix', async () => {
    for (let i = 0; i < 5; i++) await items.putItem({ pk: 'T#3', sk: `x#${i}` });
    await items.putItem({ pk: 'T#3', sk: 'y#0' });
    expect((await items.queryPartition('T#3', { prefix: 'x#', newestFirst: true })).map((i) => i.sk)).toEqual(['x#4', 'x#3', 'x#2', 'x#1', 'x#0']);
  });
});

describe('rate limits', () => {
  it('count atomically: parallel hits get distinct counts and exactly `limit` pass', async () => {
    clock.advanceClock(60_000);
    const results = await Promise.all(Array.from({ length: 30 }, () => rate.hit('test', 'ip:1', 20)));
    expect(results.filter((r) => !r.exceeded)).toHaveLength(20);
    expect(new Set(results.map((r) => r.remaining)).size).toBeGreaterThan(1);
    expect(results.every((r) => r.reset > 0 && r.reset <= 60)).toBe(true);
  });

  it('start over in the next window, per client', async () => {
    clock.advanceClock(60_000);
    expect((await rate.hit('test', 'ip:1', 1)).exceeded).toBe(false);
    expect((await rate.hit('test', 'ip:1', 1)).exceeded).toBe(true);
    expect((await rate.hit('test', 'ip:2', 1)).exceeded).toBe(false);
    clock.advanceClock(60_000);
    expect((await rate.hit('test', 'ip:1', 1)).exceeded).toBe(false);
  });
});

describe('sessions', () => {
  it('store only the hash, expire idle sessions, and tell expired from unknown', async () => {
    const { id, session } = await sessions.createSession('user-1', 'password');
    expect(session.hash).not.toContain(id);
    expect(await items.getItem({ pk: `SESSION#${id}`, sk: 'SESSION' })).toBeUndefined();
    expect((await sessions.loadSession(id)).state).toBe('active');
    expect((await sessions.loadSession('nope')).state).toBe('none');
    clock.advanceClock((sessions.SESSION_IDLE_SECONDS + 1) * 1000);
    expect((await sessions.loadSession(id)).state).toBe('expired');
  });

  it('push the idle expiry on use, but never past the absolute lifetime', async () => {
    const { id } = await sessions.createSession('user-2', 'password');
    // 7 uses 23 h apart keep it alive (161 h); the 8th falls past the 7-day absolute lifetime.
    for (let day = 0; day < 7; day++) {
      clock.advanceClock((sessions.SESSION_IDLE_SECONDS - 3600) * 1000);
      expect((await sessions.loadSession(id)).state).toBe('active');
    }
    clock.advanceClock((sessions.SESSION_IDLE_SECONDS - 3600) * 1000);
    expect((await sessions.loadSession(id)).state).toBe('expired');
  });

  it('end on destroy', async () => {
    const { id, session } = await sessions.createSession('user-3', 'password');
    await sessions.destroySession(session.hash);
    expect((await sessions.loadSession(id)).state).toBe('none');
  });
});
