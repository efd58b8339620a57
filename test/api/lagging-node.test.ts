import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * A node behind the cluster (lib/chains/chain-a/faults.ts `lagging`: one of several behind a
 * provider's load balancer) answers BlockhashNotFound for a blockhash the cluster still takes, an
 * older block height, and no status for what landed in its last slots. None of that may settle a
 * value move as expired while its transaction can still land, or has landed (issue 36): the bridge's
 * release on chain A (lib/bridge/chain-a-release.ts), and the journal's rule (lib/chains/chain-a/settle.ts).
 * The relayer and the journal's pass are driven here, not by the runtime's timers.
 */
let rt: TestRuntime;
let alice: HttpClient;
let aliceId: string;
let wallet: { id: string; address: string };
let walletB: { id: string; address: string };
let chain: FaultyChainA;
const PASS = 'lagging-pass-1';

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '50', CHAIN_FAULTS: 'slot-ms=0' }, undefined, { withoutJobs: ['transfer-retry', 'bridge-relayer'] });
  alice = rt.client();
  aliceId = (await signedInUser(alice)).user.id;
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  walletB = (await alice.post('/api/wallets', { chain: 'b', name: 'main', password: PASS })).json.wallet;
  for (let i = 0; i < 2; i++) expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  expect((await alice.post(`/api/wallets/${walletB.id}/airdrop`, { amount: 10 })).status).toBe(200); // STRK for the fees
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
  expect(chain.options.lag).toBe(20);
}, 120_000);
afterAll(async () => rt?.stop());
beforeEach(() => {
  chain.clearInjected();
  advanceClock(61_000);
});

const relayOnce = async () => (await import('#lib/bridge/relayer.ts')).relayOnce();
const lamports = async (a: string) => BigInt(await chain.rpc.getBalance(new PublicKey(a)));

describe('the fault layer: a node behind the cluster', () => {
  it('its height is older, a recent status is missing (history searched or not), and it refuses a fresh blockhash while a copy sent before lands', async () => {
    const payer = Keypair.generate();
    await chain.airdrop(payer.publicKey, 1_000_000_000n);
    const { signedTransfer } = await import('#lib/transfer/chain.ts');
    const signed = await signedTransfer(chain, payer, Keypair.generate().publicKey, 1_000_000n);
    const sent = await chain.sendAndConfirm(signed.tx);
    const height = await chain.rpc.getBlockHeight();
    chain.inject('lagging', 'read', 'getBlockHeight');
    expect(await chain.rpc.getBlockHeight()).toBe(height - 20);
    chain.inject('lagging', 'read', 'getSignatureStatuses');
    const behind = await chain.rpc.getSignatureStatuses([sent.signature], { searchTransactionHistory: true });
    expect(behind.value[0]).toBeNull();
    expect(behind.context.slot).toBe(height - 20);
    expect((await chain.rpc.getSignatureStatuses([sent.signature], { searchTransactionHistory: true })).value[0]).not.toBeNull();
    // In flight, then resent through the node behind: refused, and the first copy still lands.
    const other = await signedTransfer(chain, payer, Keypair.generate().publicKey, 2_000_000n);
    chain.inject('in-flight');
    await expect(chain.sendAndConfirm(other.tx)).rejects.toThrow(/not confirmed/);
    chain.inject('lagging');
    await expect(chain.sendAndConfirm(other.tx)).rejects.toThrow(/BlockhashNotFound/);
    chain.advanceSlots(3);
    await chain.rpc.getBalance(payer.publicKey); // a read: what landed meanwhile is applied
    await chain.applied();
    expect(chain.landedSignatures()).toContain(other.signature);
  });
});

