import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';
import { withDynamoFailing } from '../support/dynamo-faults.ts';

/**
 * /api/swap end to end over HTTP against the local runtime: the pool's reserves are real token
 * accounts on the local chain A (LiteSVM), every swap one transaction signed by the user and the
 * pool. Amounts are checked with this file's own BigInt arithmetic, not the service's.
 */
let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let aliceWallet: { id: string; address: string };
let bobWallet: { id: string; address: string };
let sUSD: string;

const FEE_BPS = 30n;
/** The constant-product rule, written again here: fee rounded up, output rounded down. */
function expected(reserveIn: bigint, reserveOut: bigint, amountIn: bigint) {
  const fee = (amountIn * FEE_BPS + 9_999n) / 10_000n;
  const net = amountIn - fee;
  return { fee, amountOut: (reserveOut * net) / (reserveIn + net) };
}

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};

async function reservesOf(c: HttpClient) {
  const p = ok(await c.get('/api/swap/pairs')).pairs[0];
  return { sol: BigInt(p.reserves.base), usd: BigInt(p.reserves.quote) };
}

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' });
  alice = rt.client();
  bob = rt.client();
  await signedInUser(alice);
  await signedInUser(bob);
  aliceWallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  bobWallet = (await bob.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  for (const [c, w] of [
    [alice, aliceWallet],
    [bob, bobWallet],
  ] as const) {
    const drop = await c.post(`/api/wallets/${w.id}/airdrop`, { amount: 50 });
    if (drop.status !== 200) throw new Error(JSON.stringify(drop.json));
  }
  const pairs = ok(await alice.get('/api/swap/pairs'));
  sUSD = pairs.pairs[0].quote.mint;
}, 120_000);
afterAll(async () => rt?.stop());
beforeEach(() => advanceClock(61_000));

describe('pairs and quotes', () => {
  it('lists the seeded pool: 1000 SOL against 150000 sUSD, 30 bps', async () => {
    const p = ok(await alice.get('/api/swap/pairs'));
    expect(p.adapter).toBe('local');
    expect(p.pairs).toEqual([
      {
        pairId: 'SOL-sUSD',
        base: { symbol: 'SOL', mint: 'So11111111111111111111111111111111111111112', decimals: 9 },
        quote: { symbol: 'sUSD', mint: expect.any(String), decimals: 6 },
        feeBps: 30,
        pool: expect.any(String),
        reserves: { base: expect.stringMatching(/^\d+$/), quote: expect.stringMatching(/^\d+$/) },
      },
    ]);
  });

  it('quotes exactly the constant-product amount; the privacy statement is plain', async () => {
    const r = await reservesOf(alice);
    const q = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 2.5, slippageBps: 100 }));
    const e = expected(r.sol, r.usd, 2_500_000_000n);
    expect(q.amountIn).toBe('2500000000');
    expect(q.fee).toBe(e.fee.toString());
    expect(q.amountOut).toBe(e.amountOut.toString());
    expect(BigInt(q.minAmountOut)).toBe((e.amountOut * 9_900n + 9_999n) / 10_000n);
    expect(q.route).toMatchObject({ adapter: 'local', pairId: 'SOL-sUSD', reserveIn: r.sol.toString(), reserveOut: r.usd.toString() });
    expect(Date.parse(q.expiresAt)).toBeGreaterThan(Date.now());
    expect(q.privacy.output).toBe('wallet');
    expect(q.privacy.doesNotHide.join(' ')).toMatch(/links your address/);
    const p = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 1, slippageBps: 50, output: 'one-time' }));
    expect(p.privacy.hides.length).toBeGreaterThan(0);
    expect(p.privacy.doesNotHide.join(' ')).toMatch(/same transaction/);
  });

  it("refuses unknown pairs, too-large amounts, other users' wallets and bad input", async () => {
    expect(ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'DOGE', amount: 1, slippageBps: 50 }), 400).error).toBe(
      'UNSUPPORTED_PAIR',
    );
    expect(ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'SOL', amount: 1, slippageBps: 50 }), 400).error).toBe(
      'UNSUPPORTED_PAIR',
    );
    expect(ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'sUSD', to: 'SOL', amount: 10_000_000, slippageBps: 50 }), 422).error).toBe(
      'INSUFFICIENT_LIQUIDITY',
    );
    expect(
      ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.000000001, slippageBps: 50 }), 422).error,
    ).toBe('INSUFFICIENT_LIQUIDITY');
    expect(ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 500, slippageBps: 50 }), 422).error).toBe(
      'INSUFFICIENT_BALANCE',
    );
    expect(ok(await bob.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 1, slippageBps: 50 }), 404).error).toBe(
      'WALLET_NOT_FOUND',
    );
    for (const body of [
      { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 1, slippageBps: 5001 },
      { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: -1, slippageBps: 5 },
      { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 1 },
    ]) {
      expect(ok(await alice.post('/api/swap/quote', body), 400).error).toBe('INVALID_INPUT');
    }
  });
});

