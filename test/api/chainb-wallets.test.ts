import { beforeAll, describe, expect, it } from 'vitest';
import { hash } from 'starknet';
import { advanceClock } from '#lib/clock.ts';
import { type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';
import { runtimeWithUsers } from './runtime-with-users.ts';
import { withLostChainBAnswer } from '../support/chain-b.ts';

/**
 * Chain B wallets over HTTP against the local runtime (DynamoDB Local, the embedded chain B
 * ledger): faucet, transfers (the first one deploys the account), exact balances and fees,
 * transactions, every error code, foreign wallets, parallel transfers (the restart:
 * npm-start-restart.test.ts).
 */
let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let fees: typeof import('#lib/chains/chain-b/fees.ts');
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let embeddedLedger: typeof import('#lib/local/chain-b/ledger.ts').localLedger;
const PASS = 'wallet-pass-123';
const E18 = 10n ** 18n;
const TRANSFER_KEY = `0x${BigInt(hash.getSelectorFromName('Transfer')).toString(16)}`;

const world = runtimeWithUsers({ RATE_LIMIT_MULTIPLIER: '20' }, ['alice', 'bob'], { fresh: true });
beforeAll(async () => {
  rt = world.rt;
  alice = world.users.alice.client;
  bob = world.users.bob.client;
  fees = await import('#lib/chains/chain-b/fees.ts');
  chainb = await import('#lib/chains/chain-b/index.ts');
  ({ localLedger: embeddedLedger } = await import('#lib/local/chain-b/ledger.ts'));
});

let n = 0;
const newWallet = async (c: HttpClient, password = PASS) => {
  const r = await c.post('/api/wallets', { chain: 'b', name: `b-${n++}`, password });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json.wallet as { id: string; address: string };
};
const airdrop = async (c: HttpClient, id: string, amount: number | string, token?: string) => {
  const r = await c.post(`/api/wallets/${id}/airdrop`, { amount, ...(token ? { token } : {}) });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json;
};
const balance = async (c: HttpClient, address: string, token = 'STRK') => {
  const r = await c.get(`/api/chainb/balance/${address}?token=${token}`);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return BigInt(r.json.balance);
};
const send = (c: HttpClient, walletId: string, body: Record<string, unknown>) => c.post('/api/chainb/transfer', { walletId, password: PASS, ...body });

describe('chain B wallets', () => {
  it("lists only the caller's chain B wallets, in API.md's shape", async () => {
    const c = rt.client();
    await signedInUser(c);
    await c.post('/api/wallets', { chain: 'a', name: 'a-one' });
    const w = await newWallet(c);
    const r = await c.get('/api/chainb/wallets');
    expect(r.json).toEqual({ success: true, wallets: [{ id: w.id, name: expect.any(String), address: w.address, isActive: true }] });
    expect((await rt.client().get('/api/chainb/wallets')).status).toBe(401);
  });

  it('airdrop, then transfer: the first deploys the account; exact balances both sides; fees charged in STRK', async () => {
    const a = await newWallet(alice);
    const b = await newWallet(bob);
    const drop = await airdrop(alice, a.id, '10');
    expect(drop).toMatchObject({
      success: true,
      address: a.address,
      amount: (10n * E18).toString(),
      formatted: '10',
      decimals: 18,
      explorerUrl: expect.stringContaining(`/api/chainb/tx/${drop.txHash}`),
    });
    await airdrop(alice, a.id, 1, 'ETH');
    expect((await alice.get(`/api/wallets/${a.id}/balance`)).json).toMatchObject({ balance: (10n * E18).toString(), formatted: '10', decimals: 18 });

    const t1 = await send(alice, a.id, { amount: '1.500000000000000001', recipientAddress: b.address });
    expect(t1.status, JSON.stringify(t1.json)).toBe(200);
    expect(t1.json).toMatchObject({
      success: true,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      deployTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      explorerUrl: expect.stringContaining(t1.json.txHash),
    });
    const deployFee = fees.feeOf(fees.LOCAL_GAS_USE.deployAccount);
    const invokeFee = fees.feeOf(fees.LOCAL_GAS_USE.invoke);
    expect(BigInt(t1.json.fee)).toBe(deployFee + invokeFee);
    expect(await balance(bob, b.address)).toBe(1_500_000_000_000_000_001n);
    expect(await balance(alice, a.address)).toBe(10n * E18 - 1_500_000_000_000_000_001n - deployFee - invokeFee);

    const deploy = (await alice.get(`/api/chainb/tx/${t1.json.deployTxHash}`)).json.transaction;
    expect(deploy).toMatchObject({ type: 'DEPLOY_ACCOUNT', status: 'SUCCEEDED', sender: a.address, nonce: '0x0', fee: deployFee.toString() });
    const tx = (await bob.get(`/api/chainb/tx/${t1.json.txHash}`)).json.transaction; // transactions are public
    expect(tx).toMatchObject({
      hash: t1.json.txHash,
      type: 'INVOKE',
      status: 'SUCCEEDED',
      sender: a.address,
      nonce: '0x1',
      fee: invokeFee.toString(),
      blockNumber: expect.any(Number),
    });
    expect(tx.events[0]).toEqual({
      fromAddress: chainb.STRK.address,
      keys: [TRANSFER_KEY, `0x${BigInt(a.address).toString(16)}`, `0x${BigInt(b.address).toString(16)}`],
      data: ['0x14d1120d7b160001', '0x0'],
    });
    expect(tx.events[1].keys[0]).toBe(TRANSFER_KEY); // the fee, to the sequencer

    // ETH: no second deployment; the fee is still STRK.
    const t2 = await send(alice, a.id, { amount: '0.25', recipientAddress: b.address, token: 'ETH' });
    expect(t2.status, JSON.stringify(t2.json)).toBe(200);
    expect(t2.json.deployTxHash).toBeUndefined();
    expect(await balance(bob, b.address, 'ETH')).toBe(E18 / 4n);
    expect(await balance(alice, a.address, 'ETH')).toBe((3n * E18) / 4n);
    expect(await balance(alice, a.address)).toBe(10n * E18 - 1_500_000_000_000_000_001n - deployFee - 2n * invokeFee);
    expect((await alice.get(`/api/chainb/balance/${a.address}?token=${chainb.ETH.address}`)).json).toMatchObject({
      token: chainb.ETH.address,
      symbol: 'ETH',
      formatted: '0.75',
      decimals: 18,
    });
  });

  it('answers every error with its code, moving nothing', async () => {
    const a = await newWallet(alice);
    const b = await newWallet(bob);
    await airdrop(alice, a.id, 1);
    const before = await balance(alice, a.address);
    const expectError = async (body: Record<string, unknown>, status: number, error: string, c = alice) => {
      const r = await send(c, (body.walletId as string) ?? a.id, { recipientAddress: b.address, amount: '0.1', ...body });
      expect(r.status, `${JSON.stringify(body)} → ${JSON.stringify(r.json)}`).toBe(status);
      expect(r.json.error).toBe(error);
      return r;
    };
    for (const recipientAddress of ['xyz', '0x0', `0x${'f'.repeat(64)}`, '0x12g4']) await expectError({ recipientAddress }, 400, 'INVALID_ADDRESS');
    for (const amount of ['abc', '0', '-1', '1e3', '0.0000000000000000001', '', ' ']) await expectError({ amount }, 400, 'INVALID_AMOUNT');
    await expectError({ amount: 1 }, 400, 'INVALID_INPUT'); // a JSON number: amounts are decimal strings
    await expectError({ amount: '5' }, 422, 'INSUFFICIENT_BALANCE');
    await expectError({ amount: '1' }, 422, 'INSUFFICIENT_FEE_BALANCE'); // all of it: nothing left for the fee
    const ethOnly = await newWallet(alice);
    await airdrop(alice, ethOnly.id, 1, 'ETH');
    await expectError({ walletId: ethOnly.id, amount: '0.5', token: 'ETH' }, 422, 'INSUFFICIENT_FEE_BALANCE');
    await expectError({ walletId: '00000000-0000-4000-8000-000000000000' }, 404, 'WALLET_NOT_FOUND');
    await expectError({ walletId: a.id }, 404, 'WALLET_NOT_FOUND', bob); // someone else's
    const chainA = (await alice.post('/api/wallets', { chain: 'a', name: `a-${n++}` })).json.wallet;
    await expectError({ walletId: chainA.id }, 404, 'WALLET_NOT_FOUND');
    await expectError({ token: 'DOGE' }, 400, 'INVALID_INPUT');
    expect(await balance(alice, a.address)).toBe(before);
    expect((await alice.get(`/api/chainb/tx/0x00${'12'.repeat(31)}`)).json.error).toBe('TX_NOT_FOUND');
    expect((await alice.get('/api/chainb/tx/nope')).status).toBe(400);
    expect((await alice.get('/api/chainb/balance/nope')).json.error).toBe('INVALID_ADDRESS');
    expect((await alice.get(`/api/chainb/balance/${a.address}?token=0x1234`)).json.error).toBe('INVALID_INPUT');
    // airdrops: at most 100 per request, STRK or ETH only, someone else's wallet is not found
    expect((await alice.post(`/api/wallets/${a.id}/airdrop`, { amount: 101 })).json.error).toBe('INVALID_AMOUNT');
    expect((await alice.post(`/api/wallets/${a.id}/airdrop`, { amount: 1, token: 'DOGE' })).json.error).toBe('INVALID_INPUT');
    expect((await bob.post(`/api/wallets/${a.id}/airdrop`, { amount: 1 })).json.error).toBe('WALLET_NOT_FOUND');
  });

  it('a transfer the contract refuses is TRANSACTION_REVERTED with its reason: nonce used, fee charged, nothing moved', async () => {
    const a = await newWallet(alice);
    const b = await newWallet(bob);
    await airdrop(alice, a.id, 1);
    // A bridged token whose recipient already holds 2^256 - 1: the ERC-20's u256 addition overflows.
    // The ledger's mints keep the total supply below 2^256, so no sequence of this service's calls
    // reaches this state: the test writes the recipient's balance item directly (a fixture of an
    // inconsistent chain), to drive the contract's revert path end to end over HTTP.
    const token = `0x${'7'.repeat(60)}`;
    await chainb.bridgeMint({ token, to: a.address, amount: 5n, messageId: `give-${a.address}`, symbol: 'FULL' });
    // Imported after the runtime started: the data client reads its endpoint at import.
    const [{ putItem }, { toHex64 }] = await Promise.all([import('#lib/data/items.ts'), import('#lib/chains/chain-b/felts.ts')]);
    await putItem({ pk: `CHAINB#BAL#${toHex64(b.address)}`, sk: `TOKEN#${toHex64(token)}`, balance: ((1n << 256n) - 1n).toString() });
    const r = await send(alice, a.id, { amount: '0.000000000000000001', token, recipientAddress: b.address });
    expect(r.status, JSON.stringify(r.json)).toBe(422);
    expect(r.json).toEqual({ error: 'TRANSACTION_REVERTED', message: expect.stringContaining('u256_add Overflow') });
    const txHash = /0x[0-9a-f]{64}/.exec(r.json.message)![0];
    expect((await alice.get(`/api/chainb/tx/${txHash}`)).json.transaction).toMatchObject({
      status: 'REVERTED',
      revertReason: 'u256_add Overflow',
      nonce: '0x1',
    });
    expect(await balance(alice, a.address, token)).toBe(5n);
    const feesPaid = fees.feeOf(fees.LOCAL_GAS_USE.deployAccount) + fees.feeOf(fees.LOCAL_GAS_USE.invoke);
    expect(await balance(alice, a.address)).toBe(E18 - feesPaid);
  });

  it('sent, outcome unknown, and it landed: 202 submitted with the hash it has on chain B; the same Idempotency-Key replays it, nothing sent twice', async () => {
    const a = await newWallet(alice);
    const b = await newWallet(bob);
    await airdrop(alice, a.id, 2);
    await send(alice, a.id, { amount: '0.1', recipientAddress: b.address }); // deploys the account
    const before = await balance(alice, a.address);
    const headers = { 'idempotency-key': `lost-${a.id}` };
    const body = { walletId: a.id, password: PASS, amount: '0.5', recipientAddress: b.address };
    const r = await withLostChainBAnswer(true, () => alice.post('/api/chainb/transfer', body, { headers }));
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    expect(r.json).toEqual({
      success: true,
      status: 'submitted',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      explorerUrl: expect.stringContaining(r.json.txHash),
    });
    const tx = (await alice.get(`/api/chainb/tx/${r.json.txHash}`)).json.transaction;
    expect(tx).toMatchObject({ hash: r.json.txHash, type: 'INVOKE', status: 'SUCCEEDED', sender: a.address, nonce: '0x2' });
    const invokeFee = fees.feeOf(fees.LOCAL_GAS_USE.invoke);
    expect(await balance(bob, b.address)).toBe(E18 / 10n + E18 / 2n);
    expect(await balance(alice, a.address)).toBe(before - E18 / 2n - invokeFee);
    // The retry gets the first answer; chain B sees no second transfer.
    const again = await alice.post('/api/chainb/transfer', body, { headers });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.txHash).toBe(r.json.txHash);
    expect(await balance(bob, b.address)).toBe(E18 / 10n + E18 / 2n);
    expect(await balance(alice, a.address)).toBe(before - E18 / 2n - invokeFee);
    // The wallet was held for that transaction; chain B shows it, so the next send goes.
    const next = await send(alice, a.id, { amount: '0.1', recipientAddress: b.address });
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    expect(await balance(bob, b.address)).toBe(E18 / 10n + E18 / 2n + E18 / 10n);
  });

  it('sent, its answer lost before chain B received it: 202; the request that finds the wallet held sends the same INVOKE again (it lands, once); a refusal by chain B stays an immediate error, one for a nonce chain B does not bear out is 202', async () => {
    const a = await newWallet(alice);
    const b = await newWallet(bob);
    await airdrop(alice, a.id, 2);
    await send(alice, a.id, { amount: '0.1', recipientAddress: b.address });
    const before = await balance(alice, a.address);
    const r = await withLostChainBAnswer(false, () => send(alice, a.id, { amount: '0.5', recipientAddress: b.address }));
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    expect(r.json).toMatchObject({ status: 'submitted', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    // The next send finds the wallet held for it: chain B does not know it and its nonce is unused, so
    // the journal sends the stored INVOKE again (the same hash) and it lands; then this send goes.
    advanceClock(61_000); // past the ordinary signing lease
    const next = await send(alice, a.id, { amount: '0.25', recipientAddress: b.address });
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    expect((await alice.get(`/api/chainb/tx/${r.json.txHash}`)).json.transaction).toMatchObject({ status: 'SUCCEEDED', sender: a.address, nonce: '0x2' });
    const invokeFee = fees.feeOf(fees.LOCAL_GAS_USE.invoke);
    expect(await balance(bob, b.address)).toBe(E18 / 10n + E18 / 2n + E18 / 4n);
    expect(await balance(alice, a.address)).toBe(before - E18 / 2n - E18 / 4n - 2n * invokeFee);
    const after = await balance(alice, a.address);

    const { LedgerRejection } = await import('#lib/local/chain-b/ledger.ts');
    const ledger = embeddedLedger();
    const real = ledger.invoke;
    ledger.invoke = async () => {
      throw new LedgerRejection('INSUFFICIENT_ACCOUNT_BALANCE', 'the fee exceeds the balance');
    };
    try {
      const refused = await send(alice, a.id, { amount: '0.5', recipientAddress: b.address });
      expect(refused.status).toBe(422);
      expect(refused.json).toMatchObject({ error: 'INSUFFICIENT_FEE_BALANCE' });
    } finally {
      ledger.invoke = real;
    }
    expect(await balance(alice, a.address)).toBe(after);

    // Refused for its nonce while chain B has neither the transaction nor the nonce used: the refusal
    // decides nothing (the chain does), so 202; the journal's resend lands it, once.
    ledger.invoke = async () => {
      throw new LedgerRejection('INVALID_TRANSACTION_NONCE', 'nonce already used');
    };
    let open: Awaited<ReturnType<typeof send>>;
    try {
      open = await send(alice, a.id, { amount: '0.5', recipientAddress: b.address });
      expect(open.status, JSON.stringify(open.json)).toBe(202);
    } finally {
      ledger.invoke = real;
    }
    expect(await balance(alice, a.address)).toBe(after);
    advanceClock(61_000);
    const then = await send(alice, a.id, { amount: '0.1', recipientAddress: b.address }); // finds the wallet held: resends, it lands; then this one
    expect(then.status, JSON.stringify(then.json)).toBe(200);
    expect((await alice.get(`/api/chainb/tx/${open.json.txHash}`)).json.transaction).toMatchObject({ status: 'SUCCEEDED' });
    expect(await balance(alice, a.address)).toBe(after - E18 / 2n - E18 / 10n - 2n * invokeFee);
  });

  it("5 wrong passwords lock the wallet's transfers for 15 minutes (429 TOO_MANY_ATTEMPTS), even for the right one", async () => {
    const a = await newWallet(alice);
    const b = await newWallet(bob);
    await airdrop(alice, a.id, 2);
    for (let i = 0; i < 5; i++) {
      const r = await send(alice, a.id, { amount: '0.1', recipientAddress: b.address, password: `wrong-${i}` });
      expect(r.status).toBe(401);
      expect(r.json.error).toBe('INVALID_PASSWORD');
    }
    const locked = await send(alice, a.id, { amount: '0.1', recipientAddress: b.address });
    expect(locked.status).toBe(429);
    expect(locked.json.error).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await balance(bob, b.address)).toBe(0n);
    advanceClock(15 * 60_000);
    const ok = await send(alice, a.id, { amount: '0.1', recipientAddress: b.address });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(await balance(bob, b.address)).toBe(E18 / 10n);
  });

  it('parallel transfers from one wallet never reuse a nonce nor overdraw', async () => {
    const a = await newWallet(alice);
    const b = await newWallet(bob);
    await airdrop(alice, a.id, 1);
    expect((await send(alice, a.id, { amount: '0.01', recipientAddress: b.address })).status).toBe(200); // deploys
    const start = await balance(alice, a.address);
    const results = await Promise.all(Array.from({ length: 8 }, () => send(alice, a.id, { amount: '0.2', recipientAddress: b.address })));
    const ok = results.filter((r) => r.status === 200);
    for (const r of results) expect([200, 409, 422], JSON.stringify(r.json)).toContain(r.status);
    for (const r of results.filter((x) => x.status === 409)) expect(['WALLET_LOCKED', 'NONCE_CONFLICT']).toContain(r.json.error);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    const nonces = await Promise.all(ok.map(async (r) => (await alice.get(`/api/chainb/tx/${r.json.txHash}`)).json.transaction.nonce));
    expect(new Set(nonces).size).toBe(ok.length);
    const invokeFee = fees.feeOf(fees.LOCAL_GAS_USE.invoke);
    expect(await balance(alice, a.address)).toBe(start - BigInt(ok.length) * (E18 / 5n + invokeFee));
    // Then one after the other until the balance runs out: exactly what fits, never below zero.
    let sent = 0;
    for (let i = 0; i < 6; i++) {
      const r = await send(alice, a.id, { amount: '0.2', recipientAddress: b.address });
      if (r.status === 200) sent++;
      else expect(['INSUFFICIENT_BALANCE', 'INSUFFICIENT_FEE_BALANCE']).toContain(r.json.error);
    }
    const left = await balance(alice, a.address);
    expect(left).toBe(start - BigInt(ok.length + sent) * (E18 / 5n + invokeFee));
    expect(left >= 0n).toBe(true);
  });

  it("the same key in two users' wallets: parallel transfers from the one account still take one nonce each", async () => {
    const { ec } = await import('starknet');
    const secretKey = `0x${Buffer.from(ec.starkCurve.utils.randomPrivateKey()).toString('hex')}`;
    const wa = (await alice.post('/api/wallets/import', { chain: 'b', name: `imp-${n++}`, secretKey, password: PASS })).json.wallet;
    const wb = (await bob.post('/api/wallets/import', { chain: 'b', name: `imp-${n++}`, secretKey, password: PASS })).json.wallet;
    expect(wa.address).toBe(wb.address);
    const sink = await newWallet(bob);
    await airdrop(alice, wa.id, 3);
    expect((await send(alice, wa.id, { amount: '0.01', recipientAddress: sink.address })).status).toBe(200);
    const start = await balance(alice, wa.address);
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) => send(i % 2 ? bob : alice, i % 2 ? wb.id : wa.id, { amount: '0.1', recipientAddress: sink.address })),
    );
    for (const r of results) expect([200, 409], JSON.stringify(r.json)).toContain(r.status);
    const ok = results.filter((r) => r.status === 200);
    const nonces = await Promise.all(ok.map(async (r) => (await alice.get(`/api/chainb/tx/${r.json.txHash}`)).json.transaction.nonce));
    expect(new Set(nonces).size).toBe(ok.length);
    expect(await balance(alice, wa.address)).toBe(start - BigInt(ok.length) * (E18 / 10n + fees.feeOf(fees.LOCAL_GAS_USE.invoke)));
  });
});
