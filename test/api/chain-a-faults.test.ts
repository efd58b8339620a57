import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNote, noteCommitment } from '#lib/client/transfer-note.ts';
import { fetchLeaves, proveWithdrawal } from '#lib/client/withdraw-proof.ts';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Shielded payouts and deposits against chain A as a cluster behaves (lib/chains/chain-a/faults.ts,
 * CHAIN_FAULTS): a status leaves the recent cache after 150 slots unless the history is searched,
 * and a resend of a transaction that landed long ago is refused with BlockhashNotFound, as one that
 * never landed is. The retry job must tell them apart by the chain's word (issue 36, defect 1).
 */
let rt: TestRuntime;
let alice: HttpClient;
let anonymous: HttpClient;
let wallet: { id: string; address: string };
let chain: FaultyChainA;
const POOL = 'sol-0.1';
const DENOMINATION = 100_000_000n;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', CHAIN_FAULTS: 'slot-ms=0' });
  alice = rt.client();
  anonymous = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  expect((await anonymous.get('/api/transfer/pools')).status).toBe(200);
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
  expect(chain.options.window).toBe(150);
}, 120_000);
afterAll(async () => {
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
  await rt?.stop();
});
beforeEach(() => {
  chain.clearInjected();
  advanceClock(61_000);
});

const balance = async (address: string) => BigInt(await chain.rpc.getBalance(new PublicKey(address)));
const retry = async () => {
  advanceClock(61_000); // older than TRANSFER_RETRY_AFTER_SECONDS
  return (await import('#lib/transfer/retry.ts')).retryTransfersOnce();
};

