import { Keypair, PublicKey } from '@solana/web3.js';
import { buildPoseidon, type Poseidon } from 'circomlibjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNote, noteCommitment, noteNullifierHash, serializeNote, parseNote, type Note } from '#lib/client/transfer-note.ts';
import { fetchLeaves, proveWithdrawal, type WithdrawRequest } from '#lib/client/withdraw-proof.ts';
import { ChainUnavailable } from '#lib/chains/chain-a/port.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';
import { withDynamoFailing } from '../support/dynamo-faults.ts';

/**
 * /api/transfer end to end over HTTP against the local runtime: real deposits on the local chain
 * A (LiteSVM), real Groth16 proofs made by lib/client from the pool's public leaves, real payouts.
 * The root history is 3 here (TRANSFER_ROOT_HISTORY) so that a root can be pushed out of it with
 * a few deposits; the default is 100.
 */
type Chain = Awaited<ReturnType<typeof import('#lib/chains/chain-a/index.ts').chainA>>;

let rt: TestRuntime;
let alice: HttpClient;
let anonymous: HttpClient;
let wallet: { id: string; address: string };
let chain: Chain;
let poseidon: Poseidon;
const POOL = 'sol-0.1';
const DENOMINATION = 100_000_000n;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', TRANSFER_ROOT_HISTORY: '3' });
  alice = rt.client();
  anonymous = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  const drop = await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 });
  if (drop.status !== 200) throw new Error(JSON.stringify(drop.json));
  // The first request creates the pools and the test token (chain transactions): done here, not in a
  // test, retried on 503 as a client does (under the whole suite DynamoDB Local can time out).
  for (let attempt = 1; ; attempt++) {
    const warm = await anonymous.get('/api/transfer/pools');
    if (warm.status === 200) break;
    if (warm.status !== 503 || attempt === 4) throw new Error(`pools: ${warm.status} ${JSON.stringify(warm.json)}`);
    await new Promise((wait) => setTimeout(wait, 2_000));
  }
  // The chain the handlers use (the runtime runs in this process), to read balances and inject faults.
  chain = await (await import('#lib/chains/chain-a/index.ts')).chainA();
  poseidon = await buildPoseidon();
}, 120_000);
afterAll(async () => {
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
  await rt?.stop();
});
beforeEach(() => advanceClock(61_000));

const ok = (res: { status: number; json: unknown }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json as Record<string, any>;
};
const balance = async (address: string) => BigInt(await chain.rpc.getBalance(new PublicKey(address)));
const fresh = () => Keypair.generate().publicKey.toBase58();

