import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTable, type TestTable } from '../../support/dynamo-table.ts';

/** Repositories against DynamoDB Local (startTable sets the endpoint before these modules load). */
let table: TestTable;
let clock: typeof import('#lib/clock.ts');
let items: typeof import('#lib/data/items.ts');
let sessions: typeof import('#lib/data/sessions.ts');
let shares: typeof import('#lib/data/shares.ts');
let failures: typeof import('#lib/data/login-failures.ts');
let uploads: typeof import('#lib/data/uploads.ts');
let starkKeys: typeof import('#lib/data/stark-keys.ts');
let nonces: typeof import('#lib/data/identity-nonces.ts');

beforeAll(async () => {
  table = await startTable();
  clock = await import('#lib/clock.ts');
  items = await import('#lib/data/items.ts');
  sessions = await import('#lib/data/sessions.ts');
  shares = await import('#lib/data/shares.ts');
  failures = await import('#lib/data/login-failures.ts');
  uploads = await import('#lib/data/uploads.ts');
  starkKeys = await import('#lib/data/stark-keys.ts');
  nonces = await import('#lib/data/identity-nonces.ts');
});
afterAll(async () => {
  clock?.resetClock();
  await table?.stop();
});

const day = 24 * 3600 * 1000;

describe('reads', () => {
  it('a stored item that is not its entity refuses to load, with a clear error', async () => {
    const { id, session } = await sessions.createSession('user-r1', 'password');
    await items.putItem({ pk: `SESSION#${session.hash}`, sk: 'SESSION', ...session, userId: 42 });
    await expect(sessions.loadSession(id)).rejects.toThrow('malformed session item: userId: Invalid input: expected string, received number');
  });

  it('an item past its ttl is absent, though DynamoDB still holds it', async () => {
    const expiresAtMs = clock.clock.nowMs() + 60_000;
    await shares.putShare('token-1', { fileId: 'f', userId: 'u', expiresAt: new Date(expiresAtMs).toISOString(), expiresAtMs });
    // Kept a week past its expiry (it then answers 410), gone after.
    clock.advanceClock(60_000 + 6 * day);
    expect(await shares.readShare('token-1')).toMatchObject({ fileId: 'f', userId: 'u', expiresAtMs });
    // The ttl is whole seconds, rounded up from expiresAtMs: one more second is past it whatever the milliseconds.
    clock.advanceClock(day + 1000);
    expect(await shares.readShare('token-1')).toBeUndefined();
    expect(await items.getItem({ pk: 'SHARE#x', sk: 'SHARE' })).toBeUndefined();
  });
});

describe('conditions on live items', () => {
  it('a login-attempt window counts while live, refuses past its maximum, and starts over once expired', async () => {
    expect(await failures.reserveAttempt('Alice', 2, 900)).toEqual({ reserved: true });
    expect(await failures.reserveAttempt('alice', 2, 900)).toEqual({ reserved: true });
    expect((await failures.readFailures('ALICE'))?.count).toBe(2);
    expect(await failures.reserveAttempt('alice', 2, 900)).toEqual({ reserved: false, retryAfterSeconds: expect.any(Number) });
    expect((await failures.readFailures('ALICE'))?.count).toBe(2);
    clock.advanceClock(901_000);
    expect(await failures.readFailures('alice')).toBeUndefined();
    expect(await failures.reserveAttempt('alice', 2, 900)).toEqual({ reserved: true });
    expect((await failures.readFailures('alice'))?.count).toBe(1);
  });

  it('reserves at most the maximum under concurrency', async () => {
    const out = await Promise.all(Array.from({ length: 15 }, () => failures.reserveAttempt('racer', 5, 900)));
    expect(out.filter((r) => r.reserved)).toHaveLength(5);
    expect((await failures.readFailures('racer'))?.count).toBe(5);
  });

  it('a pending upload is claimed once, by its owner, while live', async () => {
    const expiresAt = new Date(clock.clock.nowMs() + 900_000).toISOString();
    await uploads.putPendingUpload('up-1', { userId: 'owner', filename: 'a.bin', expiresAt }, 900);
    expect(await uploads.claimPendingUpload('up-1', 'someone-else')).toBeUndefined();
    expect(await uploads.claimPendingUpload('up-1', 'owner')).toEqual({ userId: 'owner', filename: 'a.bin', state: 'finalizing', expiresAt });
    expect(await uploads.claimPendingUpload('up-1', 'owner')).toBeUndefined();

    await uploads.putPendingUpload('up-2', { userId: 'owner', expiresAt }, 900);
    clock.advanceClock((900 + 3600 + 1) * 1000);
    expect(await uploads.claimPendingUpload('up-2', 'owner')).toBeUndefined();
  });

  it('a nonce is claimed once, and again only after it is forgotten', async () => {
    const keepUntil = clock.clock.nowSeconds() + 600;
    expect(await nonces.claimNonce('did:zk:aaaaaaaaaaaaaaaa', 'n-1', keepUntil)).toBe(true);
    expect(await nonces.claimNonce('did:zk:aaaaaaaaaaaaaaaa', 'n-1', keepUntil)).toBe(false);
    expect(await nonces.claimNonce('did:zk:bbbbbbbbbbbbbbbb', 'n-1', keepUntil)).toBe(true);
    clock.advanceClock(601_000);
    expect(await nonces.claimNonce('did:zk:aaaaaaaaaaaaaaaa', 'n-1', keepUntil + 1200)).toBe(true);
  });

  it("a session's STARK key is made once and its current proof moves only from the one it replaces", async () => {
    const record = { enc: 'ZW5j', publicKey: `0x${'1'.repeat(64)}`, keyHash: ['0x1', '0x2', '0x3', '0x4'] };
    const absolute = clock.clock.nowSeconds() + 3600;
    expect(await starkKeys.putNewStarkKey('sh-1', record, absolute)).toBe(true);
    expect(await starkKeys.putNewStarkKey('sh-1', { ...record, enc: 'b3RoZXI=' }, absolute)).toBe(false);
    expect(await starkKeys.getStarkKey('sh-1')).toEqual(record);
    expect(await starkKeys.moveCurrentProof('sh-1', undefined, 'p-1')).toBe(true);
    expect(await starkKeys.moveCurrentProof('sh-1', undefined, 'p-2')).toBe(false);
    expect(await starkKeys.moveCurrentProof('sh-1', 'p-0', 'p-2')).toBe(false);
    expect(await starkKeys.moveCurrentProof('sh-1', 'p-1', 'p-2')).toBe(true);
    expect((await starkKeys.getStarkKey('sh-1'))?.currentProofId).toBe('p-2');
    expect(await starkKeys.moveCurrentProof('no-such-session', undefined, 'p-1')).toBe(false);
  });
});
