import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNote, noteCommitment } from '#lib/client/transfer-note.ts';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * The chain A value moves journaled after compression (issue 36: shielded deposits, token
 * creation, swaps, sweeps, the service's own bridge deposit), over HTTP against the fault layer
 * (CHAIN_FAULTS): a send confirmed after the client's timeout answers 202 `submitted`, a retry
 * with the same Idempotency-Key gets that answer again and never a second signed transaction, and
 * the move that landed late is recorded (the deposit appended, the order executed), not lost.
 * Before the journal took them: 502 RPC_ERROR, the key released, the record dropped or failed.
 */
let rt: TestRuntime;
let alice: HttpClient;
let aliceId: string;
let wallet: { id: string; address: string };
let chain: FaultyChainA;
let keys = 0;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '50', CHAIN_FAULTS: 'slot-ms=0' });
  alice = rt.client();
  aliceId = (await signedInUser(alice)).user.id;
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  for (let i = 0; i < 2; i++) expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
}, 120_000);
afterAll(async () => {
  await (await import('#lib/zk/groth16.ts')).terminateCurves().catch(() => undefined);
  await rt?.stop();
});
beforeEach(() => {
  chain.clearInjected();
  advanceClock(61_000);
});

const post = (path: string, body: object, key: string) => alice.post(path, body, { headers: { 'idempotency-key': key } });
/** The transfer retry job's pass (deposits, payouts and the journal), past TRANSFER_RETRY_AFTER_SECONDS. */
const retryJob = async () => {
  advanceClock(61_000);
  return (await import('#lib/transfer/retry.ts')).retryTransfersOnce();
};
const lamports = async (a: string | PublicKey) => BigInt(await chain.rpc.getBalance(new PublicKey(a)));

/**
 * The route's move meets `late` (landed, confirmed after the timeout): 202 submitted; the retry
 * with the same key is answered from the first (202, same transaction, or 409 while in progress);
 * exactly one transaction landed. Returns its hash.
 */
async function lateOnce(path: string, body: object): Promise<string> {
  const key = `late-${++keys}`;
  const before = new Set(chain.landedSignatures());
  chain.inject('late');
  const first = await post(path, body, key);
  expect(first.status, JSON.stringify(first.json)).toBe(202);
  expect(first.json).toMatchObject({ status: 'submitted', txHash: expect.any(String), explorerUrl: expect.any(String) });
  const again = await post(path, body, key);
  expect([202, 409], JSON.stringify(again.json)).toContain(again.status);
  if (again.status === 202) expect(again.json.txHash).toBe(first.json.txHash);
  else expect(again.json.error).toBe('IDEMPOTENCY_IN_PROGRESS');
  const landed = chain.landedSignatures().filter((s) => !before.has(s));
  expect(landed).toEqual([first.json.txHash]);
  return first.json.txHash as string;
}

describe("a value move confirmed after the client's timeout is sent once and recorded", () => {
  it('shielded deposit: 202, one transfer, appended by the retry job; the wallet is held until then', async () => {
    const pool = (await alice.get('/api/transfer/pools/sol-0.1')).json;
    const poolBefore = await lamports(pool.address);
    const commitment = await noteCommitment(createNote('sol-0.1'));
    const txHash = await lateOnce('/api/transfer/deposit', { pool: 'sol-0.1', walletId: wallet.id, commitment });
    expect(await lamports(pool.address)).toBe(poolBefore + 100_000_000n);
    const report = await retryJob();
    expect(report.moves?.landed).toBe(1);
    const { deposits } = (await alice.get('/api/transfer/deposits')).json as { deposits: { commitment: string; status: string; txHash: string }[] };
    expect(deposits.find((d) => d.commitment === commitment)).toMatchObject({ status: 'complete', txHash });
    // Settled: the wallet signs again.
    expect((await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 0.01 })).status).toBe(200);
  });

  it('create-token: 202, one mint created; the journal settles it landed', async () => {
    const txHash = await lateOnce('/api/compression/create-token', { walletId: wallet.id, decimals: 6 });
    expect((await retryJob()).moves?.landed).toBe(1);
    const { getMove } = await import('#lib/data/value-moves.ts');
    expect(await getMove(txHash)).toMatchObject({ status: 'landed', purpose: { kind: 'wallet-send', operation: 'create-token' } });
  });

  it('swap: 202, one swap; the order stays executing, then the journal executes it (before: failed though it landed)', async () => {
    const q = (await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 100 })).json;
    expect(q.quoteId).toEqual(expect.any(String));
    const txHash = await lateOnce('/api/swap/execute', { quoteId: q.quoteId });
    expect((await alice.get(`/api/swap/orders/${q.quoteId}`)).json.order.status).toBe('executing');
    expect((await retryJob()).moves?.landed).toBe(1);
    expect((await alice.get(`/api/swap/orders/${q.quoteId}`)).json.order).toMatchObject({ status: 'executed', txHash, amountOut: q.amountOut });
  });

  it('sweep: 202, one transfer from the one-time address', async () => {
    const q = (await alice.post('/api/swap/quote', { walletId: wallet.id, from: 'SOL', to: 'sUSD', amount: 0.5, slippageBps: 100, output: 'one-time' })).json;
    const x = await alice.post('/api/swap/execute', { quoteId: q.quoteId });
    expect(x.status, JSON.stringify(x.json)).toBe(200);
    const to = Keypair.generate().publicKey.toBase58();
    const { tokenBalance } = await import('#lib/chains/chain-a/operations.ts');
    const mint = new PublicKey((await alice.get('/api/swap/pairs')).json.pairs[0].quote.mint);
    const held = await tokenBalance(chain, new PublicKey(x.json.outputAddress), mint);
    await lateOnce(`/api/swap/addresses/${x.json.outputAddress}/sweep`, { to });
    expect(await tokenBalance(chain, new PublicKey(to), mint)).toBe(held);
    expect(await tokenBalance(chain, new PublicKey(x.json.outputAddress), mint)).toBe(0n);
    expect((await retryJob()).moves?.landed).toBe(1);
  });

  it("the service's bridge deposit: 202 with its record, one transfer into the escrow; the relayer credits it once the journal settled it", async () => {
    const dest = '0x0' + '5ab1e'.padStart(63, '7');
    const body = { bridgeType: 'chaina-chainb', direction: 'deposit', token: 'SOL', amount: '0.5', destAddress: dest, walletId: wallet.id };
    const key = `late-${++keys}`;
    const before = new Set(chain.landedSignatures());
    chain.inject('late');
    const first = await post('/api/bridge/initiate', body, key);
    expect(first.status, JSON.stringify(first.json)).toBe(202);
    expect(first.json).toMatchObject({ status: 'submitted', txHash: expect.any(String), transaction: { id: expect.any(String) } });
    const again = await post('/api/bridge/initiate', body, key);
    expect([202, 409]).toContain(again.status);
    expect(chain.landedSignatures().filter((s) => !before.has(s))).toEqual([first.json.txHash]);
    expect((await retryJob()).moves?.landed).toBe(1);
    const { relayBridge } = await import('#lib/bridge/relayer.ts');
    const { readBridge } = await import('#lib/data/bridge-transfers.ts');
    const id = first.json.transaction.id as string;
    for (let i = 0; i < 40; i++) {
      const r = await readBridge(aliceId, id);
      if (r && r.status !== 'submitted' && r.status !== 'pending') break;
      await relayBridge(aliceId, id).catch(() => undefined);
      await new Promise((ok) => setTimeout(ok, 250));
    }
    expect((await readBridge(aliceId, id))?.status).toMatch(/source_confirmed|completed/);
  });
});