/** The root of the depth-20 tree holding `leaves`, computed bottom-up with circomlibjs alone. */
function independentRoot(leaves: bigint[]): bigint {
  const H = (a: bigint, b: bigint) => poseidon.F.toObject(poseidon([a, b]));
  let zero = 0n;
  let level = [...leaves];
  for (let d = 0; d < 20; d++) {
    if (level.length % 2) level.push(zero);
    const next: bigint[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(H(level[i]!, level[i + 1]!));
    level = next.length ? next : [H(zero, zero)];
    zero = H(zero, zero);
  }
  return level[0]!;
}

async function depositNote(pool = POOL): Promise<Note> {
  const note = createNote(pool);
  const res = ok(await alice.post('/api/transfer/deposit', { pool, walletId: wallet.id, commitment: await noteCommitment(note) }));
  expect(res.deposit).toMatchObject({ pool, status: 'complete', commitment: await noteCommitment(note), leafIndex: expect.any(Number) });
  // The note travels as its string form, as a user would keep it.
  return parseNote(serializeNote(note));
}

const leavesOf = (pool = POOL) => fetchLeaves(async (path) => ok(await anonymous.get(path)) as { leaves: string[]; size: number }, pool);
const prove = async (note: Note, recipient: string, relayerFee = 0n) => proveWithdrawal(note, await leavesOf(note.pool), recipient, { relayerFee });

const jobOf = async (jobId: string) => ok(await anonymous.get(`/api/transfer/jobs/${jobId}`));

describe('pools', () => {
  it('lists the pools, each with an empty tree whose root circomlibjs agrees with', async () => {
    const { pools } = ok(await anonymous.get('/api/transfer/pools'));
    expect(pools.map((p: { id: string }) => p.id)).toEqual(['sol-0.1', 'sol-1', 'sol-10', 'test-100', 'test-1000']);
    const tokenPools = pools.filter((p: { token: string }) => p.token === 'TEST');
    expect(tokenPools.map((p: { formatted: string }) => p.formatted)).toEqual(['100', '1000']);
    expect(new Set(tokenPools.map((p: { mint: string }) => p.mint)).size).toBe(1);
    const p = ok(await anonymous.get(`/api/transfer/pools/${POOL}`));
    expect(p).toMatchObject({ success: true, id: POOL, token: 'SOL', denomination: '100000000', formatted: '0.1', decimals: 9, size: 0 });
    expect(p.root).toBe(independentRoot([]).toString());
    expect(ok(await anonymous.get(`/api/transfer/pools/${POOL}/leaves?from=0`))).toMatchObject({ leaves: [], size: 0 });
    expect((await anonymous.get('/api/transfer/pools/nope')).json.error).toBe('POOL_NOT_FOUND');
    expect((await anonymous.get('/api/transfer/pools/nope')).status).toBe(404);
  });
});

describe('deposit and withdraw', () => {
  let note: Note;
  let request: WithdrawRequest;
  let recipient: string;

  it("A deposits 0.1: the wallet pays it to the pool account, the commitment is leaf 0, the root is circomlibjs's", async () => {
    const pool = ok(await anonymous.get(`/api/transfer/pools/${POOL}`));
    const [walletBefore, poolBefore] = [await balance(wallet.address), await balance(pool.address)];
    note = await depositNote();
    expect(await balance(pool.address)).toBe(poolBefore + DENOMINATION);
    expect(walletBefore - (await balance(wallet.address))).toBe(DENOMINATION + 5_000n);
    const after = ok(await anonymous.get(`/api/transfer/pools/${POOL}`));
    expect(after.size).toBe(1);
    expect(after.root).toBe(independentRoot([BigInt(await noteCommitment(note))]).toString());
    const { deposits } = ok(await alice.get('/api/transfer/deposits'));
    expect(deposits).toHaveLength(1);
    expect(deposits[0]).toMatchObject({ pool: POOL, walletId: wallet.id, status: 'complete', leafIndex: 0, root: after.root, txHash: expect.any(String) });
    expect((await anonymous.get('/api/transfer/deposits')).status).toBe(401);
  });

  it('no one signed in withdraws to a fresh address with a lib/client proof: paid exactly the denomination, once', async () => {
    recipient = fresh();
    request = await prove(note, recipient);
    const res = ok(await anonymous.post('/api/transfer/withdraw', request));
    expect(res).toEqual({ success: true, jobId: expect.any(String), status: 'paid' });
    const job = await jobOf(res.jobId);
    expect(job).toMatchObject({
      jobId: res.jobId,
      pool: POOL,
      status: 'paid',
      recipient,
      amount: '100000000',
      fee: '0',
      attempts: 1,
      txHash: expect.any(String),
    });
    expect(await balance(recipient)).toBe(DENOMINATION);
    const spent = ok(await anonymous.get(`/api/transfer/nullifiers/${request.nullifierHash}`));
    expect(spent).toMatchObject({ nullifierHash: await noteNullifierHash(note), spent: true, jobId: res.jobId });
  });

  it('the same nullifier again is 409 NULLIFIER_SPENT, and nothing more is paid', async () => {
    const again = await anonymous.post('/api/transfer/withdraw', request);
    expect(again.status).toBe(409);
    expect(again.json.error).toBe('NULLIFIER_SPENT');
    const other = fresh();
    const again2 = await anonymous.post('/api/transfer/withdraw', await prove(note, other));
    expect(again2.json.error).toBe('NULLIFIER_SPENT');
    expect(await balance(recipient)).toBe(DENOMINATION);
    expect(await balance(other)).toBe(0n);
  });

  it('a proof for one recipient or fee is refused for another (INVALID_PROOF), and the note stays unspent', async () => {
    const n = await depositNote();
    const proved = await prove(n, fresh(), 1_000n);
    const thief = fresh();
    const redirected = await anonymous.post('/api/transfer/withdraw', { ...proved, recipient: thief });
    expect(redirected.json.error).toBe('INVALID_PROOF');
    const feeChanged = await anonymous.post('/api/transfer/withdraw', { ...proved, relayerFee: '2000' });
    expect(feeChanged.json.error).toBe('INVALID_PROOF');
    const otherNullifier = await anonymous.post('/api/transfer/withdraw', { ...proved, nullifierHash: await noteNullifierHash(createNote(POOL)) });
    expect(otherNullifier.json.error).toBe('INVALID_PROOF');
    expect(await balance(thief)).toBe(0n);
    expect(ok(await anonymous.get(`/api/transfer/nullifiers/${proved.nullifierHash}`)).spent).toBe(false);
    // The genuine request still works, and the fee stays in the pool.
    const res = ok(await anonymous.post('/api/transfer/withdraw', proved));
    expect(res.status).toBe('paid');
    expect(await balance(proved.recipient)).toBe(DENOMINATION - 1_000n);
  });

  it('a root pushed out of the history is UNKNOWN_ROOT; a proof against the current root is paid', async () => {
    const n = await depositNote();
    const stale = await prove(n, fresh());
    for (let i = 0; i < 3; i++) await depositNote();
    const refused = await anonymous.post('/api/transfer/withdraw', stale);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe('UNKNOWN_ROOT');
    const current = await prove(n, stale.recipient);
    expect(ok(await anonymous.post('/api/transfer/withdraw', current)).status).toBe('paid');
    expect(await balance(stale.recipient)).toBe(DENOMINATION);
    // The tree still matches an independent computation over every leaf.
    const leaves = (await leavesOf()).map(BigInt);
    expect(ok(await anonymous.get(`/api/transfer/pools/${POOL}`)).root).toBe(independentRoot(leaves).toString());
  });

  it('parallel deposits from two wallets both land in the tree, at distinct indices, under the right root', async () => {
    const second = (await alice.post('/api/wallets', { chain: 'a', name: 'second' })).json.wallet;
    ok(await alice.post(`/api/wallets/${second.id}/airdrop`, { amount: 1 }));
    const [n1, n2] = [createNote(POOL), createNote(POOL)];
    const results = await Promise.all([
      alice.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment: await noteCommitment(n1) }),
      alice.post('/api/transfer/deposit', { pool: POOL, walletId: second.id, commitment: await noteCommitment(n2) }),
    ]);
    const indices = results.map((r) => ok(r).deposit.leafIndex as number);
    expect(new Set(indices).size).toBe(2);
    const leaves = await leavesOf();
    expect(leaves[indices[0]!]).toBe(await noteCommitment(n1));
    expect(leaves[indices[1]!]).toBe(await noteCommitment(n2));
    expect(ok(await anonymous.get(`/api/transfer/pools/${POOL}`)).root).toBe(independentRoot(leaves.map(BigInt)).toString());
  });

  it('two parallel withdrawals with one nullifier: one is paid, the other is 409', async () => {
    const n = await depositNote();
    const [a, b] = [fresh(), fresh()];
    const [ra, rb] = await Promise.all([prove(n, a), prove(n, b)]);
    const results = await Promise.all([anonymous.post('/api/transfer/withdraw', ra), anonymous.post('/api/transfer/withdraw', rb)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.json.error).toBe('NULLIFIER_SPENT');
    expect((await balance(a)) + (await balance(b))).toBe(DENOMINATION);
  });
});