describe('execution', () => {
  it('executes a quote exactly: balances and reserves move by the quoted amounts, k does not decrease', async () => {
    const r = await reservesOf(alice);
    const q = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 3, slippageBps: 50 }));
    const e = expected(r.sol, r.usd, 3_000_000_000n);
    const x = ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
    expect(x).toMatchObject({
      success: true,
      txHash: expect.any(String),
      amountIn: '3000000000',
      amountOut: e.amountOut.toString(),
      outputAddress: aliceWallet.address,
    });
    const after = await reservesOf(alice);
    expect(after.sol).toBe(r.sol + 3_000_000_000n);
    expect(after.usd).toBe(r.usd - e.amountOut);
    expect(after.sol * after.usd).toBeGreaterThanOrEqual(r.sol * r.usd);
    expect(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${sUSD}`)).balance).toBe(e.amountOut.toString());

    // and back: sUSD → SOL, the lamports arrive unwrapped in the wallet
    const before = BigInt(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance`)).balance);
    const back = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: sUSD, to: 'SOL', amount: 100, slippageBps: 50 }));
    const e2 = expected(after.usd, after.sol, 100_000_000n);
    expect(back.amountOut).toBe(e2.amountOut.toString());
    ok(await alice.post('/api/swap/execute', { quoteId: back.quoteId }));
    const lamportsNow = BigInt(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance`)).balance);
    expect(lamportsNow - before).toBeLessThanOrEqual(e2.amountOut);
    expect(lamportsNow - before).toBeGreaterThan(e2.amountOut - 30_000n); // only the signature fees
    const end = await reservesOf(alice);
    expect(end.sol * end.usd).toBeGreaterThanOrEqual(after.sol * after.usd);

    const orders = ok(await alice.get('/api/swap/orders')).orders;
    expect(orders.map((o: { id: string }) => o.id)).toEqual(expect.arrayContaining([q.quoteId, back.quoteId]));
    expect(ok(await alice.get(`/api/swap/orders/${q.quoteId}`)).order).toMatchObject({
      status: 'executed',
      txHash: x.txHash,
      amountOut: e.amountOut.toString(),
    });
    expect(ok(await bob.get(`/api/swap/orders/${q.quoteId}`), 404).error).toBe('NOT_FOUND');
  });

  it("landed, then the pool lease's release fails (DynamoDB down): 200 all the same, the order executed (not failed), the key keeps that answer", async () => {
    const q = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 100 }));
    const headers = { 'idempotency-key': `pool-release-lost-${q.quoteId}` };
    const { out: x, failed } = await withDynamoFailing(
      (command, input) => command === 'DeleteItemCommand' && input.includes('SWAPPOOLLOCK#'),
      () => alice.post('/api/swap/execute', { quoteId: q.quoteId }, { headers }),
      1,
    );
    expect(failed).toBe(1);
    expect(x.status, JSON.stringify(x.json)).toBe(200);
    expect(ok(await alice.get(`/api/swap/orders/${q.quoteId}`)).order).toMatchObject({ status: 'executed', txHash: x.json.txHash });
    const again = await alice.post('/api/swap/execute', { quoteId: q.quoteId }, { headers });
    expect([again.status, again.headers.get('idempotent-replayed'), again.json.txHash]).toEqual([200, 'true', x.json.txHash]);
    // The pool's lease lapses by itself.
    advanceClock(61_000);
    ok(
      await alice.post('/api/swap/execute', {
        quoteId: ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.1, slippageBps: 100 })).quoteId,
      }),
    );
  });

  it("landed, then the order's executed mark cannot be written (DynamoDB down): 200 all the same, the key keeps that answer; the journal's pass executes the order", async () => {
    const q = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 100 }));
    const headers = { 'idempotency-key': `executed-lost-${q.quoteId}` };
    // Every write of the order as executed: the journal's settlement (the move stays open) and the request's own.
    const { out: x, failed } = await withDynamoFailing(
      (command, input) => command === 'UpdateItemCommand' && input.includes('executedAmountOut = :a') && input.includes(q.quoteId),
      () => alice.post('/api/swap/execute', { quoteId: q.quoteId }, { headers }),
    );
    expect(failed).toBeGreaterThanOrEqual(2);
    expect(x.status, JSON.stringify(x.json)).toBe(200);
    const again = await alice.post('/api/swap/execute', { quoteId: q.quoteId }, { headers });
    expect([again.status, again.headers.get('idempotent-replayed'), again.json.txHash]).toEqual([200, 'true', x.json.txHash]);
    expect(ok(await alice.get(`/api/swap/orders/${q.quoteId}`)).order).toMatchObject({ status: 'executing' });
    await (await import('#lib/moves/journal.ts')).resolveMovesOnce();
    expect(ok(await alice.get(`/api/swap/orders/${q.quoteId}`)).order).toMatchObject({ status: 'executed', txHash: x.json.txHash });
  });

  it('a quote executes once: a replay is refused, an expired quote is 410, a foreign quote 404', async () => {
    const q = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 50 }));
    const results = await Promise.all([1, 2, 3].map(() => alice.post('/api/swap/execute', { quoteId: q.quoteId })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expect([r.status, r.json.error]).toEqual([409, 'QUOTE_USED']);
    expect(ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }), 409).error).toBe('QUOTE_USED');

    const old = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 50 }));
    advanceClock(31_000);
    expect(ok(await alice.post('/api/swap/execute', { quoteId: old.quoteId }), 410).error).toBe('QUOTE_EXPIRED');
    const foreign = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 50 }));
    expect(ok(await bob.post('/api/swap/execute', { quoteId: foreign.quoteId }), 404).error).toBe('QUOTE_NOT_FOUND');
    expect(ok(await alice.post('/api/swap/execute', { quoteId: 'nope' }), 404).error).toBe('QUOTE_NOT_FOUND');
  });

  it("a swap that moved the price past a quote's minimum makes it 409 SLIPPAGE_EXCEEDED; within slippage it is re-priced", async () => {
    const tight = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 1, slippageBps: 0 }));
    const loose = ok(await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 1, slippageBps: 500 }));
    const big = ok(await bob.post('/api/swap/quote', { walletId: bobWallet.id, from: 'SOL', to: 'sUSD', amount: 5, slippageBps: 50 }));
    ok(await bob.post('/api/swap/execute', { quoteId: big.quoteId }));
    const r = await reservesOf(alice);
    expect(ok(await alice.post('/api/swap/execute', { quoteId: tight.quoteId }), 409).error).toBe('SLIPPAGE_EXCEEDED');
    expect(ok(await alice.get(`/api/swap/orders/${tight.quoteId}`)).order).toMatchObject({ status: 'failed', failure: 'SLIPPAGE_EXCEEDED' });
    const x = ok(await alice.post('/api/swap/execute', { quoteId: loose.quoteId }));
    const e = expected(r.sol, r.usd, 1_000_000_000n);
    expect(x.amountOut).toBe(e.amountOut.toString());
    expect(BigInt(x.amountOut)).toBeLessThan(BigInt(loose.amountOut));
    expect(BigInt(x.amountOut)).toBeGreaterThanOrEqual(BigInt(loose.minAmountOut));
  });

  it('parallel swaps on one pool: each priced from the reserves it met, k never decreases, none below its minimum', async () => {
    const start = await reservesOf(alice);
    const quotes = [];
    for (const [c, w] of [
      [alice, aliceWallet],
      [bob, bobWallet],
      [alice, aliceWallet],
      [bob, bobWallet],
    ] as const) {
      quotes.push({ c, q: ok(await c.post('/api/swap/quote', { walletId: w.id, from: 'SOL', to: 'sUSD', amount: 0.7, slippageBps: 200 })) });
    }
    const results = await Promise.all(quotes.map(({ c, q }) => c.post('/api/swap/execute', { quoteId: q.quoteId })));
    const sol = start.sol;
    const usd = start.usd;
    let done = 0;
    for (const [i, r] of results.entries()) {
      if (r.status === 200) {
        done++;
        expect(BigInt(r.json.amountOut)).toBeGreaterThanOrEqual(BigInt(quotes[i]!.q.minAmountOut));
      } else {
        // the same wallet twice at once: the second finds the wallet's lease taken, and its quote
        // stays executable (nothing was built)
        expect([r.status, r.json.error]).toEqual([409, 'WALLET_LOCKED']);
        expect(ok(await quotes[i]!.c.get(`/api/swap/orders/${quotes[i]!.q.quoteId}`)).order.status).toBe('quoted');
      }
    }
    expect(done).toBeGreaterThanOrEqual(2);
    // some order of the executed swaps, each priced exactly by the rule from the reserves it met,
    // gives the end reserves, and k rises at every step
    const end = await reservesOf(alice);
    const outs = results.filter((r) => r.status === 200).map((r) => BigInt(r.json.amountOut));
    const permutations = (xs: bigint[]): bigint[][] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    const consistent = permutations(outs).some((order) => {
      let [s, u] = [sol, usd];
      for (const out of order) {
        if (expected(s, u, 700_000_000n).amountOut !== out) return false;
        const k = s * u;
        s += 700_000_000n;
        u -= out;
        if (s * u < k) return false;
      }
      return s === end.sol && u === end.usd;
    });
    expect(consistent).toBe(true);
  });

  it('one-time output: the tokens land on a fresh address listed for the user, not on the wallet', async () => {
    const before = BigInt(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${sUSD}`)).balance);
    const q = ok(
      await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.25, slippageBps: 100, output: 'one-time' }),
    );
    const x = ok(await alice.post('/api/swap/execute', { quoteId: q.quoteId }));
    expect(x.outputAddress).not.toBe(aliceWallet.address);
    expect(ok(await alice.get(`/api/wallets/${aliceWallet.id}/balance?mint=${sUSD}`)).balance).toBe(before.toString());
    const listed = ok(await alice.get('/api/swap/addresses')).addresses;
    expect(listed).toContainEqual({ address: x.outputAddress, orderId: q.quoteId, createdAt: expect.any(String) });
    expect(ok(await bob.get('/api/swap/addresses')).addresses.map((a: { address: string }) => a.address)).not.toContain(x.outputAddress);
    // a second private swap gets another address
    const q2 = ok(
      await alice.post('/api/swap/quote', { walletId: aliceWallet.id, from: 'SOL', to: 'sUSD', amount: 0.25, slippageBps: 100, output: 'one-time' }),
    );
    const x2 = ok(await alice.post('/api/swap/execute', { quoteId: q2.quoteId }));
    expect(x2.outputAddress).not.toBe(x.outputAddress);
    // the chain holds the output at the fresh address (read through the runtime's chain)
    const { chainA } = await import('#lib/chains/chain-a/index.ts');
    const { tokenBalance } = await import('#lib/chains/chain-a/operations.ts');
    const { PublicKey } = await import('@solana/web3.js');
    expect(await tokenBalance(await chainA(), new PublicKey(x.outputAddress), new PublicKey(sUSD))).toBe(BigInt(x.amountOut));
  });
});
