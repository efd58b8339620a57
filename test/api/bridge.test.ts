import { addressToBytes32, formatMessage as hlFormatMessage, messageId as hlMessageId } from '@hyperlane-xyz/utils';
import bs58 from 'bs58';
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { ok, fails, settled } from './bridge-helpers.ts';
import { signedInUser } from './identity-helpers.ts';
import { runtimeWithUsers } from './runtime-with-users.ts';
import { withDynamoFailing } from '../support/dynamo-faults.ts';

// lib modules that read configuration at load: imported once the runtime has set it (beforeAll).
let balanceOf: typeof import('#lib/bridge/chain-b-credit.ts').balanceOf;
let escrowAccount: typeof import('#lib/bridge/chain-a-source.ts').escrowAccount;
let sendDeposit: typeof import('#lib/bridge/chain-a-source.ts').sendDeposit;
let chainA: typeof import('#lib/chains/chain-a/index.ts').chainA;
let ChainUnavailable: typeof import('#lib/chains/chain-a/index.ts').ChainUnavailable;
let readBridge: typeof import('#lib/data/bridge-transfers.ts').readBridge;
let routeToken: typeof import('#lib/bridge/routes.ts').routeToken;
let relayBridge: typeof import('#lib/bridge/relayer.ts').relayBridge;
let acquireWalletLease: typeof import('#lib/data/wallets.ts').acquireWalletLease;
let releaseWalletLease: typeof import('#lib/data/wallets.ts').releaseWalletLease;

/**
 * /api/bridge end to end over HTTP against the local runtime: the source transaction executed by
 * the Solana runtime (LiteSVM), the local relayer (lib/bridge/relayer.ts on the runtime's timer)
 * confirming it and minting on the local chain B ledger.
 */
let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let aliceId: string;
let aliceWallet: { id: string; address: string };
let bobWallet: { id: string; address: string };
let SOL: import('#lib/bridge/routes.ts').HyperlaneToken;
const DEST = '0x0' + '5ab1e'.padStart(63, '7');
const DEST64 = `0x${BigInt(DEST).toString(16).padStart(64, '0')}`;

