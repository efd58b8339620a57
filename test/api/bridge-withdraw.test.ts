import { ec } from 'starknet';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { ok, fails, settled } from './bridge-helpers.ts';
import { signedInUser } from './identity-helpers.ts';
import { withLostChainBAnswer } from '../support/chain-b.ts';

// lib modules that read configuration at load: imported once the runtime has set it (beforeAll).
let chainA: typeof import('#lib/chains/chain-a/index.ts').chainA;
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let embeddedLedger: typeof import('#lib/local/chain-b/ledger.ts').localLedger;
let LocalChainB: typeof import('#lib/local/chain-b/chain.ts').LocalChainB;
let withdrawCall: typeof import('#lib/bridge/chain-b-source.ts').withdrawCall;
let escrowAddress: typeof import('#lib/bridge/chain-a-release.ts').escrowAddress;
let readBridge: typeof import('#lib/data/bridge-transfers.ts').readBridge;
let readRelease: typeof import('#lib/data/bridge-releases.ts').readRelease;
let relayBridge: typeof import('#lib/bridge/relayer.ts').relayBridge;
let releaseWithdrawal: typeof import('#lib/bridge/chain-a-release.ts').releaseWithdrawal;
let SOL: import('#lib/bridge/routes.ts').HyperlaneToken;
let LedgerRejection: typeof import('#lib/local/chain-b/ledger.ts').LedgerRejection;

/**
 * Withdrawals chain B → chain A over HTTP against the local runtime: a deposit first funds the
 * chain B wallet with the warp route's synthetic SOL; the withdrawal's transfer_remote burns it on
 * the local chain B ledger; the relayer (the runtime's timer) confirms it there and releases the
 * SOL from the escrow on the local chain A (LiteSVM).
 */
let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let aliceId: string;
let walletA: { id: string; address: string };
let walletB: { id: string; address: string };
let bobB: { id: string; address: string };
const PASS = 'withdraw-pass-1';

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '50' });
  ({ chainA } = await import('#lib/chains/chain-a/index.ts'));
  chainb = await import('#lib/chains/chain-b/index.ts');
  ({ localLedger: embeddedLedger } = await import('#lib/local/chain-b/ledger.ts'));
  ({ LocalChainB } = await import('#lib/local/chain-b/chain.ts'));
  ({ withdrawCall } = await import('#lib/bridge/chain-b-source.ts'));
  ({ escrowAddress, releaseWithdrawal } = await import('#lib/bridge/chain-a-release.ts'));
  ({ readBridge } = await import('#lib/data/bridge-transfers.ts'));
  ({ readRelease } = await import('#lib/data/bridge-releases.ts'));
  ({ relayBridge } = await import('#lib/bridge/relayer.ts'));
  SOL = (await import('#lib/bridge/routes.ts')).routeToken('chaina-chainb', 'SOL')!;
  ({ LedgerRejection } = await import('#lib/local/chain-b/ledger.ts'));
  alice = rt.client();
  bob = rt.client();
  aliceId = (await signedInUser(alice)).user.id;
  await signedInUser(bob);
  walletA = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  walletB = (await alice.post('/api/wallets', { chain: 'b', name: 'main', password: PASS })).json.wallet;
  bobB = (await bob.post('/api/wallets', { chain: 'b', name: 'main', password: PASS })).json.wallet;
  ok(await alice.post(`/api/wallets/${walletA.id}/airdrop`, { amount: 10 }));
  ok(await alice.post(`/api/wallets/${walletB.id}/airdrop`, { amount: 10 })); // STRK for the fees
  // The deposit that funds the chain B wallet with synthetic SOL.
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
afterAll(async () => rt?.stop());
beforeEach(() => advanceClock(61_000));

const withdraw = (extra: Record<string, unknown> = {}) => ({
  bridgeType: 'chaina-chainb',
  direction: 'withdraw',
  token: 'SOL',
  amount: '0.4',
  destAddress: Keypair.generate().publicKey.toBase58(),
  ...extra,
});