describe('bridge releases under a node behind the cluster', () => {
  beforeAll(async () => {
    // Synthetic SOL on chain B for the withdrawal: a deposit from the chain A wallet, relayed without faults.
    const d = await alice.post('/api/bridge/initiate', {
      bridgeType: 'chaina-chainb',
      direction: 'deposit',
      token: 'SOL',
      amount: '1',
      destAddress: walletB.address,
      walletId: wallet.id,
    });
    expect(d.status, JSON.stringify(d.json)).toBe(200);
    for (let i = 0; i < 5; i++) await relayOnce();
    expect((await alice.get(`/api/bridge/status/${d.json.transaction.id}`)).json.transaction.status).toBe('completed');
  }, 120_000);

  it('the release is in flight and its resend is refused BlockhashNotFound by a node behind: not taken for expired, released once', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const w = await alice.post('/api/bridge/initiate', {
      bridgeType: 'chaina-chainb',
      direction: 'withdraw',
      token: 'SOL',
      amount: '0.005',
      destAddress: dest,
      walletId: walletB.id,
      password: PASS,
    });
    expect(w.status, JSON.stringify(w.json)).toBe(200);
    const id: string = w.json.transaction.id;
    const landedBefore = new Set(chain.landedSignatures());

    chain.inject('in-flight'); // the release's send: accepted, lands 3 slots later
    await relayOnce();
    const { readBridge } = await import('#lib/data/bridge-transfers.ts');
    const { readRelease } = await import('#lib/data/bridge-releases.ts');
    const record = (await readBridge(aliceId, id))!;
    expect(record.status).toBe('source_confirmed');
    const first = (await readRelease(record.messageId!))!;
    chain.advanceSlots(1); // a newer blockhash: a release signed now would be another transaction
    chain.inject('lagging'); // the next pass's resend meets the node behind
    await relayOnce();
    chain.advanceSlots(3); // the release in flight lands
    for (let i = 0; i < 3; i++) await relayOnce();
    await chain.applied();

    const landed = chain.landedSignatures().filter((sig) => !landedBefore.has(sig));
    expect(landed).toEqual([first.signature]);
    expect((await readRelease(record.messageId!))?.signature).toBe(first.signature);
    expect(await lamports(dest)).toBe(5_000_000n);
    expect(await readBridge(aliceId, id)).toMatchObject({ status: 'completed', destTxHash: first.signature });
    // Recorded with its last valid block height before it was sent: only the chain's height expires it.
    expect(first.lastValidBlockHeight).toBeGreaterThan(0);
  });
});

describe('a release recorded before heights were kept', () => {
  it('gets a bound stamped once (never earlier than its real height), then is settled by it: the stored bytes sent again, no second release', async () => {
    const { claimRelease, readRelease } = await import('#lib/data/bridge-releases.ts');
    const { releaseWithdrawal } = await import('#lib/bridge/chain-a-release.ts');
    const route = (await import('#lib/bridge/routes.ts')).routeToken('chaina-chainb', 'SOL')!;
    // A stored release of the old shape (no lastValidBlockHeight), never sent: a signed transfer of its own.
    const payer = Keypair.generate();
    await chain.airdrop(payer.publicKey, 1_000_000_000n);
    const dest = Keypair.generate().publicKey;
    const { signedTransfer } = await import('#lib/transfer/chain.ts');
    const old = await signedTransfer(chain, payer, dest, 3_000_000n);
    const messageId = `0x${'ab'.repeat(32)}`;
    expect(await claimRelease(messageId, { bridgeId: 'legacy', signature: old.signature, transaction: old.bytes, at: new Date(0).toISOString() })).toBe(true);
    const args = { bridgeId: 'legacy', messageId, route, to: dest.toBase58(), amount: 3_000_000n };

    const height = await chain.rpc.getBlockHeight();
    await expect(releaseWithdrawal(chain, args)).rejects.toThrow(/no last valid block height/);
    const stamped = (await readRelease(messageId))!;
    expect(stamped.signature).toBe(old.signature);
    expect(stamped.lastValidBlockHeight).toBeGreaterThanOrEqual(height + 300);
    expect(await releaseWithdrawal(chain, args)).toBe(old.signature);
    expect(await lamports(dest.toBase58())).toBe(3_000_000n);
    expect((await readRelease(messageId))?.signature).toBe(old.signature);
  });
});

