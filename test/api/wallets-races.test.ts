import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Issue 36, 5: rename, activate and delete racing on one user's wallets, on both chains. A name is
 * held by exactly the wallet that bears it (no orphan names), and while a user has any wallet on a
 * chain exactly one of them is active.
 */
let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '50' });
});
afterAll(async () => rt?.stop());
beforeEach(() => advanceClock(61_000));

const patch = (c: HttpClient, path: string, json: unknown) => c.request('PATCH', path, { json });
const PASS = 'chain-b-pass';
const body = (chain: 'a' | 'b', name: string) => (chain === 'a' ? { chain, name } : { chain, name, password: PASS });

async function user(): Promise<HttpClient> {
  const c = rt.client();
  await signedInUser(c);
  return c;
}

async function create(c: HttpClient, chain: 'a' | 'b', name: string) {
  const res = await c.post('/api/wallets', body(chain, name));
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.wallet as { id: string; name: string; isActive: boolean };
}

async function wallets(c: HttpClient, chain: 'a' | 'b') {
  return (await c.get(`/api/wallets?chain=${chain}`)).json.wallets as { id: string; name: string; isActive: boolean }[];
}

/** Exactly one active wallet while any exists. */
async function expectOneActive(c: HttpClient, chain: 'a' | 'b') {
  const list = await wallets(c, chain);
  expect(list.filter((w) => w.isActive)).toHaveLength(list.length === 0 ? 0 : 1);
}

for (const chain of ['a', 'b'] as const) {
  describe(`chain ${chain.toUpperCase()}`, () => {
    it('10 parallel renames of one wallet: every answer is 200 or 409, and only the final name is taken', async () => {
      const c = await user();
      const w = await create(c, chain, 'start');
      const names = Array.from({ length: 10 }, (_, i) => `name-${i}`);
      const answers = await Promise.all(names.map((name) => patch(c, `/api/wallets/${w.id}`, { name })));
      for (const a of answers) expect([200, 409], JSON.stringify(a.json)).toContain(a.status);
      const won = answers.filter((a) => a.status === 200).map((a) => a.json.wallet.name as string);
      expect(won.length).toBeGreaterThan(0);
      const final = (await c.get(`/api/wallets/${w.id}`)).json.wallet.name as string;
      expect(won).toContain(final);
      // Every other name (and the first one) is free: a new wallet may take it.
      for (const name of ['start', ...names]) {
        const res = await c.post('/api/wallets', body(chain, name));
        expect(res.status, `${name}: ${JSON.stringify(res.json)}`).toBe(name === final ? 409 : 201);
      }
    });

    it('activate and delete of the same wallet in parallel, and deleting the active wallet: always exactly one active', async () => {
      const c = await user();
      await create(c, chain, 'first');
      for (let round = 0; round < 4; round++) {
        const w = await create(c, chain, `round-${round}`);
        const [activated, deleted] = await Promise.all([patch(c, `/api/wallets/${w.id}`, { isActive: true }), c.delete(`/api/wallets/${w.id}`)]);
        expect([200, 404, 409], JSON.stringify(activated.json)).toContain(activated.status);
        expect([200, 409], JSON.stringify(deleted.json)).toContain(deleted.status);
        await expectOneActive(c, chain);
      }
      // The active wallet deleted while another is activated.
      const x = await create(c, chain, 'x');
      const active = (await wallets(c, chain)).find((w) => w.isActive)!;
      await Promise.all([c.delete(`/api/wallets/${active.id}`), patch(c, `/api/wallets/${x.id}`, { isActive: true })]);
      await expectOneActive(c, chain);
      // Deleting the active wallet hands the role to another; deleting the last leaves none.
      for (let left = (await wallets(c, chain)).length; left > 0; left--) {
        const now = (await wallets(c, chain)).find((w) => w.isActive)!;
        expect((await c.delete(`/api/wallets/${now.id}`)).status).toBe(200);
        await expectOneActive(c, chain);
      }
      expect(await wallets(c, chain)).toEqual([]);
    });

    it('rename and delete in parallel leave no name behind the deleted wallet', async () => {
      const c = await user();
      await create(c, chain, 'keep');
      for (let round = 0; round < 4; round++) {
        const w = await create(c, chain, `doomed-${round}`);
        const [renamed, deleted] = await Promise.all([patch(c, `/api/wallets/${w.id}`, { name: `renamed-${round}` }), c.delete(`/api/wallets/${w.id}`)]);
        expect([200, 404, 409]).toContain(renamed.status);
        expect([200, 409]).toContain(deleted.status);
        const now = await c.get(`/api/wallets/${w.id}`);
        const name = now.status === 200 ? now.json.wallet.name : undefined;
        for (const n of [`doomed-${round}`, `renamed-${round}`]) expect((await c.post('/api/wallets', body(chain, n))).status, n).toBe(n === name ? 409 : 201);
      }
    });
  });
}