const synthetic = (holder: string) => chainb.balanceOf(SOL.destinationToken, holder);
const lamports = async (address: string) => BigInt(await (await chainA()).rpc.getBalance(new (await import('@solana/web3.js')).PublicKey(address)));

describe("withdraw from the caller's chain B wallet", () => {
  it('burns on chain B, the relayer releases on chain A: exact balances on both chains and total supply', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const chain = await chainA();
    const escrow = (await escrowAddress(chain)).toBase58();
    const [heldBefore, supplyBefore, escrowBefore, strkBefore] = await Promise.all([
      synthetic(walletB.address),
      embeddedLedger().totalSupply(SOL.destinationToken),
      lamports(escrow),
      chainb.balanceOf(chainb.STRK.address, walletB.address),
    ]);
    expect(heldBefore).toBeGreaterThanOrEqual(5_000_000_000n);

    const res = ok(await alice.post('/api/bridge/initiate', withdraw({ amount: '1.25', destAddress: dest, walletId: walletB.id, password: PASS })));
    expect(res).toEqual({
      success: true,
      transaction: {
        id: expect.any(String),
        bridgeType: 'chaina-chainb',
        direction: 'withdraw',
        token: 'SOL',
        amount: '1.25',
        destAddress: dest,
        status: 'submitted',
        sourceTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        destTxHash: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        expiresAt: expect.any(String),
      },
      bridgeUrl: 'https://nexus.hyperlane.xyz',
      instructions: { step1: expect.stringContaining(res.transaction?.sourceTxHash ?? '-'), step2: expect.any(String), step3: expect.any(String) },
    });
    // The burn is on chain B at once: balance and total supply down by exactly the amount, the fee paid in STRK.
    expect(heldBefore - (await synthetic(walletB.address))).toBe(1_250_000_000n);
    expect(supplyBefore - (await embeddedLedger().totalSupply(SOL.destinationToken))).toBe(1_250_000_000n);
    expect(strkBefore - (await chainb.balanceOf(chainb.STRK.address, walletB.address))).toBeGreaterThan(0n);
    const source = ok(await alice.get(`/api/chainb/tx/${res.transaction.sourceTxHash}`)).transaction;
    expect(source).toMatchObject({ status: 'SUCCEEDED', type: 'INVOKE', sender: walletB.address });

    const done = await settled(alice, res.transaction.id);
    expect(done.status).toBe('completed');
    // The release: exactly the amount to the destination; the escrow pays it plus the transaction fee.
    expect(await lamports(dest)).toBe(1_250_000_000n);
    const fee = escrowBefore - (await lamports(escrow)) - 1_250_000_000n;
    expect(fee).toBeGreaterThan(0n);
    expect(fee).toBeLessThan(100_000n);
    const stored = (await readBridge(aliceId, res.transaction.id))!;
    expect(stored.history.map((h) => h.status)).toEqual(['pending', 'submitted', 'source_confirmed', 'completed']);
    expect(stored.destTxHash).toBe((await readRelease(stored.messageId!))!.signature);
    const release = await chain.rpc.getTransaction(done.destTxHash, { maxSupportedTransactionVersion: 0 });
    expect(release?.meta?.err ?? null).toBeNull();

    // Relayers racing on it afterwards change nothing: released once.
    await Promise.all([relayBridge(aliceId, stored.id), relayBridge(aliceId, stored.id)]);
    await rt.jobPasses('bridge-relayer', 2);
    expect(await lamports(dest)).toBe(1_250_000_000n);
    fails(await alice.post(`/api/bridge/${stored.id}/cancel`), 409, 'BRIDGE_STATE_CONFLICT');
    fails(await alice.post(`/api/bridge/${stored.id}/source-tx`, { txHash: stored.sourceTxHash }), 409, 'BRIDGE_STATE_CONFLICT');
  });

  it('password: 400 when missing, 401 INVALID_PASSWORD when wrong (no record, nothing burned); foreign or chain A wallet refused', async () => {
    const before = await synthetic(walletB.address);
    const records = ok(await alice.get('/api/bridge/history')).transactions.length;
    fails(await alice.post('/api/bridge/initiate', withdraw({ walletId: walletB.id })), 400, 'INVALID_INPUT', /^password/);
    fails(await alice.post('/api/bridge/initiate', withdraw({ walletId: walletB.id, password: 'wrong-password' })), 401, 'INVALID_PASSWORD');
    expect(ok(await alice.get('/api/bridge/history')).transactions).toHaveLength(records); // a refused withdrawal leaves no record
    fails(await alice.post('/api/bridge/initiate', withdraw({ walletId: bobB.id, password: PASS })), 404, 'WALLET_NOT_FOUND');
    fails(await alice.post('/api/bridge/initiate', withdraw({ walletId: walletA.id, password: PASS })), 400, 'INVALID_INPUT', /chain B wallet/);
    fails(await alice.post('/api/bridge/initiate', withdraw({ password: PASS })), 400, 'INVALID_INPUT', /^password/);
    fails(
      await alice.post('/api/bridge/initiate', { ...withdraw(), direction: 'deposit', destAddress: walletB.address, password: PASS }),
      400,
      'INVALID_INPUT',
      /^password/,
    );
    expect(await synthetic(walletB.address)).toBe(before);
  });

  it('more than the wallet holds: 422 INSUFFICIENT_BALANCE, nothing burned', async () => {
    const before = await synthetic(walletB.address);
    const records = ok(await alice.get('/api/bridge/history')).transactions.length;
    fails(await alice.post('/api/bridge/initiate', withdraw({ amount: '1000', walletId: walletB.id, password: PASS })), 422, 'INSUFFICIENT_BALANCE');
    expect(ok(await alice.get('/api/bridge/history')).transactions).toHaveLength(records);
    expect(await synthetic(walletB.address)).toBe(before);
  });

  it("sent, outcome unknown, and it landed: submitted with the transaction's hash; the relayer completes it; exact balances", async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const held = await synthetic(walletB.address);
    const supply = await embeddedLedger().totalSupply(SOL.destinationToken);
    const r = await withLostChainBAnswer(true, () =>
      alice.post('/api/bridge/initiate', withdraw({ amount: '0.75', destAddress: dest, walletId: walletB.id, password: PASS })),
    );
    // 202 (its answer lost); or 200 when the relayer's pass (every second) found the record before its
    // send, sent the same INVOKE first and it landed: the request's own send is then refused for its
    // nonce, and chain B says it landed.
    expect([200, 202], JSON.stringify(r.json)).toContain(r.status);
    const t = r.json.transaction as { id: string; status: string; sourceTxHash: string };
    expect(t).toMatchObject({ status: 'submitted', sourceTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    // The hash the record took before the send is the transaction's on chain B.
    expect(ok(await alice.get(`/api/chainb/tx/${t.sourceTxHash}`)).transaction).toMatchObject({ status: 'SUCCEEDED', type: 'INVOKE', sender: walletB.address });
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect(held - (await synthetic(walletB.address))).toBe(750_000_000n);
    expect(supply - (await embeddedLedger().totalSupply(SOL.destinationToken))).toBe(750_000_000n);
    expect(await lamports(dest)).toBe(750_000_000n);
    expect((await readBridge(aliceId, t.id))!.history.map((h) => h.status)).toEqual(['pending', 'submitted', 'source_confirmed', 'completed']);
  });

  it('sent, its answer lost before chain B received it: submitted; the journal sends the same INVOKE again and the relayer follows it: burned and released once', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const held = await synthetic(walletB.address);
    const t = ok(
      await withLostChainBAnswer(false, () => alice.post('/api/bridge/initiate', withdraw({ destAddress: dest, walletId: walletB.id, password: PASS }))),
      202,
    ).transaction;
    expect(t).toMatchObject({ status: 'submitted', sourceTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    // The relayer settles the journal's move (chain B does not know it, its nonce unused: sent again, the same hash), then confirms and releases.
    await relayBridge(aliceId, t.id);
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect(ok(await alice.get(`/api/chainb/tx/${t.sourceTxHash}`)).transaction).toMatchObject({ status: 'SUCCEEDED' });
    expect(held - (await synthetic(walletB.address))).toBe(BigInt((await readBridge(aliceId, t.id))!.amountUnits));
    expect(await lamports(dest)).toBe(BigInt((await readBridge(aliceId, t.id))!.amountUnits));
  });

  it('refused by chain B (the fee balance): an immediate INSUFFICIENT_FEE_BALANCE, the record failed, nothing burned', async () => {
    const held = await synthetic(walletB.address);
    const records = ok(await alice.get('/api/bridge/history')).transactions.length;
    const ledger = embeddedLedger();
    const real = ledger.invoke;
    ledger.invoke = async () => {
      throw new LedgerRejection('INSUFFICIENT_ACCOUNT_BALANCE', 'the fee exceeds the balance');
    };
    try {
      fails(await alice.post('/api/bridge/initiate', withdraw({ walletId: walletB.id, password: PASS })), 422, 'INSUFFICIENT_FEE_BALANCE');
    } finally {
      ledger.invoke = real;
    }
    const list = ok(await alice.get('/api/bridge/history')).transactions;
    expect(list).toHaveLength(records + 1);
    expect(list[0]).toMatchObject({ direction: 'withdraw', status: 'failed' });
    expect(await synthetic(walletB.address)).toBe(held);
  });

  it('input errors: a chain B destAddress is INVALID_ADDRESS; withdraw on the ethereum route is UNSUPPORTED_ROUTE', async () => {
    fails(await alice.post('/api/bridge/initiate', withdraw({ destAddress: walletB.address })), 400, 'INVALID_ADDRESS');
    fails(await alice.post('/api/bridge/initiate', withdraw({ destAddress: '1111' })), 400, 'INVALID_ADDRESS');
    fails(await alice.post('/api/bridge/initiate', withdraw({ bridgeType: 'ethereum-chainb', token: 'ETH' })), 400, 'UNSUPPORTED_ROUTE');
    fails(await alice.post('/api/bridge/initiate', withdraw({ token: 'USDC' })), 400, 'UNSUPPORTED_TOKEN');
    fails(await alice.post('/api/bridge/initiate', withdraw({ amount: '18446744074' })), 400, 'INVALID_AMOUNT');
  });
});

describe('withdraw from an outside chain B wallet: instructions, then source-tx', () => {
  /** An outside account holding `amount` synthetic SOL (sent from alice's wallet over /api/chainb/transfer) and STRK for fees. */
  async function outsider(amount: string) {
    const pk = `0x${Buffer.from(ec.starkCurve.utils.randomPrivateKey()).toString('hex')}`;
    const acc = await import('#lib/chains/chain-b/account.ts');
    const address = acc.accountAddress(acc.publicKeyOf(pk));
    ok(await alice.post('/api/chainb/transfer', { walletId: walletB.id, password: PASS, amount, recipientAddress: address, token: SOL.destinationToken }));
    await embeddedLedger().faucetMint(chainb.STRK.address, address, 10n ** 18n);
    return { pk, address, chain: new LocalChainB(embeddedLedger()) };
  }

  it('the instructions name transfer_remote and the router; the attached transaction completes the withdrawal', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const res = ok(await alice.post('/api/bridge/initiate', withdraw({ amount: '0.3', destAddress: dest })));
    const t = res.transaction;
    expect(t.status).toBe('pending');
    expect(res.instructions.step1).toContain('transfer_remote(1399811149, 0x');
    expect(res.instructions.step1).toContain(SOL.destinationRouter);
    expect(res.instructions.step1).toContain('300000000');
    expect(res.instructions.step2).toContain(`/api/bridge/${t.id}/source-tx`);

    const o = await outsider('0.3');
    const supply = await embeddedLedger().totalSupply(SOL.destinationToken);
    const sent = await o.chain.execute({ privateKey: o.pk, calls: [withdrawCall(SOL, dest, 300_000_000n)] });
    expect(await synthetic(o.address)).toBe(0n);
    expect(supply - (await embeddedLedger().totalSupply(SOL.destinationToken))).toBe(300_000_000n);
    fails(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: bs58.encode(Keypair.generate().secretKey) }), 400, 'INVALID_INPUT');
    expect(ok(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: sent.txHash })).transaction).toMatchObject({
      status: 'submitted',
      sourceTxHash: sent.txHash,
    });
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect(await lamports(dest)).toBe(300_000_000n);

    // One source transaction backs one record only.
    const again = ok(await alice.post('/api/bridge/initiate', withdraw({ amount: '0.3', destAddress: dest }))).transaction;
    fails(await alice.post(`/api/bridge/${again.id}/source-tx`, { txHash: sent.txHash }), 409, 'CONFLICT');
    expect(ok(await alice.post(`/api/bridge/${again.id}/cancel`)).transaction.status).toBe('cancelled');
    expect(await lamports(dest)).toBe(300_000_000n);
  });

  it('a transaction to another recipient, of another amount, or not a transfer_remote is refused at source-tx (400, nothing reserved); nothing is released', async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const o = await outsider('0.2');
    const elsewhere = await o.chain.execute({ privateKey: o.pk, calls: [withdrawCall(SOL, Keypair.generate().publicKey.toBase58(), 100_000_000n)] });
    const smaller = await o.chain.execute({ privateKey: o.pk, calls: [withdrawCall(SOL, dest, 50_000_000n)] });
    const plain = await o.chain.transfer({ privateKey: o.pk, token: SOL.destinationToken, to: walletB.address, amount: 1n });
    for (const [txHash, amount] of [
      [elsewhere.txHash, '0.1'],
      [smaller.txHash, '0.1'],
      [plain.txHash, '0.000000001'],
    ] as const) {
      const t = ok(await alice.post('/api/bridge/initiate', withdraw({ amount, destAddress: dest }))).transaction;
      fails(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash }), 400, 'INVALID_INPUT', /transfer_remote/);
      ok(await alice.post(`/api/bridge/${t.id}/cancel`));
    }
    expect(await lamports(dest)).toBe(0n);
  });

  it('a chain B transaction that does not exist fails after the confirmation window; cancel while pending', async () => {
    const t = ok(await alice.post('/api/bridge/initiate', withdraw())).transaction;
    ok(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: `0x${'5'.repeat(63)}` }));
    await rt.jobPasses('bridge-relayer', 2);
    expect(ok(await alice.get(`/api/bridge/status/${t.id}`)).transaction.status).toBe('submitted');
    advanceClock(31 * 60 * 1000);
    expect((await settled(alice, t.id)).status).toBe('failed');
    expect((await readBridge(aliceId, t.id))!.failureReason).toMatch(/not found on chain B/);
    const p = ok(await alice.post('/api/bridge/initiate', withdraw())).transaction;
    expect(ok(await alice.post(`/api/bridge/${p.id}/cancel`)).transaction.status).toBe('cancelled');
    fails(await alice.post(`/api/bridge/${p.id}/source-tx`, { txHash: `0x${'6'.repeat(63)}` }), 409, 'BRIDGE_STATE_CONFLICT');
    fails(await bob.get(`/api/bridge/status/${p.id}`), 404, 'BRIDGE_NOT_FOUND');
  });
});