describe('a token pool', () => {
  it('test tokens to the wallet, a deposit of 100 into test-100, a withdrawal of exactly 100 to a fresh address', async () => {
    const { tokenBalance } = await import('#lib/chains/chain-a/operations.ts');
    const pool = ok(await anonymous.get('/api/transfer/pools/test-100'));
    const mint = new PublicKey(pool.mint);
    const minted = ok(await alice.post('/api/transfer/test-tokens', { walletId: wallet.id, amount: 250 }));
    expect(minted).toMatchObject({ mint: pool.mint, amount: '250000000', decimals: 6 });
    expect(await tokenBalance(chain, new PublicKey(wallet.address), mint)).toBe(250_000_000n);

    const note = createNote('test-100');
    const dep = ok(await alice.post('/api/transfer/deposit', { pool: 'test-100', walletId: wallet.id, commitment: await noteCommitment(note) }));
    expect(dep.deposit).toMatchObject({ pool: 'test-100', status: 'complete', leafIndex: 0 });
    expect(await tokenBalance(chain, new PublicKey(wallet.address), mint)).toBe(150_000_000n);
    expect(await tokenBalance(chain, new PublicKey(pool.address), mint)).toBe(100_000_000n);
    // 1000 tokens are more than the wallet holds
    const poor = await alice.post('/api/transfer/deposit', {
      pool: 'test-1000',
      walletId: wallet.id,
      commitment: await noteCommitment(createNote('test-1000')),
    });
    expect(poor.json.error).toBe('INSUFFICIENT_BALANCE');

    const recipient = fresh();
    const res = ok(await anonymous.post('/api/transfer/withdraw', await prove(note, recipient)));
    expect(res.status).toBe('paid');
    expect(await tokenBalance(chain, new PublicKey(recipient), mint)).toBe(100_000_000n);
    expect(await tokenBalance(chain, new PublicKey(pool.address), mint)).toBe(0n);
  });
});