const world = runtimeWithUsers({ RATE_LIMIT_MULTIPLIER: '50' }, ['alice', 'bob'], { fresh: true });
beforeAll(async () => {
  rt = world.rt;
  ({ balanceOf } = await import('#lib/bridge/chain-b-credit.ts'));
  ({ escrowAccount, sendDeposit } = await import('#lib/bridge/chain-a-source.ts'));
  ({ chainA, ChainUnavailable } = await import('#lib/chains/chain-a/index.ts'));
  ({ readBridge } = await import('#lib/data/bridge-transfers.ts'));
  ({ routeToken } = await import('#lib/bridge/routes.ts'));
  ({ relayBridge } = await import('#lib/bridge/relayer.ts'));
  ({ acquireWalletLease, releaseWalletLease } = await import('#lib/data/wallets.ts'));
  SOL = routeToken('chaina-chainb', 'SOL')!;
  alice = world.users.alice.client;
  bob = world.users.bob.client;
  aliceId = world.users.alice.user.id;
  aliceWallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  bobWallet = (await bob.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  const drop = await alice.post(`/api/wallets/${aliceWallet.id}/airdrop`, { amount: 10 });
  if (drop.status !== 200) throw new Error(JSON.stringify(drop.json));
});

const deposit = (extra: Record<string, unknown> = {}) => ({
  bridgeType: 'chaina-chainb',
  direction: 'deposit',
  token: 'SOL',
  amount: '1.5',
  destAddress: DEST,
  ...extra,
});

const lamports = async (c: HttpClient, id: string) => BigInt((await c.get(`/api/wallets/${id}/balance`)).json.balance);

describe("deposit from the caller's chain A wallet", () => {
  it('sends the source transaction, the relayer completes it, chain B credits the destination exactly', async () => {
    const chain = await chainA();
    const escrow = escrowAccount(SOL);
    const escrowBefore = BigInt(await chain.rpc.getBalance(escrow));
    const walletBefore = await lamports(alice, aliceWallet.id);
    const minted = await balanceOf(SOL.destinationToken, DEST64);

    const res = ok(await alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id })));
    expect(res).toEqual({
      success: true,
      transaction: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        bridgeType: 'chaina-chainb',
        direction: 'deposit',
        token: 'SOL',
        amount: '1.5',
        destAddress: DEST64,
        status: 'submitted',
        sourceTxHash: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/),
        destTxHash: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        expiresAt: expect.any(String),
      },
      bridgeUrl: 'https://nexus.hyperlane.xyz',
      instructions: { step1: expect.stringContaining(res.transaction?.sourceTxHash ?? ''), step2: expect.any(String), step3: expect.any(String) },
    });
    // The source transaction really moved the coins into the warp route's escrow on chain A.
    expect(BigInt(await chain.rpc.getBalance(escrow)) - escrowBefore).toBe(1_500_000_000n);
    const fee = walletBefore - (await lamports(alice, aliceWallet.id)) - 1_500_000_000n;
    expect(fee).toBeGreaterThan(0n);
    expect(fee).toBeLessThan(100_000n);

    const done = await settled(alice, res.transaction.id);
    expect(done.status).toBe('completed');
    expect(done.destTxHash).toMatch(/^0x[0-9a-f]+$/);
    expect((await balanceOf(SOL.destinationToken, DEST64)) - minted).toBe(1_500_000_000n);
    // The same over chain B's own routes: the balance of the warp route's synthetic SOL, and the mint transaction.
    const onChainB = ok(await alice.get(`/api/chainb/balance/${DEST64}?token=${SOL.destinationToken}`));
    expect(onChainB).toMatchObject({ balance: (minted + 1_500_000_000n).toString(), decimals: 9, symbol: 'SOL' });
    expect(ok(await alice.get(`/api/chainb/tx/${done.destTxHash}`)).transaction).toMatchObject({ hash: done.destTxHash, type: 'L1_HANDLER' });

    // The record keeps its transitions with their times, in order; the message id is Hyperlane's.
    const stored = (await readBridge(aliceId, res.transaction.id))!;
    expect(stored.history.map((h) => h.status)).toEqual(['pending', 'submitted', 'source_confirmed', 'completed']);
    expect(stored.history.every((h, i) => i === 0 || h.at >= stored.history[i - 1]!.at)).toBe(true);
    // The message id is the one @hyperlane-xyz/utils computes for this transfer (some nonce of the local mailbox).
    const body = `0x${DEST64.slice(2)}${1_500_000_000n.toString(16).padStart(64, '0')}`;
    const reference = Array.from({ length: 50 }, (_, nonce) =>
      hlMessageId(hlFormatMessage(3, nonce, 1399811149, addressToBytes32(SOL.originRouter), 358974494, addressToBytes32(SOL.destinationRouter), body)),
    );
    expect(reference).toContain(stored.messageId);

    // Terminal: neither cancel nor a source transaction moves it.
    fails(await alice.post(`/api/bridge/${res.transaction.id}/cancel`), 409, 'BRIDGE_STATE_CONFLICT');
    fails(await alice.post(`/api/bridge/${res.transaction.id}/source-tx`, { txHash: res.transaction.sourceTxHash }), 409, 'BRIDGE_STATE_CONFLICT');
    // The relayer never credits twice: more passes leave the balance as it is.
    await rt.jobPasses('bridge-relayer', 3);
    expect((await balanceOf(SOL.destinationToken, DEST64)) - minted).toBe(1_500_000_000n);
  });

  it('INSUFFICIENT_BALANCE when the wallet cannot cover the amount: refused before sending, no record, nothing moved', async () => {
    const records = ok(await alice.get('/api/bridge/history')).transactions.length;
    const walletBefore = await lamports(alice, aliceWallet.id);
    fails(await alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id, amount: '1000' })), 422, 'INSUFFICIENT_BALANCE');
    // No mainnet TRUMP exists on the local chain A: the wallet holds none of it.
    fails(await alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id, token: 'TRUMP', amount: '1' })), 422, 'INSUFFICIENT_BALANCE');
    expect(ok(await alice.get('/api/bridge/history')).transactions).toHaveLength(records); // a refused deposit leaves no record
    expect(await lamports(alice, aliceWallet.id)).toBe(walletBefore);
  });

  it('WALLET_LOCKED while another request holds the wallet: no record, nothing moved; the same deposit goes through once it is free', async () => {
    const records = ok(await alice.get('/api/bridge/history')).transactions.length;
    const walletBefore = await lamports(alice, aliceWallet.id);
    const holder = 'another-request';
    expect(await acquireWalletLease(aliceWallet.id, holder, 60)).toBe(true);
    try {
      fails(await alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id, amount: '0.01' })), 409, 'WALLET_LOCKED');
    } finally {
      await releaseWalletLease(aliceWallet.id, holder);
    }
    expect(ok(await alice.get('/api/bridge/history')).transactions).toHaveLength(records);
    expect(await lamports(alice, aliceWallet.id)).toBe(walletBefore);
    const t = ok(await alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id, amount: '0.01' }))).transaction;
    expect(t).toMatchObject({ status: 'submitted', sourceTxHash: expect.any(String) });
    expect(ok(await alice.get('/api/bridge/history')).transactions).toHaveLength(records + 1);
    // Through to the end, before the next test counts the destination's balance.
    expect((await settled(alice, t.id)).status).toBe('completed');
  });

  it('refused by chain A once sent (the whole balance: nothing left for the fee): the record stays, failed with the reason; nothing reaches the escrow', async () => {
    const chain = await chainA();
    const escrowBefore = BigInt(await chain.rpc.getBalance(escrowAccount(SOL)));
    const records = ok(await alice.get('/api/bridge/history')).transactions.length;
    const all = await lamports(alice, aliceWallet.id);
    const amount = `${all / 1_000_000_000n}.${(all % 1_000_000_000n).toString().padStart(9, '0')}`;
    // The balance check passes (the wallet holds the amount), the runtime refuses the transfer: the fee comes first.
    fails(await alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id, amount })), 422, 'INSUFFICIENT_BALANCE');
    const history = ok(await alice.get('/api/bridge/history')).transactions;
    expect(history).toHaveLength(records + 1);
    // The record held the signature before the transaction went out; failed, it releases it.
    expect(history[0]).toMatchObject({ amount, status: 'failed', sourceTxHash: expect.any(String) });
    expect((await readBridge(aliceId, history[0].id))!.failureReason).toMatch(/insufficient balance/);
    expect(BigInt(await chain.rpc.getBalance(escrowAccount(SOL)))).toBe(escrowBefore);
  });

  // Chain A's node gone after the transaction went out: the service cannot tell whether it landed.
  async function withLostConfirmation<T>(landed: boolean, fn: () => Promise<T>): Promise<T> {
    const chain = await chainA();
    const real = chain.sendAndConfirm;
    chain.sendAndConfirm = async (tx) => {
      if (landed) await real.call(chain, tx);
      throw new ChainUnavailable('transaction was not confirmed within 25 s');
    };
    try {
      return await fn();
    } finally {
      chain.sendAndConfirm = real;
    }
  }

  it("a deposit the journal settled failed a moment ago is its request's to fail with the chain's reason; the relayer fails it only once that request must have died", async () => {
    const { recordMove, settleMove } = await import('#lib/data/value-moves.ts');
    const { clock } = await import('#lib/clock.ts');
    const t = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.01' }))).transaction;
    // The state between the journal's settlement of a refused send and the request's own failBridge
    // (lib/bridge/bridge.ts), held still: the record submitted with the signature, the move failed.
    const txHash = bs58.encode(Keypair.generate().secretKey.subarray(0, 64));
    const at = clock.now().toISOString();
    await recordMove({
      txHash,
      chain: 'a',
      userId: aliceId,
      purpose: { kind: 'wallet-send', operation: 'bridge-deposit', ref: t.id },
      signedTx: '',
      lastValidBlockHeight: 0,
      createdAt: at,
    });
    await settleMove(txHash, 'failed', at, { failure: 'rejected' });
    expect(ok(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash })).transaction.status).toBe('submitted');
    await relayBridge(aliceId, t.id);
    expect((await readBridge(aliceId, t.id))!.status).toBe('submitted');
    advanceClock(31_000);
    await relayBridge(aliceId, t.id);
    expect(await readBridge(aliceId, t.id)).toMatchObject({ status: 'failed', failureReason: 'the source transaction was not found on chain A' });
  });

  it('sent, outcome unknown (no confirmation): the record keeps the signature and the relayer completes it once it finds the transaction; nothing stranded', async () => {
    const chain = await chainA();
    const escrowBefore = BigInt(await chain.rpc.getBalance(escrowAccount(SOL)));
    const destBefore = await balanceOf(SOL.destinationToken, DEST64);
    // 202: the value-move journal holds the send (lib/moves/journal.ts) until the chain settles it.
    const res = ok(await withLostConfirmation(true, () => alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id, amount: '0.02' }))), 202);
    const t = res.transaction;
    expect(t).toMatchObject({ status: 'submitted', sourceTxHash: expect.any(String) });
    expect(res).toMatchObject({ status: 'submitted', txHash: t.sourceTxHash });
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect(BigInt(await chain.rpc.getBalance(escrowAccount(SOL))) - escrowBefore).toBe(20_000_000n);
    expect((await balanceOf(SOL.destinationToken, DEST64)) - destBefore).toBe(20_000_000n);
  });

  it("sent, outcome unknown, and the wallet lease's release fails too (DynamoDB past its retries): 202 all the same, the record not failed; completed once; a retry with the key sends nothing more", async () => {
    const chain = await chainA();
    const escrowBefore = BigInt(await chain.rpc.getBalance(escrowAccount(SOL)));
    const destBefore = await balanceOf(SOL.destinationToken, DEST64);
    // A wallet of its own: the tests before leave theirs held for moves the chain settles later.
    const w = ok(await alice.post('/api/wallets', { chain: 'a', name: 'release-lost' }), 201).wallet;
    ok(await alice.post(`/api/wallets/${w.id}/airdrop`, { amount: 1 }));
    const body = deposit({ walletId: w.id, amount: '0.04' });
    const headers = { 'idempotency-key': `unsettled-release-lost-${Date.now()}` };
    // The release of the wallet's lease (a DeleteItem of its WALLETLOCK item) fails once, as DynamoDB past its retries would.
    const { out: res, failed } = await withDynamoFailing(
      (command, input) => command === 'DeleteItemCommand' && input.includes(`WALLETLOCK#${w.id}`),
      () => withLostConfirmation(true, () => alice.post('/api/bridge/initiate', body, { headers })),
      1,
    );
    expect(failed).toBe(1);
    const t = ok(res, 202).transaction;
    expect(t).toMatchObject({ status: 'submitted', sourceTxHash: expect.any(String) });
    expect((await settled(alice, t.id)).status).toBe('completed');
    const again = await alice.post('/api/bridge/initiate', body, { headers });
    expect([again.status, again.json.transaction?.id]).toEqual([202, t.id]);
    expect(BigInt(await chain.rpc.getBalance(escrowAccount(SOL))) - escrowBefore).toBe(40_000_000n);
    expect((await balanceOf(SOL.destinationToken, DEST64)) - destBefore).toBe(40_000_000n);
  });

  it('sent, outcome unknown, and it never landed: submitted past the confirmation window while the chain cannot tell; failed once the journal settled it expired; nothing minted', async () => {
    const destBefore = await balanceOf(SOL.destinationToken, DEST64);
    const chain = await chainA();
    // Every send (the request's, then the journal's resends of the same bytes) is lost while this runs.
    await withLostConfirmation(false, async () => {
      const t = ok(await alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id, amount: '0.02' })), 202).transaction;
      expect(t).toMatchObject({ status: 'submitted', sourceTxHash: expect.any(String) });
      advanceClock(31 * 60 * 1000);
      await relayBridge(aliceId, t.id);
      // No window decides a journaled send: only the chain's settlement of it.
      expect((await readBridge(aliceId, t.id))?.status).toBe('submitted');
      const { resolveMovesOnce } = await import('#lib/moves/journal.ts');
      const epoch = chain.rpc.getEpochInfo;
      // The chain is past its last valid block height (read at the node's own slot).
      chain.rpc.getEpochInfo = async () => ({ ...(await epoch.call(chain.rpc)), blockHeight: Number.MAX_SAFE_INTEGER });
      try {
        expect((await resolveMovesOnce()).expired).toBe(1);
      } finally {
        chain.rpc.getEpochInfo = epoch;
      }
      expect((await settled(alice, t.id)).status).toBe('failed');
    });
    expect(await balanceOf(SOL.destinationToken, DEST64)).toBe(destBefore);
  });

  it("the service's own deposit is attached before it is sent: a record racing for its signature at the send gets 409, the deposit completes", async () => {
    const chain = await chainA();
    const dave = rt.client();
    await signedInUser(dave);
    const theirs = ok(await dave.post('/api/bridge/initiate', deposit({ amount: '0.03' }))).transaction;
    const destBefore = await balanceOf(SOL.destinationToken, DEST64);
    const real = chain.sendAndConfirm;
    let raced: { status: number; json: any } | undefined;
    chain.sendAndConfirm = async (tx) => {
      raced = await dave.post(`/api/bridge/${theirs.id}/source-tx`, { txHash: bs58.encode(tx.signatures[0]!) });
      return real.call(chain, tx);
    };
    let t;
    try {
      t = ok(await alice.post('/api/bridge/initiate', deposit({ walletId: aliceWallet.id, amount: '0.03' }))).transaction;
    } finally {
      chain.sendAndConfirm = real;
    }
    fails(raced!, 409, 'CONFLICT');
    expect(t).toMatchObject({ status: 'submitted', sourceTxHash: expect.any(String) });
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect((await balanceOf(SOL.destinationToken, DEST64)) - destBefore).toBe(30_000_000n);
    ok(await dave.post(`/api/bridge/${theirs.id}/cancel`));
  });

  it("another user's wallet is WALLET_NOT_FOUND; a wallet on the ethereum route is refused", async () => {
    fails(await alice.post('/api/bridge/initiate', deposit({ walletId: bobWallet.id })), 404, 'WALLET_NOT_FOUND');
    fails(await alice.post('/api/bridge/initiate', deposit({ bridgeType: 'ethereum-chainb', token: 'ETH', walletId: aliceWallet.id })), 400, 'INVALID_INPUT');
  });
});

