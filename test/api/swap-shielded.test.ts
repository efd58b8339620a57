import { feeOf } from '../support/fees.ts';
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNote, noteCommitment, parseNote, serializeNote, type Note } from '#lib/client/transfer-note.ts';
import { fetchLeaves, proveWithdrawal } from '#lib/client/withdraw-proof.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * A swap whose output goes straight into a shielded-pool deposit, over HTTP against the local
 * runtime: sUSD → SOL into pool sol-1 in one chain A transaction, the note made here by lib/client
 * (its secret never sent), then a withdrawal of that note with a real Groth16 proof to a fresh
 * address. Amounts are checked with this file's own BigInt arithmetic; the swap also earns
 * shielded-deposit points once, whatever the retries.
 */
type Chain = Awaited<ReturnType<typeof import('#lib/chains/chain-a/index.ts').chainA>>;

let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let anonymous: HttpClient;
let aliceUserId: string;
let wallet: { id: string; address: string };
let chain: Chain;
let sUSD: string;
const POOL = 'sol-1';
const DENOMINATION = 1_000_000_000n;
const FEE_BPS = 30n;

function expected(reserveIn: bigint, reserveOut: bigint, amountIn: bigint) {
  const fee = (amountIn * FEE_BPS + 9_999n) / 10_000n;
  const net = amountIn - fee;
  return { fee, amountOut: (reserveOut * net) / (reserveIn + net) };
}

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};
const lamports = async (address: string) => BigInt(await chain.rpc.getBalance(new PublicKey(address)));

async function reserves() {
  const p = ok(await alice.get('/api/swap/pairs')).pairs[0];
  return { sol: BigInt(p.reserves.base), usd: BigInt(p.reserves.quote) };
}

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = rt.client();
  bob = rt.client();
  anonymous = rt.client();
  aliceUserId = (await signedInUser(alice)).user.id;
  await signedInUser(bob);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  ok(await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 20 }));
  for (let attempt = 1; ; attempt++) {
    const warm = await anonymous.get('/api/transfer/pools');
    if (warm.status === 200) break;
    if (warm.status !== 503 || attempt === 4) throw new Error(`pools: ${warm.status} ${JSON.stringify(warm.json)}`);
    await new Promise((wait) => setTimeout(wait, 2_000));
  }
  sUSD = ok(await alice.get('/api/swap/pairs')).pairs[0].quote.mint;
  // some sUSD to swap back into SOL
  const q = ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'sUSD', amount: 3, slippageBps: 100 }));
  ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
  chain = await (await import('#lib/chains/chain-a/index.ts')).chainA();
}, 180_000);
afterAll(async () => {
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
  await rt?.stop();
});
beforeEach(() => advanceClock(61_000));

const shielded = async (note: Note) => ({ type: 'shielded', pool: note.pool, commitment: await noteCommitment(note) });

describe('quote into a shielded deposit', () => {
  it('refuses an amount whose minimum output is below the denomination, naming the denominations and the input that reaches it', async () => {
    const res = ok(
      await alice.post('/api/swap/quote', {
        walletId: wallet.id,
        from: 'sUSD',
        to: 'SOL',
        amount: 100,
        slippageBps: 100,
        output: await shielded(createNote(POOL)),
      }),
      400,
    );
    expect(res.error).toBe('DENOMINATION_MISMATCH');
    for (const d of ['sol-0.1 (0.1 SOL)', 'sol-1 (1 SOL)', 'sol-10 (10 SOL)']) expect(res.message).toContain(d);
    const need = /at least ([\d.]+) sUSD in reaches it/.exec(res.message as string);
    expect(need, res.message).not.toBeNull();
    // the hint is exact: that input reaches the denomination after slippage, one unit less does not
    const units = BigInt(Math.round(Number(need![1]) * 1e6));
    const r = await reserves();
    const minOf = (amountIn: bigint) => (expected(r.usd, r.sol, amountIn).amountOut * 9_900n + 9_999n) / 10_000n;
    expect(minOf(units)).toBeGreaterThanOrEqual(DENOMINATION);
    expect(minOf(units - 1n)).toBeLessThan(DENOMINATION);
  });

  it('refuses a pool of another token, an unknown pool, a bad commitment, and shielded output on the other leg', async () => {
    const intoSUSD = ok(
      await alice.post('/api/swap/quote', {
        walletId: wallet.id,
        from: 'SOL',
        to: 'sUSD',
        amount: 1,
        slippageBps: 100,
        output: await shielded(createNote(POOL)),
      }),
      400,
    );
    expect(intoSUSD.error).toBe('DENOMINATION_MISMATCH');
    expect(intoSUSD.message).toContain('the pools of sUSD: none');
    const body = (output: unknown) => ({ walletId: wallet.id, from: 'sUSD', to: 'SOL', amount: 200, slippageBps: 100, output });
    expect(ok(await alice.post('/api/swap/quote', body({ type: 'shielded', pool: 'nope', commitment: '1' })), 404).error).toBe('POOL_NOT_FOUND');
    expect(ok(await alice.post('/api/swap/quote', body({ type: 'shielded', pool: POOL, commitment: '0' })), 400).error).toBe('INVALID_COMMITMENT');
    expect(ok(await alice.post('/api/swap/quote', body({ type: 'shielded', pool: POOL, commitment: 'x1' })), 400).error).toBe('INVALID_INPUT');
    expect(ok(await alice.post('/api/swap/quote', body({ type: 'hidden', pool: POOL, commitment: '1' })), 400).error).toBe('INVALID_INPUT');
  });
});

