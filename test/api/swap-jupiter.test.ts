import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair, MessageV0, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * The swap routes with SWAP_ADAPTER=jupiter, over HTTP against the local runtime: a loopback
 * server plays Jupiter's API with recorded responses (test/unit/swap/recorded/), the transaction
 * for the caller's wallet being the recorded one with the wallet as its payer. The local chain A
 * has no Jupiter program and not that blockhash, so it refuses the signed transaction: the test
 * shows the route quotes through Jupiter, posts the stored quote back, checks and signs what comes
 * back, sends it — and refuses to sign a transaction that is not a Jupiter swap.
 */
const recorded = (f: string) => JSON.parse(readFileSync(new URL(`../unit/swap/recorded/${f}`, import.meta.url), 'utf8'));
const QUOTE = recorded('jupiter-quote.json');
const SWAP = recorded('jupiter-swap.json');

let jupiter: Server;
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
const posted: { quoteResponse: unknown; userPublicKey: string }[] = [];
let malicious = false;

function rekeyed(user: PublicKey): string {
  const m = VersionedTransaction.deserialize(Buffer.from(SWAP.swapTransaction, 'base64')).message as MessageV0;
  const copy = new MessageV0({
    header: m.header,
    staticAccountKeys: [user, ...m.staticAccountKeys.slice(1)],
    recentBlockhash: m.recentBlockhash,
    compiledInstructions: m.compiledInstructions,
    addressTableLookups: m.addressTableLookups,
  });
  return Buffer.from(new VersionedTransaction(copy).serialize()).toString('base64');
}
function drain(user: PublicKey): string {
  const msg = new TransactionMessage({
    payerKey: user,
    recentBlockhash: '11111111111111111111111111111111',
    instructions: [SystemProgram.transfer({ fromPubkey: user, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000_000 })],
  }).compileToV0Message();
  return Buffer.from(new VersionedTransaction(msg).serialize()).toString('base64');
}

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};

beforeAll(async () => {
  jupiter = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url!.startsWith('/swap/v1/quote')) {
        const amount = new URL(req.url!, 'http://x').searchParams.get('amount');
        if (amount !== QUOTE.inAmount)
          return res.writeHead(400).end(JSON.stringify({ error: 'Could not find any routes for the given input and output mints' }));
        return res.end(JSON.stringify(QUOTE));
      }
      const b = JSON.parse(body);
      posted.push(b);
      const user = new PublicKey(b.userPublicKey);
      res.end(JSON.stringify({ ...SWAP, swapTransaction: malicious ? drain(user) : rekeyed(user) }));
    });
  });
  await new Promise<void>((done) => jupiter.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(jupiter.address() as AddressInfo).port}/swap/v1`;
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', SWAP_ADAPTER: 'jupiter', JUPITER_API_URL: url });
  alice = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  ok(await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 1 }));
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  await new Promise<void>((done) => jupiter.close(() => done()));
});

describe('swap through Jupiter (recorded responses)', () => {
  it('quotes through Jupiter and says so; no pool list', async () => {
    expect(ok(await alice.get('/api/swap/pairs'))).toEqual({ success: true, adapter: 'jupiter', pairs: [] });
    const q = ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'USDC', amount: 0.0000001, slippageBps: 100 }));
    expect(q).toMatchObject({
      amountIn: '100',
      amountOut: '66',
      minAmountOut: '66',
      priceImpactBps: 0,
      from: { symbol: 'SOL', decimals: 9 },
      to: { symbol: 'USDC', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6 },
      route: { adapter: 'jupiter', pairId: 'SOL-USDC', hops: [expect.objectContaining({ label: 'Stabble Weighted Swap', percent: 100 })] },
    });
    expect(ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'USDC', amount: 0.001, slippageBps: 100 }), 400).error).toBe(
      'UNSUPPORTED_PAIR',
    );
    expect(
      ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'USDC', amount: 0.0000001, slippageBps: 100, output: 'one-time' }), 400)
        .error,
    ).toBe('INVALID_INPUT');
  });

  it("executes: the stored quote goes back verbatim, the wallet signs Jupiter's transaction, the chain decides", async () => {
    const q = ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'USDC', amount: 0.0000001, slippageBps: 100 }));
    const x = await alice.post('/api/swap/execute', { quoteId: q.quoteId });
    expect(posted.at(-1)).toEqual({ quoteResponse: QUOTE, userPublicKey: wallet.address, wrapAndUnwrapSol: true, dynamicComputeUnitLimit: true });
    // the local chain has never seen Jupiter's blockhash: BlockhashNotFound decides nothing (a node
    // behind answers so for a blockhash the cluster takes), so the move stays open for the chain to
    // decide (lib/moves/journal.ts): 202 submitted, the order executing
    expect([x.status, x.json.status], JSON.stringify(x.json)).toEqual([202, 'submitted']);
    expect(ok(await alice.get(`/api/swap/orders/${q.quoteId}`)).order).toMatchObject({ status: 'executing' });
  });

  it('never signs a transaction that is not a Jupiter swap', async () => {
    malicious = true;
    const before = BigInt(ok(await alice.get(`/api/wallets/${wallet.id}/balance`)).balance);
    const q = ok(await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'USDC', amount: 0.0000001, slippageBps: 100 }));
    const x = await alice.post('/api/swap/execute', { quoteId: q.quoteId });
    expect([x.status, x.json.error]).toEqual([502, 'RPC_ERROR']);
    expect(x.json.message).toMatch(/refused before signing/);
    expect(BigInt(ok(await alice.get(`/api/wallets/${wallet.id}/balance`)).balance)).toBe(before);
    malicious = false;
  });
});