describe('payouts that fail', () => {
  /** Makes the chain's next send fail: before it reaches the chain, or after the chain took it. */
  function failNextSend(when: 'before' | 'after') {
    const original = chain.sendAndConfirm.bind(chain);
    chain.sendAndConfirm = async (tx) => {
      chain.sendAndConfirm = original;
      if (when === 'after') await original(tx);
      throw new ChainUnavailable('injected: the connection dropped');
    };
  }

  for (const when of ['before', 'after'] as const) {
    it(`a payout that fails once (${when} the chain took it) is retried by the job and paid exactly once`, async () => {
      const { retryTransfersOnce } = await import('#lib/transfer/retry.ts');
      const n = await depositNote();
      const recipient = fresh();
      const req = await prove(n, recipient);
      failNextSend(when);
      const res = ok(await anonymous.post('/api/transfer/withdraw', req));
      expect(res.status).toBe('pending');
      const pending = ok(await anonymous.get(`/api/transfer/jobs/${res.jobId}`));
      expect(pending).toMatchObject({ status: 'pending', attempts: 1 });
      expect(pending.txHash).toBeUndefined();
      expect(await balance(recipient)).toBe(when === 'after' ? DENOMINATION : 0n);

      advanceClock(61_000); // older than TRANSFER_RETRY_AFTER_SECONDS
      const report = await retryTransfersOnce();
      expect(report.jobsPaid).toBeGreaterThanOrEqual(1);
      const job = ok(await anonymous.get(`/api/transfer/jobs/${res.jobId}`));
      expect(job).toMatchObject({ status: 'paid', attempts: 2, txHash: expect.any(String) });
      expect(await balance(recipient)).toBe(DENOMINATION);

      advanceClock(61_000);
      await retryTransfersOnce();
      expect(await balance(recipient)).toBe(DENOMINATION);
      expect(ok(await anonymous.get(`/api/transfer/jobs/${res.jobId}`)).attempts).toBe(2);
    });
  }
});

