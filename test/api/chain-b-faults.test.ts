import { Keypair, PublicKey } from '@solana/web3.js';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FaultyChainB } from '#lib/chains/chain-b/faults.ts';
import { advanceClock } from '#lib/clock.ts';
import type { HttpClient } from '../support/runtime.ts';
import { ok, settled } from './bridge-helpers.ts';
import { runtimeWithUsers } from './runtime-with-users.ts';
import { withDynamoFailing } from '../support/dynamo-faults.ts';

/**
 * Chain B's value moves against chain B as a real network misbehaves (lib/chains/chain-b/faults.ts,
 * CHAIN_FAULTS=b.…; issue 36): a send RECEIVED for several blocks, RECEIVED then REJECTED, REVERTED
 * with a reason, its nonce taken by another transaction. For each, wallet transfers and bridge
 * withdrawals (chain B → chain A) end with nothing paid twice, nothing lost, every move resolved,
 * and an answer the README documents (every answer is checked against the OpenAPI document too).
 */
let alice: HttpClient;
let bob: HttpClient;
let chain: FaultyChainB;
let fees: typeof import('#lib/chains/chain-b/fees.ts');
let chainb: typeof import('#lib/chains/chain-b/index.ts');
const PASS = 'faults-pass-1';
const E18 = 10n ** 18n;

// Chain B's layer on (chain A's off); blocks advance by sends and advanceBlocks only.
const world = runtimeWithUsers({ RATE_LIMIT_MULTIPLIER: '50', CHAIN_FAULTS: 'b.block-ms=0,b.pending-blocks=3' }, ['alice', 'bob']);
beforeAll(async () => {
  alice = world.users.alice.client;
  bob = world.users.bob.client;
  fees = await import('#lib/chains/chain-b/fees.ts');
  chainb = await import('#lib/chains/chain-b/index.ts');
  chain = chainb.chainB() as FaultyChainB;
  expect(chain.options).toMatchObject({ pendingBlocks: 3, blockMs: 0 });
  expect(await (await import('#lib/chains/chain-a/index.ts')).chainA()).not.toHaveProperty('inject'); // only b. names: chain A as it is
}, 120_000);
beforeEach(() => {
  chain.clearInjected();
  advanceClock(61_000);
});

let n = 0;
const newWallet = async (c: HttpClient) => {
  const r = await c.post('/api/wallets', { chain: 'b', name: `f-${n++}`, password: PASS });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json.wallet as { id: string; address: string };
};
const strk = (address: string) => chainb.balanceOf(chainb.STRK.address, address);
const send = (walletId: string, to: string, amount: string, headers: Record<string, string> = {}) =>
  alice.post('/api/chainb/transfer', { walletId, password: PASS, amount, recipientAddress: to }, { headers });
const INVOKE_FEE = () => fees.feeOf(fees.LOCAL_GAS_USE.invoke);
/** The value-move journal's record of a chain B transaction (lib/moves/chain-b.ts). */
const move = async (txHash: string) => (await import('#lib/data/value-moves.ts')).getMove(txHash);

/** Runs `fn` with the release of the wallet's signing lease (a DeleteItem of its WALLETLOCK item) failing once: the one write left after a send landed. */
const releaseFailing = <T>(walletId: string, fn: () => Promise<T>) =>
  withDynamoFailing((command, input) => command === 'DeleteItemCommand' && input.includes(`WALLETLOCK#${walletId}`), fn, 1);

/** A funded, deployed sender (one transfer done) and a recipient; balances read after. */
async function pair() {
  const a = await newWallet(alice);
  const b = await newWallet(bob);
  ok(await alice.post(`/api/wallets/${a.id}/airdrop`, { amount: 3 }));
  ok(await send(a.id, b.address, '0.1')); // deploys the account
  return { a, b, sender: await strk(a.address), recipient: await strk(b.address) };
}

