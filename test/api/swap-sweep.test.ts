import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Spending from a one-time address over HTTP against the local runtime: the swap's output moved on
 * with the one-time key, exact balances before and after (read from the local chain A here), the
 * fee payer named, another user's address 404.
 */
type Chain = Awaited<ReturnType<typeof import('#lib/chains/chain-a/index.ts').chainA>>;

let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let wallet: { id: string; address: string };
let chain: Chain;
let sUSD: PublicKey;
let tokenBalance: typeof import('#lib/chains/chain-a/operations.ts').tokenBalance;
const TOKEN_ACCOUNT_RENT = 2_039_280n;

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};
const lamports = async (a: string | PublicKey) => BigInt(await chain.rpc.getBalance(new PublicKey(a)));
const tokens = (a: string | PublicKey) => tokenBalance(chain, new PublicKey(a), sUSD);

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = rt.client();
  bob = rt.client();
  await signedInUser(alice);
  await signedInUser(bob);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  ok(await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 20 }));
  sUSD = new PublicKey(ok(await alice.get('/api/swap/pairs')).pairs[0].quote.mint);
  chain = await (await import('#lib/chains/chain-a/index.ts')).chainA();
  tokenBalance = (await import('#lib/chains/chain-a/operations.ts')).tokenBalance;
}, 120_000);
afterAll(async () => rt?.stop());
beforeEach(() => advanceClock(61_000));

async function swapToOneTime(from: string, to: string, amount: number) {
  const q = ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from, to, amount, slippageBps: 100, output: 'one-time' }));
  const x = ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
  expect(x.outputAddress).not.toBe(wallet.address);
  return x as { outputAddress: string; amountOut: string };
}

describe('sweep a token output', () => {
  let address: string;
  let held: bigint;

  it("the address holds the tokens and no lamports; another user's or an unknown address is 404", async () => {
    const x = await swapToOneTime('SOL', 'sUSD', 1);
    address = x.outputAddress;
    held = await tokens(address);
    expect(held).toBe(BigInt(x.amountOut));
    expect(await lamports(address)).toBe(0n);
    expect(ok(await bob.post(`/api/swap/addresses/${address}/sweep`, { to: Keypair.generate().publicKey.toBase58() }), 404).error).toBe('NOT_FOUND');
    expect(ok(await alice.post(`/api/swap/addresses/${Keypair.generate().publicKey.toBase58()}/sweep`, { to: wallet.address }), 404).error).toBe('NOT_FOUND');
    expect(await tokens(address)).toBe(held);
  });

  it('refuses more than it holds and a bad recipient, with nothing moved', async () => {
    const more = ok(await alice.post(`/api/swap/addresses/${address}/sweep`, { to: wallet.address, amount: Number(held + 1n) / 1e6 }), 422);
    expect(more.error).toBe('INSUFFICIENT_BALANCE');
    expect(more.message).toContain(String(held));
    expect(ok(await alice.post(`/api/swap/addresses/${address}/sweep`, { to: 'not-an-address' }), 400).error).toBe('INVALID_ADDRESS');
    expect(ok(await alice.post(`/api/swap/addresses/${address}/sweep`, { amount: 1 }), 400).error).toBe('INVALID_INPUT');
    expect(await tokens(address)).toBe(held);
  });

  it("a part to a fresh address: exact amounts; the swap's wallet pays the fee and the new token account", async () => {
    const fresh = Keypair.generate().publicKey.toBase58();
    const walletBefore = await lamports(wallet.address);
    const s = ok(await alice.post(`/api/swap/addresses/${address}/sweep`, { to: fresh, amount: 10 }));
    expect(s).toMatchObject({
      address,
      to: fresh,
      amount: '10000000',
      remaining: (held - 10_000_000n).toString(),
      fee: '10000',
      feePayer: { kind: 'wallet', address: wallet.address },
      token: { symbol: 'sUSD', mint: sUSD.toBase58(), decimals: 6 },
    });
    expect(await tokens(fresh)).toBe(10_000_000n);
    expect(await tokens(address)).toBe(held - 10_000_000n);
    expect(walletBefore - (await lamports(wallet.address))).toBe(10_000n + TOKEN_ACCOUNT_RENT);
  });

  it('the rest, amount left out, to the wallet; then there is nothing to sweep', async () => {
    const walletTokens = await tokens(wallet.address);
    const s = ok(await alice.post(`/api/swap/addresses/${address}/sweep`, { to: wallet.address }));
    expect(s).toMatchObject({ amount: (held - 10_000_000n).toString(), remaining: '0' });
    expect(await tokens(wallet.address)).toBe(walletTokens + held - 10_000_000n);
    expect(await tokens(address)).toBe(0n);
    expect(ok(await alice.post(`/api/swap/addresses/${address}/sweep`, { to: wallet.address }), 422).error).toBe('NOTHING_TO_SWEEP');
  });
});

describe('sweep a native-coin output', () => {
  it('the one-time address pays its own fee; all of it leaves, nothing is left', async () => {
    await swapToOneTime('SOL', 'sUSD', 2); // sUSD in the wallet to swap back
    const x = await swapToOneTime('sUSD', 'SOL', 100);
    // the output, and the rent of its temporary wrapped-SOL account, closed into the address
    const held = await lamports(x.outputAddress);
    expect(held).toBe(BigInt(x.amountOut) + TOKEN_ACCOUNT_RENT);
    const fresh = Keypair.generate().publicKey.toBase58();
    const tooMuch = ok(await alice.post(`/api/swap/addresses/${x.outputAddress}/sweep`, { to: fresh, amount: Number(held) / 1e9 }), 422);
    expect(tooMuch.error).toBe('INSUFFICIENT_BALANCE');
    // leaving 1,000 lamports (below the rent-exempt minimum) is refused before anything is signed
    const dust = ok(await alice.post(`/api/swap/addresses/${x.outputAddress}/sweep`, { to: fresh, amount: Number(held - 6_000n) / 1e9 }), 422);
    expect(dust.message).toMatch(/rent-exempt|must keep/);
    expect(await lamports(x.outputAddress)).toBe(held);
    const walletBefore = await lamports(wallet.address);
    const s = ok(await alice.post(`/api/swap/addresses/${x.outputAddress}/sweep`, { to: fresh }));
    expect(s).toMatchObject({
      amount: (held - 5_000n).toString(),
      remaining: '0',
      fee: '5000',
      feePayer: { kind: 'one-time', address: x.outputAddress },
      token: { symbol: 'SOL' },
    });
    expect(await lamports(fresh)).toBe(held - 5_000n);
    expect(await lamports(x.outputAddress)).toBe(0n);
    expect(await lamports(wallet.address)).toBe(walletBefore);
  });
});