describe('swap into a shielded deposit, then withdraw the note', () => {
  let note: Note;
  let txHash: string;

  it('one transaction: the pool gets exactly the denomination, the tree the commitment, the wallet the surplus', async () => {
    note = createNote(POOL);
    const commitment = await noteCommitment(note);
    const r = await reserves();
    const pool = ok(await anonymous.get(`/api/transfer/pools/${POOL}`));
    const poolBefore = await lamports(pool.address);
    const walletBefore = await lamports(wallet.address);
    const usdBefore = BigInt(ok(await alice.get(`/api/wallets/${wallet.id}/balance?mint=${sUSD}`)).balance);

    const q = ok(
      await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'sUSD', to: 'SOL', amount: 160, slippageBps: 100, output: await shielded(note) }),
    );
    const e = expected(r.usd, r.sol, 160_000_000n);
    expect(q.amountOut).toBe(e.amountOut.toString());
    expect(q.deposit).toEqual({
      pool: POOL,
      commitment,
      denomination: DENOMINATION.toString(),
      surplus: (e.amountOut - DENOMINATION).toString(),
      minSurplus: (BigInt(q.minAmountOut) - DENOMINATION).toString(),
    });
    expect(q.privacy.output).toBe('shielded');
    expect(q.privacy.hides.join(' ')).toMatch(/zero-knowledge proof/);
    expect(q.privacy.doesNotHide.join(' ')).toMatch(/deposited into this pool/);
    expect(q.privacy.doesNotHide.join(' ')).toMatch(/surplus/);

    const x = ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
    txHash = x.txHash;
    expect(x).toMatchObject({ amountIn: '160000000', amountOut: e.amountOut.toString(), outputAddress: pool.address });
    expect(x.deposit).toEqual({
      id: expect.any(String),
      pool: POOL,
      commitment,
      denomination: DENOMINATION.toString(),
      status: 'complete',
      leafIndex: pool.size,
      root: expect.any(String),
    });

    // exact balances: the pool +denomination; the wallet +surplus − two signature fees (the user's and the swap pool's)
    expect((await lamports(pool.address)) - poolBefore).toBe(DENOMINATION);
    expect((await lamports(wallet.address)) - walletBefore).toBe(e.amountOut - DENOMINATION - 10_000n);
    expect(BigInt(ok(await alice.get(`/api/wallets/${wallet.id}/balance?mint=${sUSD}`)).balance)).toBe(usdBefore - 160_000_000n);
    const after = await reserves();
    expect(after.usd * after.sol).toBeGreaterThanOrEqual(r.usd * r.sol);

    // one transaction, the same one for the swap and the deposit
    const tx = await chain.rpc.getTransaction(txHash, { maxSupportedTransactionVersion: 0 });
    expect(tx?.meta?.err ?? null).toBeNull();
    const leaves = ok(await anonymous.get(`/api/transfer/pools/${POOL}/leaves`));
    expect(leaves.leaves[x.deposit.leafIndex]).toBe(commitment);
    expect(leaves.root).toBe(x.deposit.root);
    const deposits = ok(await alice.get('/api/transfer/deposits')).deposits;
    expect(deposits).toContainEqual(expect.objectContaining({ id: x.deposit.id, pool: POOL, commitment, status: 'complete', txHash, walletId: wallet.id }));
    expect(ok(await alice.get(`/api/swap/orders/${q.quoteId}`)).order).toMatchObject({
      status: 'executed',
      output: 'shielded',
      txHash,
      deposit: { id: x.deposit.id, pool: POOL, commitment, denomination: DENOMINATION.toString(), leafIndex: x.deposit.leafIndex, root: x.deposit.root },
    });
    expect(ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }), 409).error).toBe('QUOTE_USED');
    // the commitment is taken now: quoting it again is refused
    expect(
      ok(
        await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'sUSD', to: 'SOL', amount: 160, slippageBps: 100, output: await shielded(note) }),
        400,
      ).error,
    ).toBe('INVALID_COMMITMENT');
  });

  it('a withdrawal with a real Groth16 proof of that note pays a fresh address exactly the denomination', async () => {
    const kept = parseNote(serializeNote(note));
    const leaves = await fetchLeaves(async (path) => ok(await anonymous.get(path)) as { leaves: string[]; size: number }, POOL);
    const recipient = Keypair.generate().publicKey.toBase58();
    const request = await proveWithdrawal(kept, leaves, recipient, { relayerFee: 0n });
    const res = ok(await anonymous.post('/api/transfer/withdraw', request));
    expect(res.status).toBe('paid');
    expect(await lamports(recipient)).toBe(DENOMINATION);
    expect(ok(await anonymous.post('/api/transfer/withdraw', request), 409).error).toBe('NULLIFIER_SPENT');
  }, 120_000);

  it('the swap earns swap and shielded-deposit points, each once, whatever the retries', async () => {
    const { accrue, retryAccrualsOnce } = await import('#lib/rewards/accrue.ts');
    const again = await Promise.all([1, 2, 3].map(() => accrue({ userId: aliceUserId, source: 'shielded-deposit', txHash })));
    expect(again.filter((a) => a.recorded)).toHaveLength(0);
    advanceClock(60_000);
    expect((await retryAccrualsOnce()).recorded).toBe(0);
    const entries = ok(await alice.get('/api/rewards/ledger')).entries.filter((e: { txHash: string }) => e.txHash === txHash);
    expect(entries).toHaveLength(2);
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'swap', txHash }),
        expect.objectContaining({ source: 'shielded-deposit', txHash, points: (await feeOf(txHash)).points, basis: (await feeOf(txHash)).fee.toString() }),
      ]),
    );
    expect(ok(await bob.get('/api/rewards/ledger')).entries).toEqual([]);
  });
});