describe('bookkeeping that fails after the chain moved value', () => {
  it("the append into the tree fails after the transfer landed: 200 all the same with the deposit `transferred` (the note is the caller's), the key keeps that answer; the retry job appends it once", async () => {
    const { retryTransfersOnce } = await import('#lib/transfer/retry.ts');
    const note = createNote(POOL);
    const commitment = await noteCommitment(note);
    const before = await balance(wallet.address);
    const body = { pool: POOL, walletId: wallet.id, commitment };
    const headers = { 'idempotency-key': `append-lost-${commitment.slice(0, 16)}` };
    // The append: the pool's size, the leaf and the deposit's completion in one transaction.
    const { out: r, failed } = await withDynamoFailing(
      (_, input) => input.includes('leafIndex = :i'),
      () => alice.post('/api/transfer/deposit', body, { headers }),
    );
    expect(failed).toBeGreaterThanOrEqual(1);
    const dep = ok(r).deposit;
    expect(dep).toMatchObject({ pool: POOL, commitment, status: 'transferred', txHash: expect.any(String) });
    expect(dep.leafIndex).toBeUndefined();
    expect(before - (await balance(wallet.address))).toBeGreaterThanOrEqual(DENOMINATION);
    // A retry with the key (as lib/client does on a 503) gets that answer, not INVALID_COMMITMENT.
    const again = await alice.post('/api/transfer/deposit', body, { headers });
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.deposit.txHash).toBe(dep.txHash);
    advanceClock(61_000); // older than TRANSFER_RETRY_AFTER_SECONDS
    expect((await retryTransfersOnce()).depositsAppended).toBeGreaterThanOrEqual(1);
    const { deposits } = ok(await alice.get('/api/transfer/deposits'));
    expect(deposits.filter((d: { commitment: string }) => d.commitment === commitment)).toEqual([
      expect.objectContaining({ status: 'complete', txHash: dep.txHash, leafIndex: expect.any(Number) }),
    ]);
  });

  it('a withdrawal paid whose job cannot be read back after it (DynamoDB failing): 200 `paid` with its job id, not a 500 for money that moved; paid once', async () => {
    const note = await depositNote();
    const recipient = fresh();
    const request = await prove(note, recipient);
    // The job's read after the payout was marked (GetItem: a consistent read of SJOB#<id>).
    const { out: r, failed } = await withDynamoFailing(
      (_, input) => input.includes('SJOB#') && input.includes('"ConsistentRead":true') && !input.includes('UpdateExpression'),
      () => anonymous.post('/api/transfer/withdraw', request),
    );
    expect(failed).toBeGreaterThanOrEqual(1);
    expect(ok(r)).toEqual({ success: true, jobId: expect.any(String), status: 'paid' });
    expect(await balance(recipient)).toBe(DENOMINATION);
    expect(await jobOf(r.json.jobId)).toMatchObject({ status: 'paid', recipient, txHash: expect.any(String), attempts: 1 });
    const again = await anonymous.post('/api/transfer/withdraw', request);
    expect(again.status).toBe(409);
    expect(await balance(recipient)).toBe(DENOMINATION);
  });
});

