import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTable, type TestTable } from '../../support/dynamo-table.ts';

/** Single use and atomicity, against DynamoDB Local (only a table: test/support/dynamo-table.ts). */
let table: TestTable;
let state: typeof import('#lib/auth/oauth/state.ts');
let accounts: typeof import('#lib/auth/oauth/accounts.ts');
beforeAll(async () => {
  table = await startTable();
  state = await import('#lib/auth/oauth/state.ts');
  accounts = await import('#lib/auth/oauth/accounts.ts');
});
afterAll(async () => {
  await table?.stop();
});

const pending = () => ({ provider: 'github' as const, codeVerifier: 'v'.repeat(43), redirect: '/', mode: 'login' as const, createdAt: Date.now() });
const profile = (subject: string) => ({ subject, name: 'N', email: 'same@example.com' });

describe('OAuth state', () => {
  it('is taken once, even by concurrent callbacks', async () => {
    await state.saveState('s-1', pending());
    const got = await Promise.all(Array.from({ length: 8 }, () => state.consumeState('s-1')));
    expect(got.filter(Boolean)).toHaveLength(1);
    expect(got.find(Boolean)).toMatchObject({ provider: 'github', codeVerifier: 'v'.repeat(43) });
    expect(await state.consumeState('s-1')).toBeNull();
    expect(await state.consumeState('never-issued')).toBeNull();
  });

  it('expires after 10 minutes even while DynamoDB still holds it', async () => {
    await state.saveState('s-2', pending());
    advanceClock(state.STATE_TTL_SECONDS * 1000 + 1000);
    expect(await state.consumeState('s-2')).toBeNull();
  });
});

describe('provider links', () => {
  it('two first logins of one subject at once make one account', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => accounts.accountFor('github', profile('race-1'))));
    expect(new Set(results.map((r) => r.userId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });

  it('finds accounts by subject only, never by email', async () => {
    const a = await accounts.accountFor('github', profile('sub-a'));
    const b = await accounts.accountFor('github', profile('sub-b'));
    expect(a.userId).not.toBe(b.userId);
    expect((await accounts.accountFor('github', profile('sub-a'))).userId).toBe(a.userId);
  });

  it('refuses a subject linked elsewhere and a second subject of one provider', async () => {
    const a = await accounts.accountFor('github', profile('link-a'));
    const b = await accounts.accountFor('google', profile('link-b'));
    await expect(accounts.linkProvider(a.userId, 'google', profile('link-b'))).rejects.toMatchObject({ code: 'AUTH_FAILED' });
    await accounts.linkProvider(a.userId, 'google', profile('link-c'));
    await accounts.linkProvider(a.userId, 'google', profile('link-c')); // again: a no-op
    await expect(accounts.linkProvider(a.userId, 'google', profile('link-d'))).rejects.toMatchObject({ code: 'AUTH_FAILED' });
    expect(await accounts.linkedProviders(a.userId)).toEqual(['github', 'google']);
    expect(await accounts.linkedProviders(b.userId)).toEqual(['google']);
  });

  it('two concurrent unlinks cannot remove the last two providers', async () => {
    const a = await accounts.accountFor('github', profile('un-a'));
    await accounts.linkProvider(a.userId, 'x', profile('un-x'));
    const out = await Promise.allSettled([accounts.unlinkProvider(a.userId, 'github'), accounts.unlinkProvider(a.userId, 'x')]);
    expect(out.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const failed = out.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).toMatchObject({ code: 'CANNOT_UNLINK', status: 409 });
    expect(await accounts.linkedProviders(a.userId)).toHaveLength(1);
  });
});