describe('deposit from an outside wallet: instructions, then source-tx', () => {
  it('the instructions name the escrow and the memo; the attached transaction completes the transfer', async () => {
    const res = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.25' })));
    const t = res.transaction;
    expect(t.status).toBe('pending');
    expect(res.instructions.step1).toContain(escrowAccount(SOL).toBase58());
    expect(res.instructions.step1).toContain(`shroud-bridge:${t.id}`);
    expect(res.instructions.step2).toContain(`/api/bridge/${t.id}/source-tx`);

    // The user's own wallet, outside the service, does what step1 says.
    const chain = await chainA();
    const outside = Keypair.generate();
    await chain.airdrop(outside.publicKey, 2n * BigInt(LAMPORTS_PER_SOL));
    const sent = await sendDeposit(chain, outside, SOL, 250_000_000n, t.id);
    const before = await balanceOf(SOL.destinationToken, DEST64);

    const attached = ok(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: sent.signature })).transaction;
    expect(attached).toMatchObject({ status: 'submitted', sourceTxHash: sent.signature });
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect((await balanceOf(SOL.destinationToken, DEST64)) - before).toBe(250_000_000n);

    // One source transaction backs one record only: its memo names the first, so another record is refused before anything is reserved.
    const other = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.25' }))).transaction;
    fails(await alice.post(`/api/bridge/${other.id}/source-tx`, { txHash: sent.signature }), 400, 'INVALID_INPUT', /memo/);
    ok(await alice.post(`/api/bridge/${other.id}/cancel`));
  });

  it('relayers racing on one record (the timer and three more) credit it once, each state once', async () => {
    const t = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.3' }))).transaction;
    const chain = await chainA();
    const outside = Keypair.generate();
    await chain.airdrop(outside.publicKey, BigInt(LAMPORTS_PER_SOL));
    const sent = await sendDeposit(chain, outside, SOL, 300_000_000n, t.id);
    const before = await balanceOf(SOL.destinationToken, DEST64);
    ok(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: sent.signature }));
    await Promise.all([relayBridge(aliceId, t.id), relayBridge(aliceId, t.id), relayBridge(aliceId, t.id)]);
    expect((await settled(alice, t.id)).status).toBe('completed');
    await rt.jobPasses('bridge-relayer', 2); // and the timer's passes after
    expect((await balanceOf(SOL.destinationToken, DEST64)) - before).toBe(300_000_000n);
    expect((await readBridge(aliceId, t.id))!.history.map((h) => h.status)).toEqual(['pending', 'submitted', 'source_confirmed', 'completed']);
  });

  it("a transaction that is not this record's deposit (another record's memo) is refused before it is reserved; nothing is minted", async () => {
    const a = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.1' }))).transaction;
    const b = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.1' }))).transaction;
    const chain = await chainA();
    const outside = Keypair.generate();
    await chain.airdrop(outside.publicKey, BigInt(LAMPORTS_PER_SOL));
    const sentForA = await sendDeposit(chain, outside, SOL, 100_000_000n, a.id);
    const before = await balanceOf(SOL.destinationToken, DEST64);
    fails(await alice.post(`/api/bridge/${b.id}/source-tx`, { txHash: sentForA.signature }), 400, 'INVALID_INPUT', /memo/);
    expect(ok(await alice.get(`/api/bridge/status/${b.id}`)).transaction).toMatchObject({ status: 'pending', sourceTxHash: null });
    await rt.jobPasses('bridge-relayer', 2); // the relayer's passes
    expect(await balanceOf(SOL.destinationToken, DEST64)).toBe(before);
    ok(await alice.post(`/api/bridge/${a.id}/cancel`));
    ok(await alice.post(`/api/bridge/${b.id}/cancel`));
  });

  it("front-running (issue 36, 4): another user's record takes the signature before it lands; that record fails, the signature is released, the owner is credited", async () => {
    const mine = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.11' }))).transaction;
    const carol = rt.client();
    const carolId = (await signedInUser(carol)).user.id;
    const theirs = ok(await carol.post('/api/bridge/initiate', deposit({ amount: '0.11' }))).transaction;
    const theirsToo = ok(await carol.post('/api/bridge/initiate', deposit({ amount: '0.11' }))).transaction;
    const chain = await chainA();
    const outside = Keypair.generate();
    await chain.airdrop(outside.publicKey, BigInt(LAMPORTS_PER_SOL));
    const before = await balanceOf(SOL.destinationToken, DEST64);
    // Seen before it lands (a signature is public once it is out): nothing on chain to check yet.
    const sent = await sendDeposit(chain, outside, SOL, 110_000_000n, mine.id, async (signature) => {
      ok(await carol.post(`/api/bridge/${theirs.id}/source-tx`, { txHash: signature }));
    });
    // Once it has landed, it is checked before anything is reserved: not that record's memo.
    fails(await carol.post(`/api/bridge/${theirsToo.id}/source-tx`, { txHash: sent.signature }), 400, 'INVALID_INPUT', /memo/);
    expect(ok(await carol.get(`/api/bridge/status/${theirsToo.id}`)).transaction.status).toBe('pending');
    // The owner gets 409 while the other record holds it (unless the relayer, every second, has
    // already failed that record); the relayer fails it and releases the signature.
    const first = await alice.post(`/api/bridge/${mine.id}/source-tx`, { txHash: sent.signature });
    expect((await settled(carol, theirs.id)).status).toBe('failed');
    expect((await readBridge(carolId, theirs.id))!.failureReason).toMatch(/memo/);
    if (first.status !== 200) {
      fails(first, 409, 'CONFLICT');
      ok(await alice.post(`/api/bridge/${mine.id}/source-tx`, { txHash: sent.signature }));
    }
    expect(ok(await alice.get(`/api/bridge/status/${mine.id}`)).transaction.sourceTxHash).toBe(sent.signature);
    expect((await settled(alice, mine.id)).status).toBe('completed');
    expect((await balanceOf(SOL.destinationToken, DEST64)) - before).toBe(110_000_000n);
    ok(await carol.post(`/api/bridge/${theirsToo.id}/cancel`));
  });

  it('ethereum-chainb: StarkGate instructions; the L1 transaction hash is attached (submitted)', async () => {
    const res = ok(await alice.post('/api/bridge/initiate', deposit({ bridgeType: 'ethereum-chainb', token: 'USDC', amount: '12.5' })));
    const usdc = routeToken('ethereum-chainb', 'USDC')!;
    expect(res.bridgeUrl).toBe('https://starkgate.starknet.io');
    expect(res.instructions.step1).toContain(usdc.l1Bridge);
    expect(res.instructions.step1).toContain('12500000'); // 6 decimals
    const hash = `0x${'ab'.repeat(32)}`;
    fails(await alice.post(`/api/bridge/${res.transaction.id}/source-tx`, { txHash: 'nothex' }), 400, 'INVALID_INPUT');
    expect(ok(await alice.post(`/api/bridge/${res.transaction.id}/source-tx`, { txHash: hash })).transaction).toMatchObject({
      status: 'submitted',
      sourceTxHash: hash,
    });
    fails(await alice.post(`/api/bridge/${res.transaction.id}/source-tx`, { txHash: hash }), 409, 'BRIDGE_STATE_CONFLICT');
    fails(await alice.post(`/api/bridge/${res.transaction.id}/cancel`), 409, 'BRIDGE_STATE_CONFLICT');
  });
});