describe('refusals', () => {
  it('deposits: POOL_NOT_FOUND, INVALID_COMMITMENT (not a field element, zero, already in), INSUFFICIENT_BALANCE, WALLET_NOT_FOUND', async () => {
    const c = await noteCommitment(createNote(POOL));
    expect((await alice.post('/api/transfer/deposit', { pool: 'nope', walletId: wallet.id, commitment: c })).json.error).toBe('POOL_NOT_FOUND');
    for (const commitment of ['0', '21888242871839275222246405745257275088548364400416034343698204186575808495617']) {
      const r = await alice.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment });
      expect(r.status, commitment).toBe(400);
      expect(r.json.error).toBe('INVALID_COMMITMENT');
    }
    const leaves = await leavesOf();
    const dup = await alice.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment: leaves[0] });
    expect(dup.json).toMatchObject({ error: 'INVALID_COMMITMENT', message: expect.stringMatching(/already/) });
    expect((await alice.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment: 'abc' })).json.error).toBe('INVALID_INPUT');

    const poor = (await alice.post('/api/wallets', { chain: 'a', name: 'poor' })).json.wallet;
    const r = await alice.post('/api/transfer/deposit', { pool: POOL, walletId: poor.id, commitment: c });
    expect(r.status).toBe(422);
    expect(r.json.error).toBe('INSUFFICIENT_BALANCE');
    const bob = rt.client();
    await signedInUser(bob);
    expect((await bob.post('/api/transfer/deposit', { pool: POOL, walletId: wallet.id, commitment: c })).json.error).toBe('WALLET_NOT_FOUND');
    // Nothing of those reached the tree.
    expect((await leavesOf()).length).toBe(leaves.length);
  });

  it('a note is deposited once whatever the pool: its commitment is refused in every other pool, also when reserved the per-pool way of before', async () => {
    const [first] = await leavesOf(POOL);
    for (const pool of ['sol-1', 'sol-10', 'test-100']) {
      const r = await alice.post('/api/transfer/deposit', { pool, walletId: wallet.id, commitment: first });
      expect(r.status, pool).toBe(400);
      expect(r.json).toMatchObject({ error: 'INVALID_COMMITMENT', message: expect.stringMatching(/already deposited \(in this pool or another/) });
    }
    // A reservation written before the rule was global (SCOMMIT#<pool>#<commitment>) still holds, in every pool.
    const legacy = await noteCommitment(createNote('sol-10'));
    const { putItem } = await import('#lib/data/items.ts');
    await putItem({ pk: `SCOMMIT#sol-10#${legacy}`, sk: 'COMMITMENT', depositId: 'before' });
    for (const pool of ['sol-0.1', 'sol-10']) {
      expect((await alice.post('/api/transfer/deposit', { pool, walletId: wallet.id, commitment: legacy })).json.error, pool).toBe('INVALID_COMMITMENT');
    }
    expect((await leavesOf('sol-1')).includes(first!)).toBe(false);
  });

  it('a withdrawal proof made for one pool is refused by another', async () => {
    const n = await depositNote();
    const req = await prove(n, fresh());
    const r = await anonymous.post('/api/transfer/withdraw', { ...req, pool: 'sol-1' });
    expect([400, 401]).toContain(r.status);
    expect(['UNKNOWN_ROOT', 'INVALID_PROOF']).toContain(r.json.error);
    expect(ok(await anonymous.get(`/api/transfer/nullifiers/${req.nullifierHash}`)).spent).toBe(false);
  });

  it('withdrawals: INVALID_ADDRESS, POOL_NOT_FOUND, a fee above a tenth, a malformed proof; unknown jobs are 404', async () => {
    const n = await depositNote();
    const req = await prove(n, fresh());
    expect((await anonymous.post('/api/transfer/withdraw', { ...req, recipient: 'not-an-address' })).json.error).toBe('INVALID_ADDRESS');
    expect((await anonymous.post('/api/transfer/withdraw', { ...req, pool: 'nope' })).json.error).toBe('POOL_NOT_FOUND');
    expect((await anonymous.post('/api/transfer/withdraw', { ...req, relayerFee: '10000001' })).json.error).toBe('INVALID_INPUT');
    const bent = { ...req, proof: { ...req.proof, pi_a: ['1', '3', '1'] } };
    expect((await anonymous.post('/api/transfer/withdraw', bent)).json.error).toBe('INVALID_PROOF');
    expect((await anonymous.get('/api/transfer/jobs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect(ok(await anonymous.get(`/api/transfer/nullifiers/${req.nullifierHash}`)).spent).toBe(false);
  });
});