describe('chain B transfers under faults', () => {
  it('RECEIVED for several blocks: 202 submitted; the same Idempotency-Key replays it; the wallet is held (409 naming it) until it lands; paid once', async () => {
    const { a, b, sender, recipient } = await pair();
    chain.inject('pending');
    const headers = { 'idempotency-key': `pending-${a.id}` };
    const r = await send(a.id, b.address, '0.5', headers);
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    expect(r.json).toMatchObject({ status: 'submitted', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(chain.heldBack()).toEqual([r.json.txHash]);
    expect(await chain.getTransactionStatus(r.json.txHash)).toBe('RECEIVED');

    const again = await send(a.id, b.address, '0.5', headers);
    expect(again.status).toBe(202);
    expect(again.json.txHash).toBe(r.json.txHash);
    const other = await send(a.id, b.address, '0.5');
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ error: 'WALLET_LOCKED', message: expect.stringContaining(r.json.txHash) });
    expect(await strk(b.address)).toBe(recipient);

    await chain.advanceBlocks(3);
    expect(ok(await alice.get(`/api/chainb/tx/${r.json.txHash}`)).transaction).toMatchObject({ status: 'SUCCEEDED', sender: a.address });
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await move(r.json.txHash)).toMatchObject({ chain: 'b', status: 'sent', account: a.address, moves: { amount: String(E18 / 2n), to: b.address } });
    // The hold ends as chain B shows the transaction (the request that finds it settles it): the next transfer goes, and only it.
    ok(await send(a.id, b.address, '0.25'));
    expect(await move(r.json.txHash)).toMatchObject({ status: 'landed' });
    expect(await strk(b.address)).toBe(recipient + E18 / 2n + E18 / 4n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - E18 / 4n - 2n * INVOKE_FEE());
  });

  it("pending past the wallet's hold: a new send takes the same nonce, so only one of the two ever lands", async () => {
    const { a, b, sender, recipient } = await pair();
    chain.inject('pending');
    const first = await send(a.id, b.address, '0.5');
    expect(first.status).toBe(202);
    const { UNSETTLED_HOLD_SECONDS } = await import('#lib/wallets/chain-b.ts');
    advanceClock(UNSETTLED_HOLD_SECONDS * 1000 + 1000);
    const second = await send(a.id, b.address, '0.25'); // another transfer (the same one would be the same transaction)
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    await chain.advanceBlocks(3); // the first arrives now: its nonce is used
    expect(chain.heldBack()).toEqual([]);
    expect((await alice.get(`/api/chainb/tx/${first.json.txHash}`)).status).toBe(404);
    // Unknown to chain B, its nonce taken by the second: it can never land, and the journal says so.
    expect(await move(first.json.txHash)).toMatchObject({ status: 'sent' });
    expect((await (await import('#lib/moves/chain-b.ts')).resolveChainBMovesOnce()).expired).toBe(1);
    expect(await move(first.json.txHash)).toMatchObject({ status: 'expired' });
    expect(await move(second.json.txHash)).toMatchObject({ status: 'landed' });
    expect(await strk(b.address)).toBe(recipient + E18 / 4n);
    expect(await strk(a.address)).toBe(sender - E18 / 4n - INVOKE_FEE());
  });

  it('landed, and its status read from a node behind the one that read the nonce (a load balancer): never expired; the key replays it and nothing is paid twice', async () => {
    const { a, b, sender, recipient } = await pair();
    chain.inject('pending');
    const headers = { 'idempotency-key': `lagging-${a.id}` };
    const r = await send(a.id, b.address, '0.5', headers);
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    await chain.advanceBlocks(3); // it lands now, in the latest block
    expect(chain.heldBack()).toEqual([]);
    // Every status read in the next pass answered by a node 3 blocks behind, the nonce by one up to date:
    // the nonce taken, the transaction "not received". The block that took the nonce holds it: pending.
    chain.lagNextReads(2, 'getTransactionStatus');
    const lagged = chain.injected.lagging;
    const { resolveChainBMovesOnce } = await import('#lib/moves/chain-b.ts');
    expect(await resolveChainBMovesOnce()).toMatchObject({ expired: 0, landed: 0, pending: 1 });
    expect(chain.injected.lagging - lagged).toBe(2);
    expect(await move(r.json.txHash)).toMatchObject({ status: 'sent' });
    const again = await send(a.id, b.address, '0.5', headers);
    expect(again.status).toBe(202);
    expect(again.json.txHash).toBe(r.json.txHash);
    // Answered by nodes up to date: it landed.
    expect(await resolveChainBMovesOnce()).toMatchObject({ expired: 0, landed: 1 });
    expect(await move(r.json.txHash)).toMatchObject({ status: 'landed' });
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - INVOKE_FEE());
  });

  it('accepted but never received by the node: 202; the settle pass sends the same signed INVOKE again, and it lands (no new send, no half-hour hold)', async () => {
    const { a, b, sender, recipient } = await pair();
    const nonce = await chain.getNonce(a.address);
    chain.inject('dropped');
    const r = await send(a.id, b.address, '0.5');
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    expect(await move(r.json.txHash)).toMatchObject({
      account: a.address,
      nonce: nonce.toString(),
      invoke: { signature: [expect.any(String), expect.any(String)] },
    });
    await (await import('#lib/moves/chain-b.ts')).resolveChainBMovesOnce();
    expect(await move(r.json.txHash)).toMatchObject({ status: 'landed' });
    // The transaction that landed is the one signed, journaled and answered: one INVOKE of the account.
    expect(ok(await alice.get(`/api/chainb/tx/${r.json.txHash}`)).transaction).toMatchObject({ status: 'SUCCEEDED', sender: a.address });
    expect(await chain.getNonce(a.address)).toBe(nonce + 1n);
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - INVOKE_FEE());
    ok(await send(a.id, b.address, '0.25')); // the wallet is free
  });

  it('RECEIVED, then REJECTED: 202, nothing moves, and the wallet is free as soon as chain B says REJECTED (not after half an hour)', async () => {
    const { a, b, sender, recipient } = await pair();
    chain.inject('rejected');
    const r = await send(a.id, b.address, '0.5');
    expect(r.status).toBe(202);
    await chain.advanceBlocks(3);
    expect(await chain.getTransactionStatus(r.json.txHash)).toBe('REJECTED');
    expect((await alice.get(`/api/chainb/tx/${r.json.txHash}`)).json).toMatchObject({ error: 'TX_NOT_FOUND' });
    expect(await strk(b.address)).toBe(recipient);
    expect(await strk(a.address)).toBe(sender);
    const next = await send(a.id, b.address, '0.5');
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    // The request that found the wallet held settled the first (the same INVOKE again, then: landed).
    expect(next.json.txHash).toBe(r.json.txHash);
    expect(await move(r.json.txHash)).toMatchObject({ status: 'landed' });
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - INVOKE_FEE());
  });

  it('RECEIVED, then REJECTED, with an Idempotency-Key: the key is free again once chain B says REJECTED (nothing moved); a retry with it sends anew and pays once', async () => {
    const { a, b, sender, recipient } = await pair();
    chain.inject('rejected');
    const headers = { 'idempotency-key': `rejected-${a.id}` };
    const r = await send(a.id, b.address, '0.5', headers);
    expect(r.status).toBe(202);
    // Still RECEIVED: the key replays the 202 naming it.
    const meanwhile = await send(a.id, b.address, '0.5', headers);
    expect([meanwhile.status, meanwhile.json.txHash]).toEqual([202, r.json.txHash]);
    await chain.advanceBlocks(3);
    expect(await chain.getTransactionStatus(r.json.txHash)).toBe('REJECTED');
    // The scheduled pass (every minute) settles it once it is older than any request that may still
    // hold it (TRANSFER_RETRY_AFTER_SECONDS): failed, the key and the wallet free again.
    const pass = async () => (await import('#functions/scheduled/transfer-retry.ts')).handler();
    expect((await pass()).chainBMoves).toMatchObject({ seen: 0 });
    advanceClock(31_000);
    expect((await pass()).chainBMoves).toMatchObject({ failed: 1 });
    expect(await move(r.json.txHash)).toMatchObject({ status: 'failed', failure: 'rejected' });
    const again = await send(a.id, b.address, '0.5', headers);
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    // Its nonce unused, the same INVOKE again: the same hash, accepted this time.
    expect(again.json.txHash).toBe(r.json.txHash);
    expect(ok(await alice.get(`/api/chainb/tx/${again.json.txHash}`)).transaction).toMatchObject({ status: 'SUCCEEDED' });
    // Landed now: the key answers that, never a third send.
    const replay = await send(a.id, b.address, '0.5', headers);
    expect([replay.status, replay.json.txHash]).toEqual([200, again.json.txHash]);
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - INVOKE_FEE());
  });

  it('REVERTED with a reason: 422 TRANSACTION_REVERTED naming it; the fee is paid, nothing else moves; the wallet is free', async () => {
    const { a, b, sender, recipient } = await pair();
    chain.inject('reverted');
    const r = await send(a.id, b.address, '0.5');
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ error: 'TRANSACTION_REVERTED', message: expect.stringMatching(/reverted: ERC20: insufficient balance/) });
    const txHash = /transaction (0x[0-9a-f]+)/.exec(r.json.message)![1]!;
    expect(ok(await alice.get(`/api/chainb/tx/${txHash}`)).transaction).toMatchObject({ status: 'REVERTED', revertReason: 'ERC20: insufficient balance' });
    expect(await move(txHash)).toMatchObject({ status: 'failed', failure: 'reverted' });
    expect(await strk(b.address)).toBe(recipient);
    expect(await strk(a.address)).toBe(sender - INVOKE_FEE());
    ok(await send(a.id, b.address, '0.5'));
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
  });

  it('its nonce taken by another transaction of the account: 409 NONCE_CONFLICT; nothing of it moved; a retry pays once', async () => {
    const { a, b, sender, recipient } = await pair();
    chain.inject('nonce-used');
    const r = await send(a.id, b.address, '0.5');
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ error: 'NONCE_CONFLICT' });
    expect(await strk(b.address)).toBe(recipient);
    expect(await strk(a.address)).toBe(sender - INVOKE_FEE()); // the other transaction's fee (a zero transfer to itself)
    ok(await send(a.id, b.address, '0.5'));
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - 2n * INVOKE_FEE());
  });

  it('its own copy included first (a settle pass sent the same INVOKE again), its own send then refused for its nonce: chain B decides, it landed; 200, paid once, the move landed', async () => {
    const { a, b, sender, recipient } = await pair();
    chain.inject('copy-first');
    const r = await send(a.id, b.address, '0.5');
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(await move(r.json.txHash)).toMatchObject({ status: 'landed' });
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - INVOKE_FEE());
    ok(await send(a.id, b.address, '0.1')); // the wallet is free
  });

  it("landed, then the wallet lease's release fails (DynamoDB down): 200 all the same; once the lease lapsed, a retry with the key replays that answer, paid once", async () => {
    const { a, b, sender, recipient } = await pair();
    const headers = { 'idempotency-key': `release-lost-${a.id}` };
    const { out: r, failed } = await releaseFailing(a.id, () => send(a.id, b.address, '0.5', headers));
    expect(failed).toBe(1);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(await move(r.json.txHash)).toMatchObject({ status: 'landed' });
    // The lease lapses by itself; a retry with the same key must not send a second transfer.
    const { walletConfig } = await import('#lib/wallets/config.ts');
    advanceClock(walletConfig.WALLET_LOCK_SECONDS * 1000 + 1000);
    const again = await send(a.id, b.address, '0.5', headers);
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.txHash).toBe(r.json.txHash);
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - INVOKE_FEE());
  });
});