describe('the wrong-password lock', () => {
  it("five wrong passwords lock the wallet's withdrawals (429 TOO_MANY_ATTEMPTS), even with the right one", async () => {
    for (let i = 0; i < 5; i++)
      fails(await alice.post('/api/bridge/initiate', withdraw({ walletId: walletB.id, password: `wrong-${i}` })), 401, 'INVALID_PASSWORD');
    fails(await alice.post('/api/bridge/initiate', withdraw({ walletId: walletB.id, password: PASS })), 429, 'TOO_MANY_ATTEMPTS');
  });
});

describe('the chain A release, exactly once', () => {
  const messageId = () => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`;

  it('a release recorded but never sent (the relayer died before sending) goes out on the next pass as the same transaction, once', async () => {
    const chain = await chainA();
    const to = Keypair.generate().publicKey.toBase58();
    const args = { bridgeId: 'crash-test', messageId: messageId(), route: SOL, to, amount: 70_000_000n };
    // The same chain, but the process dies at the moment it would send.
    const dying = Object.assign(Object.create(chain) as typeof chain, {
      sendAndConfirm: async () => {
        throw new Error('the relayer process died');
      },
    });
    await expect(releaseWithdrawal(dying, args)).rejects.toThrow('the relayer process died');
    const recorded = (await readRelease(args.messageId))!;
    expect(recorded.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/);
    expect(await lamports(to)).toBe(0n);
    expect(await releaseWithdrawal(chain, args)).toBe(recorded.signature);
    expect(await lamports(to)).toBe(70_000_000n);
    expect(await releaseWithdrawal(chain, args)).toBe(recorded.signature);
    expect(await lamports(to)).toBe(70_000_000n);
  });

  it('a recorded release past its last valid block height, with no status in the history, is replaced by a new transaction, released once', async () => {
    const chain = await chainA();
    const { serviceKey } = await import('#lib/rewards/service-keys.ts');
    const { ESCROW_KEY_NAME } = await import('#lib/bridge/chain-a-release.ts');
    const { claimRelease } = await import('#lib/data/bridge-releases.ts');
    const { SystemProgram } = await import('@solana/web3.js');
    const { buildAndSignTx } = await import('@lightprotocol/stateless.js');
    await escrowAddress(chain); // set up by the earlier releases already
    const escrow = await (
      await serviceKey(
        ESCROW_KEY_NAME,
        async () => true,
        async () => ({}),
      )
    ).signer();
    const to = Keypair.generate().publicKey;
    const args = { bridgeId: 'expiry-test', messageId: messageId(), route: SOL, to: to.toBase58(), amount: 20_000_000n };
    // What a relayer recorded before dying, built on a blockhash the chain has since forgotten, and
    // the chain past its last valid height (a refusal alone decides nothing: lib/chains/chain-a/settle.ts).
    const stale = buildAndSignTx(
      [SystemProgram.transfer({ fromPubkey: escrow.publicKey, toPubkey: to, lamports: 20_000_000n })],
      escrow,
      bs58.encode(crypto.getRandomValues(new Uint8Array(32))),
    );
    const staleSignature = bs58.encode(stale.signatures[0]!);
    expect(
      await claimRelease(args.messageId, {
        bridgeId: 'expiry-test',
        signature: staleSignature,
        transaction: Buffer.from(stale.serialize()).toString('base64'),
        lastValidBlockHeight: (await chain.rpc.getBlockHeight()) - 1,
        at: new Date().toISOString(),
      }),
    ).toBe(true);
    const signature = await releaseWithdrawal(chain, args);
    expect(signature).not.toBe(staleSignature);
    expect((await readRelease(args.messageId))!.signature).toBe(signature);
    expect(await lamports(to.toBase58())).toBe(20_000_000n);
    expect(await releaseWithdrawal(chain, args)).toBe(signature);
    expect(await lamports(to.toBase58())).toBe(20_000_000n);
  });

  it('relayers racing on one message release it once', async () => {
    const chain = await chainA();
    const to = Keypair.generate().publicKey.toBase58();
    const args = { bridgeId: 'race-test', messageId: messageId(), route: SOL, to, amount: 30_000_000n };
    const out = await Promise.allSettled([releaseWithdrawal(chain, args), releaseWithdrawal(chain, args), releaseWithdrawal(chain, args)]);
    const signatures = out.flatMap((o) => (o.status === 'fulfilled' && o.value ? [o.value] : []));
    expect(new Set(signatures).size).toBe(1);
    expect(await releaseWithdrawal(chain, args)).toBe(signatures[0]);
    expect(await lamports(to)).toBe(30_000_000n);
  });
});