describe('status, history, cancel, ownership', () => {
  it("history is the caller's only, newest first; someone else's or an unknown id is BRIDGE_NOT_FOUND", async () => {
    const first = ok(await bob.post('/api/bridge/initiate', deposit({ token: 'JUP', amount: '3' }))).transaction;
    const second = ok(await bob.post('/api/bridge/initiate', deposit({ bridgeType: 'ethereum-chainb', token: 'WBTC', amount: '0.00000001' }))).transaction;
    const history = ok(await bob.get('/api/bridge/history')).transactions;
    expect(history.map((t: { id: string }) => t.id)).toEqual([second.id, first.id]);
    const alices = ok(await alice.get('/api/bridge/history')).transactions;
    expect(alices.length).toBeGreaterThan(0);
    expect(alices.some((t: { id: string }) => t.id === first.id)).toBe(false);

    expect(ok(await bob.get(`/api/bridge/status/${first.id}`)).transaction).toEqual(first);
    fails(await alice.get(`/api/bridge/status/${first.id}`), 404, 'BRIDGE_NOT_FOUND');
    fails(await alice.post(`/api/bridge/${first.id}/cancel`), 404, 'BRIDGE_NOT_FOUND');
    fails(await alice.post(`/api/bridge/${first.id}/source-tx`, { txHash: `0x${'1'.repeat(64)}` }), 404, 'BRIDGE_NOT_FOUND');
    fails(await bob.get('/api/bridge/status/00000000-0000-4000-8000-000000000000'), 404, 'BRIDGE_NOT_FOUND');
    fails(await bob.get('/api/bridge/status/not-an-id'), 404, 'BRIDGE_NOT_FOUND');
    // bob's pending record is still pending: alice's attempts changed nothing.
    expect(ok(await bob.get(`/api/bridge/status/${first.id}`)).transaction.status).toBe('pending');
  });

  it('cancel before the source transaction; then every transition is BRIDGE_STATE_CONFLICT', async () => {
    const t = ok(await alice.post('/api/bridge/initiate', deposit({ token: 'BONK', amount: '1000.12345' }))).transaction;
    const cancelled = ok(await alice.post(`/api/bridge/${t.id}/cancel`)).transaction;
    expect(cancelled).toMatchObject({ id: t.id, status: 'cancelled' });
    expect(cancelled.updatedAt >= t.updatedAt).toBe(true);
    fails(await alice.post(`/api/bridge/${t.id}/cancel`), 409, 'BRIDGE_STATE_CONFLICT');
    const sig = Keypair.generate().secretKey; // 64 bytes: a well-formed signature that exists nowhere
    const bs58 = (await import('bs58')).default;
    fails(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: bs58.encode(sig) }), 409, 'BRIDGE_STATE_CONFLICT');
    expect((await readBridge(aliceId, t.id))!.history.map((h) => h.status)).toEqual(['pending', 'cancelled']);
  });

  it('parallel cancels: exactly one wins', async () => {
    const t = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.5' }))).transaction;
    const results = await Promise.all(Array.from({ length: 5 }, () => alice.post(`/api/bridge/${t.id}/cancel`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(4);
  });
});

describe('input errors', () => {
  it('UNSUPPORTED_ROUTE, UNSUPPORTED_TOKEN, INVALID_ADDRESS, INVALID_AMOUNT, INVALID_INPUT', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ bridgeType: 'chainb-chaina' }, 'UNSUPPORTED_ROUTE'],
      [{ bridgeType: 'polygon-chainb' }, 'UNSUPPORTED_ROUTE'],
      [{ direction: 'withdraw' }, 'INVALID_ADDRESS'], // a withdrawal goes to a chain A address
      [{ direction: 'withdraw', bridgeType: 'ethereum-chainb', token: 'ETH' }, 'UNSUPPORTED_ROUTE'],
      [{ direction: 'sideways' }, 'UNSUPPORTED_ROUTE'],
      [{ token: 'DOGE' }, 'UNSUPPORTED_TOKEN'],
      [{ token: 'sol' }, 'UNSUPPORTED_TOKEN'],
      [{ token: 'ETH' }, 'UNSUPPORTED_TOKEN'],
      [{ bridgeType: 'ethereum-chainb', token: 'SOL' }, 'UNSUPPORTED_TOKEN'],
      [{ destAddress: aliceWallet.address }, 'INVALID_ADDRESS'],
      [{ destAddress: '0x' + 'a'.repeat(40) + 'zz' }, 'INVALID_ADDRESS'],
      [{ destAddress: '0x0' }, 'INVALID_ADDRESS'],
      [{ destAddress: `0x8${'0'.repeat(62)}` }, 'INVALID_ADDRESS'], // 2^251
      [{ amount: '0' }, 'INVALID_AMOUNT'],
      [{ amount: '-1' }, 'INVALID_AMOUNT'],
      [{ amount: '1.0000000001' }, 'INVALID_AMOUNT'], // SOL has 9 decimals
      [{ amount: '1e3' }, 'INVALID_AMOUNT'],
      [{ amount: '18446744074' }, 'INVALID_AMOUNT'], // above u64 lamports
      [{ token: 'BONK', amount: '0.000001' }, 'INVALID_AMOUNT'], // BONK has 5 decimals
      [{ amount: 1.5 }, 'INVALID_INPUT'],
      [{ destAddress: undefined }, 'INVALID_INPUT'],
      [{ walletId: 'not-a-wallet' }, 'WALLET_NOT_FOUND'],
    ];
    for (const [patch, code] of cases) {
      const res = await alice.post('/api/bridge/initiate', deposit(patch));
      expect([res.status, res.json.error], JSON.stringify(patch)).toEqual([code === 'WALLET_NOT_FOUND' ? 404 : 400, code]);
    }
    const t = ok(await alice.post('/api/bridge/initiate', deposit())).transaction;
    fails(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: '0x' + 'ab'.repeat(32) }), 400, 'INVALID_INPUT');
    fails(await alice.post(`/api/bridge/${t.id}/source-tx`, {}), 400, 'INVALID_INPUT');
    ok(await alice.post(`/api/bridge/${t.id}/cancel`));
  });

  it('needs a session; the group allows 10 requests a minute (times RATE_LIMIT_MULTIPLIER, 50 here)', async () => {
    expect((await alice.get('/api/bridge/history')).headers.get('ratelimit-limit')).toBe('500');
    const anon = rt.client();
    expect((await anon.post('/api/bridge/initiate', deposit())).status).toBe(401);
    expect((await anon.get('/api/bridge/history')).status).toBe(401);
  });
});

describe('expiry', () => {
  it('a record without a source transaction expires after 60 minutes; then source-tx is BRIDGE_STATE_CONFLICT', async () => {
    const t = ok(await alice.post('/api/bridge/initiate', deposit({ token: 'PUMP', amount: '2' }))).transaction;
    expect(Date.parse(t.expiresAt) - Date.parse(t.createdAt)).toBe(60 * 60 * 1000);
    advanceClock(59 * 60 * 1000);
    expect(ok(await alice.get(`/api/bridge/status/${t.id}`)).transaction.status).toBe('pending');
    advanceClock(2 * 60 * 1000);
    const expired = ok(await alice.get(`/api/bridge/status/${t.id}`)).transaction;
    expect(expired.status).toBe('expired');
    const bs58 = (await import('bs58')).default;
    fails(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: bs58.encode(Keypair.generate().secretKey) }), 409, 'BRIDGE_STATE_CONFLICT');
    fails(await alice.post(`/api/bridge/${t.id}/cancel`), 409, 'BRIDGE_STATE_CONFLICT');
    expect((await readBridge(aliceId, t.id))!.history.map((h) => h.status)).toEqual(['pending', 'expired']);
  });
});