describe('the journal under a node behind the cluster', () => {
  it("past its last valid height, a history search answered by a node that has not reached that height's slot finds nothing: not expired; landed once that node has", async () => {
    const compressed = async () => BigInt(String(await chain.rpc.getCompressedBalanceByOwner(new PublicKey(wallet.address))));
    const before = await compressed();
    chain.inject('in-flight');
    const res = await alice.post(
      '/api/compression/compress-native',
      { walletId: wallet.id, amount: 0.002 },
      { headers: { 'idempotency-key': 'lagging-compress-1' } },
    );
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const txHash: string = res.json.txHash;
    const { getMove } = await import('#lib/data/value-moves.ts');
    const move = (await getMove(txHash))!;
    expect(move.chain).toBe('a');
    const lastValid = (move as { lastValidBlockHeight: number }).lastValidBlockHeight;
    // It lands in the last slots of its blockhash's life, and the cluster moves past them.
    chain.advanceSlots(lastValid - (await chain.rpc.getBlockHeight()) - 1);
    await chain.rpc.getBalance(new PublicKey(wallet.address)); // a read: the transaction in flight lands
    await chain.applied();
    expect(chain.landedSignatures()).toContain(txHash);
    chain.advanceSlots(5);
    expect(await chain.rpc.getBlockHeight()).toBeGreaterThan(lastValid);

    // Both history searches meet the node behind (20 slots: before the landing); the height is the cluster's.
    chain.inject('lagging', 'read', 'getSignatureStatuses');
    chain.inject('lagging', 'read', 'getSignatureStatuses');
    const { resolveMovesOnce } = await import('#lib/moves/journal.ts');
    await resolveMovesOnce();
    expect((await getMove(txHash))?.status).toBe('sent');
    chain.clearInjected();
    await resolveMovesOnce();
    expect((await getMove(txHash))?.status).toBe('landed');
    // The key answers the landed transaction: nothing signed again.
    const again = await alice.post(
      '/api/compression/compress-native',
      { walletId: wallet.id, amount: 0.002 },
      { headers: { 'idempotency-key': 'lagging-compress-1' } },
    );
    expect(again.json.txHash).toBe(txHash);
    expect(await compressed()).toBe(before + 2_000_000n);
  });
});

describe('a request whose own send a node behind refuses, while another copy of its transaction may land', () => {
  // Found by `npm run chaos` (decompress-native, schedule 907, under load): a copy of a request's
  // journaled bytes (the transfer retry job's pass) landed between the request's record and its
  // send; the request's own send met a node behind (BlockhashNotFound), and its "refused: nothing
  // moved" settled the move failed first. The journal said failed; the chain had it; the key and the
  // lease went free for a second send.
  const setUp = async () => {
    const payer = Keypair.generate();
    await chain.airdrop(payer.publicKey, 1_000_000_000n);
    const { signedTransfer } = await import('#lib/transfer/chain.ts');
    const { journaled, MoveUnsettled } = await import('#lib/moves/journal.ts');
    const signed = await signedTransfer(chain, payer, Keypair.generate().publicKey, 1_000_000n);
    const via = journaled(chain, { userId: aliceId, purpose: { kind: 'wallet-send', operation: 'test' } });
    return { signed, via, MoveUnsettled };
  };
  /** The request's own send, after `meanwhile` ran: through a node behind the cluster. */
  const sendAfter = (meanwhile: () => Promise<void>) => {
    const send = chain.sendAndConfirm.bind(chain);
    chain.sendAndConfirm = async (tx) => {
      chain.sendAndConfirm = send; // once: the request's own send
      await meanwhile();
      chain.inject('lagging');
      return send(tx);
    };
  };
  const status = async (sig: string) => (await (await import('#lib/data/value-moves.ts')).getMove(sig))?.status;

  it('the transfer retry job leaves a move younger than TRANSFER_RETRY_AFTER_SECONDS to its request; refused by the node behind, it stays open and the job lands it later', async () => {
    const { signed, via, MoveUnsettled } = await setUp();
    const { retryTransfersOnce } = await import('#lib/transfer/retry.ts');
    let landedByThePass = true;
    sendAfter(async () => {
      await retryTransfersOnce();
      await chain.applied();
      landedByThePass = chain.landedSignatures().includes(signed.signature);
    });
    await expect(via(signed.tx, signed.lastValidBlockHeight)).rejects.toBeInstanceOf(MoveUnsettled);
    expect(landedByThePass).toBe(false);
    expect(await status(signed.signature)).toBe('sent');
    advanceClock(31_000);
    expect((await retryTransfersOnce()).moves).toMatchObject({ landed: 1 });
    await chain.applied();
    expect(chain.landedSignatures().filter((s) => s === signed.signature)).toHaveLength(1);
    expect(await status(signed.signature)).toBe('landed');
  });

  it('a copy sent beside it lands (a request that found the wallet held settles the move at once): journaled landed, never failed', async () => {
    const { signed, via, MoveUnsettled } = await setUp();
    const { resolveMovesOnce } = await import('#lib/moves/journal.ts');
    sendAfter(async () => {
      await resolveMovesOnce(); // no age: what a request that found the wallet held for this move does
      await chain.applied();
      expect(chain.landedSignatures()).toContain(signed.signature);
    });
    await expect(via(signed.tx, signed.lastValidBlockHeight)).rejects.toBeInstanceOf(MoveUnsettled);
    expect(await status(signed.signature)).toBe('landed');
  });
});