describe('the status cache forgets, the history does not', () => {
  it("the fault layer: a landed transaction's status is gone from the cache after 150 slots, found with searchTransactionHistory", async () => {
    const payer = Keypair.generate();
    await chain.airdrop(payer.publicKey, 1_000_000_000n);
    const { signedTransfer } = await import('#lib/transfer/chain.ts'); // after the runtime set the environment
    const signed = await signedTransfer(chain, payer, Keypair.generate().publicKey, 1_000_000n);
    const sent = await chain.sendAndConfirm(signed.tx);
    const { value } = await chain.rpc.getSignatureStatuses([sent.signature]);
    expect(value[0]).not.toBeNull();
    await expect(chain.sendAndConfirm(signed.tx)).rejects.toThrow(/AlreadyProcessed/);
    chain.advanceSlots(151);
    expect((await chain.rpc.getSignatureStatuses([sent.signature])).value[0]).toBeNull();
    expect((await chain.rpc.getSignatureStatuses([sent.signature], { searchTransactionHistory: true })).value[0]).not.toBeNull();
    // The resend of a transaction that landed long ago is refused as one that never did.
    await expect(chain.sendAndConfirm(signed.tx)).rejects.toThrow(/BlockhashNotFound/);
    expect(await chain.rpc.getBlockHeight()).toBeGreaterThan(signed.lastValidBlockHeight);
  });

  it('a payout that landed while its worker lost the answer is paid once, even after its status left the cache', async () => {
    const note = createNote(POOL);
    const dep = await alice.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment: await noteCommitment(note) });
    expect(dep.status, JSON.stringify(dep.json)).toBe(200);
    const leaves = await fetchLeaves(async (path) => (await anonymous.get(path)).json, POOL);
    const recipient = Keypair.generate().publicKey.toBase58();
    const request = await proveWithdrawal(note, leaves, recipient, { relayerFee: 0n });

    chain.inject('late'); // the payout lands; its confirmation does not come in time
    const res = await anonymous.post('/api/transfer/withdraw', request);
    expect(res.json.status).toBe('pending');
    expect(await balance(recipient)).toBe(DENOMINATION);

    chain.advanceSlots(200); // its status leaves the cache, its blockhash expires
    await retry();
    const job = (await anonymous.get(`/api/transfer/jobs/${res.json.jobId}`)).json;
    expect(job.status).toBe('paid');
    expect(await balance(recipient)).toBe(DENOMINATION);
    await retry();
    expect(await balance(recipient)).toBe(DENOMINATION);
  });

  it('a deposit whose transfer landed while its request lost the answer is appended, not dropped, after its status left the cache', async () => {
    const pool = (await anonymous.get(`/api/transfer/pools/${POOL}`)).json;
    const poolBefore = await balance(pool.address);
    const commitment = await noteCommitment(createNote(POOL));
    chain.inject('late');
    const res = await alice.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment });
    expect(res.status).not.toBe(200);
    expect(await balance(pool.address)).toBe(poolBefore + DENOMINATION);

    chain.advanceSlots(200);
    const report = await retry();
    expect(report.depositsDropped).toBe(0);
    const { deposits } = (await alice.get('/api/transfer/deposits')).json as { deposits: { commitment: string; status: string }[] };
    expect(deposits.find((d) => d.commitment === commitment)?.status).toBe('complete');
    const leaves = await fetchLeaves(async (path) => (await anonymous.get(path)).json, POOL);
    expect(leaves.map(String)).toContain(commitment);
  });

  it('a deposit whose transfer was accepted but never landed is dropped only once its blockhash expired', async () => {
    const pool = (await anonymous.get(`/api/transfer/pools/${POOL}`)).json;
    const poolBefore = await balance(pool.address);
    const commitment = await noteCommitment(createNote(POOL));
    chain.inject('dropped');
    const res = await alice.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment });
    expect(res.status).not.toBe(200);
    const list = async () => ((await alice.get('/api/transfer/deposits')).json as { deposits: { commitment: string; status: string }[] }).deposits;

    expect(res.status).toBe(202); // submitted: the journal holds the wallet and the key for it
    // The resends time out (the deposit's own pass, then the journal's): that decides nothing.
    chain.inject('rpc-timeout');
    chain.inject('rpc-timeout');
    expect((await retry()).depositsDropped).toBe(0);
    chain.advanceSlots(200);
    expect((await retry()).depositsDropped).toBe(1);
    expect((await list()).find((d) => d.commitment === commitment)).toBeUndefined();
    expect(await balance(pool.address)).toBe(poolBefore);
  });
});

describe("the test-token faucet: the service's mint authority signs, through the journal", () => {
  it('a mint confirmed after the timeout: 202 submitted; a retry with the same key mints nothing more; the journal settles it landed', async () => {
    const mintOnce = (key: string, amount: number) =>
      alice.request('POST', '/api/transfer/test-tokens', { json: { walletId: wallet.id, amount }, headers: { 'idempotency-key': key } });
    const first = await mintOnce('faucet-first', 1); // creates the test token, without faults
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const { tokenBalance } = await import('#lib/chains/chain-a/operations.ts');
    const held = () => tokenBalance(chain, new PublicKey(wallet.address), new PublicKey(first.json.mint));
    const before = await held();

    chain.inject('late'); // it lands; its confirmation does not come in time
    const a = await mintOnce('faucet-late', 5);
    expect(a.status, JSON.stringify(a.json)).toBe(202);
    expect(a.json).toMatchObject({ status: 'submitted', txHash: expect.any(String) });
    const again = await mintOnce('faucet-late', 5);
    expect([again.status, again.json.txHash]).toEqual([202, a.json.txHash]);
    expect(await held()).toBe(before + 5_000_000n);

    await retry();
    const { getMove } = await import('#lib/data/value-moves.ts');
    expect(await getMove(a.json.txHash)).toMatchObject({ status: 'landed', purpose: { kind: 'wallet-send', operation: 'test-tokens' } });
    expect((await mintOnce('faucet-late', 5)).json.txHash).toBe(a.json.txHash);
    expect(await held()).toBe(before + 5_000_000n);
  });
});