describe('the answer of a transfer that landed, not kept (DynamoDB down at its completion)', () => {
  it('200 all the same, and the key is not freed: a retry with it sends nothing (409 in progress), paid once', async () => {
    const { a, b, sender, recipient } = await pair();
    const headers = { 'idempotency-key': `complete-lost-${a.id}` };
    // The key's completion with the answer (after the handler, in the idempotency middleware) fails once.
    const { out: r, failed } = await withDynamoFailing(
      (command, input) => command === 'UpdateItemCommand' && input.includes('"IDEMPOTENCY#') && input.includes('":done"'),
      () => send(a.id, b.address, '0.5', headers),
      1,
    );
    expect(failed).toBe(1);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(await move(r.json.txHash)).toMatchObject({ status: 'landed' });
    const again = await send(a.id, b.address, '0.5', headers);
    expect([again.status, again.json.error]).toEqual([409, 'IDEMPOTENCY_IN_PROGRESS']);
    expect(await strk(b.address)).toBe(recipient + E18 / 2n);
    expect(await strk(a.address)).toBe(sender - E18 / 2n - INVOKE_FEE());
  });
});

describe('bridge withdrawals (chain B → chain A) under faults', () => {
  let walletA: { id: string; address: string };
  let walletB: { id: string; address: string };
  let SOL: import('#lib/bridge/routes.ts').HyperlaneToken;
  let readBridge: typeof import('#lib/data/bridge-transfers.ts').readBridge;
  let aliceId: string;
  const synthetic = (holder: string) => chainb.balanceOf(SOL.destinationToken, holder);
  const lamports = async (address: string) =>
    BigInt(await (await (await import('#lib/chains/chain-a/index.ts')).chainA()).rpc.getBalance(new PublicKey(address)));
  const withdraw = (dest: string) =>
    alice.post('/api/bridge/initiate', {
      bridgeType: 'chaina-chainb',
      direction: 'withdraw',
      token: 'SOL',
      amount: '0.4',
      destAddress: dest,
      walletId: walletB.id,
      password: PASS,
    });

  beforeAll(async () => {
    SOL = (await import('#lib/bridge/routes.ts')).routeToken('chaina-chainb', 'SOL')!;
    ({ readBridge } = await import('#lib/data/bridge-transfers.ts'));
    aliceId = ok(await alice.get('/api/auth/me')).user.id;
    walletA = (await alice.post('/api/wallets', { chain: 'a', name: 'main-a' })).json.wallet;
    walletB = await newWallet(alice);
    ok(await alice.post(`/api/wallets/${walletA.id}/airdrop`, { amount: 10 }));
    ok(await alice.post(`/api/wallets/${walletB.id}/airdrop`, { amount: 10 })); // STRK for the fees
    const d = ok(
      await alice.post('/api/bridge/initiate', {
        bridgeType: 'chaina-chainb',
        direction: 'deposit',
        token: 'SOL',
        amount: '5',
        destAddress: walletB.address,
        walletId: walletA.id,
      }),
    );
    expect((await settled(alice, d.transaction.id)).status).toBe('completed');
  }, 120_000);

  it("burned, then the wallet lease's release fails (DynamoDB down): the record stays submitted (not failed with its burn landed) and completes; a retry with the key burns nothing more", async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const held = await synthetic(walletB.address);
    const body = { bridgeType: 'chaina-chainb', direction: 'withdraw', token: 'SOL', amount: '0.4', destAddress: dest, walletId: walletB.id, password: PASS };
    const headers = { 'idempotency-key': `withdraw-release-lost-${dest}` };
    const { out: r, failed } = await releaseFailing(walletB.id, () => alice.post('/api/bridge/initiate', body, { headers }));
    expect(failed).toBe(1);
    const t = ok(r).transaction;
    expect(t.status).toBe('submitted');
    expect(await move(t.sourceTxHash)).toMatchObject({ status: 'landed', purpose: { operation: 'bridge-withdraw', ref: t.id } });
    expect((await settled(alice, t.id)).status).toBe('completed');
    const { walletConfig } = await import('#lib/wallets/config.ts');
    advanceClock(walletConfig.WALLET_LOCK_SECONDS * 1000 + 1000);
    const again = await alice.post('/api/bridge/initiate', body, { headers });
    // A replay of the same transaction: the request's own 200, or — when the journal's pass settled
    // the landed burn before the request completed its key (a loaded machine) — the 202 kept at binding.
    expect([200, 202], JSON.stringify(again.json)).toContain(again.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.transaction.id).toBe(t.id);
    expect(await lamports(dest)).toBe(400_000_000n);
    expect(held - (await synthetic(walletB.address))).toBe(400_000_000n);
  });

  it('RECEIVED for several blocks: submitted; the relayer waits for it, then releases once on chain A', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const held = await synthetic(walletB.address);
    chain.inject('pending');
    const r = ok(await withdraw(dest), 202).transaction;
    expect(r.status).toBe('submitted');
    expect(chain.heldBack()).toEqual([r.sourceTxHash]);
    await world.rt.jobPasses('bridge-relayer', 3); // relayer passes meanwhile: nothing on chain B yet, nothing released
    expect(ok(await alice.get(`/api/bridge/status/${r.id}`)).transaction.status).toBe('submitted');
    expect(await lamports(dest)).toBe(0n);
    await chain.advanceBlocks(3);
    expect((await settled(alice, r.id)).status).toBe('completed');
    expect(await lamports(dest)).toBe(400_000_000n);
    expect(held - (await synthetic(walletB.address))).toBe(400_000_000n);
  });

  it('accepted but never received: the settle pass sends the same INVOKE again; it burns once and the relayer releases once', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const held = await synthetic(walletB.address);
    const nonce = await chain.getNonce(walletB.address);
    chain.inject('dropped');
    const r = ok(await withdraw(dest), 202).transaction;
    expect(r.status).toBe('submitted');
    await (await import('#lib/moves/chain-b.ts')).resolveChainBMovesOnce();
    expect(await move(r.sourceTxHash)).toMatchObject({ status: 'landed', purpose: { operation: 'bridge-withdraw', ref: r.id } });
    expect((await settled(alice, r.id)).status).toBe('completed');
    expect(await chain.getNonce(walletB.address)).toBe(nonce + 1n);
    expect(await lamports(dest)).toBe(400_000_000n);
    expect(held - (await synthetic(walletB.address))).toBe(400_000_000n);
  });

  it('RECEIVED, then REJECTED: the record fails as soon as chain B says so, nothing burned, nothing released', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const held = await synthetic(walletB.address);
    chain.inject('rejected');
    const r = ok(await withdraw(dest), 202).transaction;
    expect(r.status).toBe('submitted');
    await chain.advanceBlocks(3);
    const done = await settled(alice, r.id);
    expect(done.status).toBe('failed');
    expect((await readBridge(aliceId, r.id))!.failureReason).toMatch(/REJECTED/);
    expect(await move(r.sourceTxHash)).toMatchObject({ status: 'failed', failure: 'rejected', purpose: { operation: 'bridge-withdraw', ref: r.id } });
    expect(await synthetic(walletB.address)).toBe(held);
    expect(await lamports(dest)).toBe(0n);
  });

  it('its own copy included first, its own send then refused for its nonce: the record stays submitted, the relayer releases once what was burned once', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const held = await synthetic(walletB.address);
    chain.inject('copy-first');
    const r = await withdraw(dest);
    expect([200, 202], JSON.stringify(r.json)).toContain(r.status);
    const t = r.json.transaction as { id: string; status: string; sourceTxHash: string };
    expect(t.status).toBe('submitted');
    expect(await move(t.sourceTxHash)).toMatchObject({ status: 'landed', purpose: { operation: 'bridge-withdraw', ref: t.id } });
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect(await lamports(dest)).toBe(400_000_000n);
    expect(held - (await synthetic(walletB.address))).toBe(400_000_000n);
  });

  it('REVERTED with a reason, or its nonce taken: the documented error at once, the record failed, nothing burned or released', async () => {
    for (const [fault, status, error] of [
      ['reverted', 422, 'TRANSACTION_REVERTED'],
      ['nonce-used', 409, 'NONCE_CONFLICT'],
    ] as const) {
      advanceClock(61_000);
      const dest = Keypair.generate().publicKey.toBase58();
      const held = await synthetic(walletB.address);
      const before = (await alice.get('/api/bridge/history')).json.transactions.length as number;
      chain.inject(fault);
      const r = await withdraw(dest);
      expect(r.status, JSON.stringify(r.json)).toBe(status);
      expect(r.json).toMatchObject({ error });
      const records = ok(await alice.get('/api/bridge/history')).transactions as { status: string }[];
      expect(records).toHaveLength(before + 1);
      expect(records.filter((t) => t.status === 'failed').length).toBeGreaterThan(0);
      expect(await synthetic(walletB.address)).toBe(held);
      expect(await lamports(dest)).toBe(0n);
    }
  });
});
