import { beforeAll, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { encodeCall } from '#lib/chains/ethereum/abi.ts';
import { type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { ok, fails, settled } from './bridge-helpers.ts';
import { runtimeWithUsers } from './runtime-with-users.ts';

// The embedded Ethereum L1 (ganache) for this file only: test/support/runtime.ts starts it when LOCAL_L1=1.
process.env.LOCAL_L1 = '1';

// lib modules that read configuration at load: imported once the runtime has set it (beforeAll).
let balanceOf: typeof import('#lib/bridge/chain-b-credit.ts').balanceOf;
let readBridge: typeof import('#lib/data/bridge-transfers.ts').readBridge;
let routeToken: typeof import('#lib/bridge/routes.ts').routeToken;
let deliverEthereum: typeof import('#lib/bridge/ethereum-relay.ts').deliverEthereum;
let STARKNET_CORE_CONTRACT: string;

/**
 * Ethereum → chain B (StarkGate) end to end over HTTP: the caller sends the deposit on the
 * embedded L1 from one of its accounts (raw JSON-RPC eth_sendTransaction with ABI-encoded
 * calldata, as any wallet would), attaches the hash, and the relayer (on the runtime's timer)
 * checks the receipt, computes the L1→L2 message hash and mints on the local chain B ledger.
 */
let rt: TestRuntime;
let alice: HttpClient;
let bob: HttpClient;
let aliceId: string;
let l1: { url: string; accounts: string[] };
const DEST = '0x0' + 'e7e7'.padStart(63, '3');
const DEST64 = `0x${BigInt(DEST).toString(16).padStart(64, '0')}`;
const FEE = 10n ** 14n; // the L1→L2 message fee (wei), paid on top
const ETH_TOKEN = '0x0000000000000000000000000000000000455448';

const world = runtimeWithUsers({ RATE_LIMIT_MULTIPLIER: '50' }, ['alice', 'bob'], { fresh: true });
beforeAll(async () => {
  rt = world.rt;
  ({ balanceOf } = await import('#lib/bridge/chain-b-credit.ts'));
  ({ readBridge } = await import('#lib/data/bridge-transfers.ts'));
  ({ routeToken } = await import('#lib/bridge/routes.ts'));
  ({ deliverEthereum } = await import('#lib/bridge/ethereum-relay.ts'));
  ({ STARKNET_CORE_CONTRACT } = await import('#lib/bridge/starkgate.ts'));
  l1 = rt.services.l1!;
  alice = world.users.alice.client;
  bob = world.users.bob.client;
  aliceId = world.users.alice.user.id;
});

const deposit = (extra: Record<string, unknown> = {}) => ({
  bridgeType: 'ethereum-chainb',
  direction: 'deposit',
  token: 'ETH',
  amount: '0.25',
  destAddress: DEST,
  ...extra,
});

async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(l1.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
const hex = (n: bigint) => `0x${n.toString(16)}`;
/** eth_sendTransaction from an unlocked account of the L1; the mined transaction's hash (a reverted one too). */
const send = (from: string, to: string, data: string, value = 0n): Promise<string> =>
  rpc('eth_sendTransaction', [{ from, to, data, value: hex(value), gas: hex(500_000n) }]);
const receiptStatus = async (hash: string) => (await rpc('eth_getTransactionReceipt', [hash])).status as string;

describe('ETH through StarkGate', () => {
  it('initiate without walletId → instructions; the L1 deposit attached → completed, chain B credited exactly', async () => {
    const eth = routeToken('ethereum-chainb', 'ETH')!;
    const res = ok(await alice.post('/api/bridge/initiate', deposit()));
    expect(res.bridgeUrl).toBe('https://starkgate.starknet.io');
    expect(res.instructions.step1).toContain(eth.l1Bridge);
    expect(res.instructions.step1).toContain('250000000000000000');
    expect(res.transaction).toMatchObject({ status: 'pending', destAddress: DEST64, sourceTxHash: null });
    const amount = 25n * 10n ** 16n;
    const before = await balanceOf(eth.l2Token, DEST64);
    const l1Before = BigInt(await rpc('eth_getBalance', [eth.l1Bridge, 'latest']));

    const txHash = await send(l1.accounts[1]!, eth.l1Bridge, encodeCall('deposit(address,uint256,uint256)', [ETH_TOKEN, amount, DEST]), amount + FEE);
    expect(await receiptStatus(txHash)).toBe('0x1');
    expect(ok(await alice.post(`/api/bridge/${res.transaction.id}/source-tx`, { txHash })).transaction).toMatchObject({
      status: 'submitted',
      sourceTxHash: txHash,
    });
    const done = await settled(alice, res.transaction.id);
    expect(done.status).toBe('completed');
    expect(done.destTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balanceOf(eth.l2Token, DEST64)).toBe(before + amount);
    // The bridge holds the amount; the fee went to the core contract with the message.
    expect(BigInt(await rpc('eth_getBalance', [eth.l1Bridge, 'latest']))).toBe(l1Before + amount);

    // The record's message hash is the one the core contract registered for the message (its own keccak).
    const record = (await readBridge(aliceId, res.transaction.id))!;
    expect(record.history.map((h) => h.status)).toEqual(['pending', 'submitted', 'source_confirmed', 'completed']);
    expect(record.messageId).toMatch(/^0x[0-9a-f]+$/);
    const pending = BigInt(await rpc('eth_call', [{ to: STARKNET_CORE_CONTRACT, data: encodeCall('l1ToL2Messages(bytes32)', [record.messageId!]) }, 'latest']));
    expect(pending).toBe(FEE + 1n);

    // Delivering the same message again credits nothing (once per message hash).
    await deliverEthereum({ ...record, status: 'source_confirmed' });
    expect(await balanceOf(eth.l2Token, DEST64)).toBe(before + amount);

    // The same L1 transaction attached to another record: 409 CONFLICT.
    const other = ok(await bob.post('/api/bridge/initiate', deposit())).transaction;
    fails(await bob.post(`/api/bridge/${other.id}/source-tx`, { txHash }), 409, 'CONFLICT');
    fails(await bob.post(`/api/bridge/${other.id}/source-tx`, { txHash: txHash.toUpperCase().replace('0X', '0x') }), 409, 'CONFLICT');
    expect(ok(await bob.get(`/api/bridge/status/${other.id}`)).transaction.status).toBe('pending');
  });

  it('the legacy deposit(amount, l2Recipient) is accepted too', async () => {
    const eth = routeToken('ethereum-chainb', 'ETH')!;
    const t = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.000000000000000123' }))).transaction;
    const before = await balanceOf(eth.l2Token, DEST64);
    const txHash = await send(l1.accounts[1]!, eth.l1Bridge, encodeCall('deposit(uint256,uint256)', [123n, DEST]), 123n + FEE);
    ok(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash }));
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect(await balanceOf(eth.l2Token, DEST64)).toBe(before + 123n);
  });
});

describe("front-running (issue 36, 4): another user attaches the victim's deposit hash", () => {
  it('the thief gets 400 with the reason and nothing is reserved; the victim attaches it and is credited', async () => {
    const eth = routeToken('ethereum-chainb', 'ETH')!;
    const THIEF_DEST = DEST.replace('e7e7', 'c0c0');
    const victim = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.07' }))).transaction;
    const amount = 7n * 10n ** 16n;
    const before = await balanceOf(eth.l2Token, DEST64);
    const txHash = await send(l1.accounts[2]!, eth.l1Bridge, encodeCall('deposit(address,uint256,uint256)', [ETH_TOKEN, amount, DEST]), amount + FEE);

    // The thief's own record (its own destination): the hash names another recipient.
    const theirs = ok(await bob.post('/api/bridge/initiate', deposit({ amount: '0.07', destAddress: THIEF_DEST }))).transaction;
    fails(await bob.post(`/api/bridge/${theirs.id}/source-tx`, { txHash }), 400, 'INVALID_INPUT', /l2Recipient/);
    expect(ok(await bob.get(`/api/bridge/status/${theirs.id}`)).transaction).toMatchObject({ status: 'pending', sourceTxHash: null });

    expect(ok(await alice.post(`/api/bridge/${victim.id}/source-tx`, { txHash })).transaction).toMatchObject({ status: 'submitted', sourceTxHash: txHash });
    expect((await settled(alice, victim.id)).status).toBe('completed');
    expect(await balanceOf(eth.l2Token, DEST64)).toBe(before + amount);
    ok(await bob.post(`/api/bridge/${theirs.id}/cancel`));
  });
});

describe('ERC-20 through StarkGate (USDC)', () => {
  it('approve + deposit → completed with the 6-decimal amount credited; without approval the L1 transaction reverts → refused at source-tx', async () => {
    const usdc = routeToken('ethereum-chainb', 'USDC')!;
    const [minter, holder, noApproval] = [l1.accounts[0]!, l1.accounts[2]!, l1.accounts[3]!];
    const units = 12_500_000n; // 12.5 USDC
    expect(await receiptStatus(await send(minter, usdc.l1Token, encodeCall('mint(address,uint256)', [holder, 100_000_000n])))).toBe('0x1');
    expect(await receiptStatus(await send(minter, usdc.l1Token, encodeCall('mint(address,uint256)', [noApproval, 100_000_000n])))).toBe('0x1');

    const t = ok(await alice.post('/api/bridge/initiate', deposit({ token: 'USDC', amount: '12.5' }))).transaction;
    const before = await balanceOf(usdc.l2Token, DEST64);
    expect(await receiptStatus(await send(holder, usdc.l1Token, encodeCall('approve(address,uint256)', [usdc.l1Bridge, units])))).toBe('0x1');
    const txHash = await send(holder, usdc.l1Bridge, encodeCall('deposit(address,uint256,uint256)', [usdc.l1Token, units, DEST]), FEE);
    expect(await receiptStatus(txHash)).toBe('0x1');
    ok(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash }));
    expect((await settled(alice, t.id)).status).toBe('completed');
    expect(await balanceOf(usdc.l2Token, DEST64)).toBe(before + units);
    const held = BigInt(await rpc('eth_call', [{ to: usdc.l1Token, data: encodeCall('balanceOf(address)', [usdc.l1Bridge]) }, 'latest']));
    expect(held).toBeGreaterThanOrEqual(units);

    const u = ok(await alice.post('/api/bridge/initiate', deposit({ token: 'USDC', amount: '12.5' }))).transaction;
    const reverted = await send(noApproval, usdc.l1Bridge, encodeCall('deposit(address,uint256,uint256)', [usdc.l1Token, units, DEST]), FEE);
    expect(await receiptStatus(reverted)).toBe('0x0');
    fails(await alice.post(`/api/bridge/${u.id}/source-tx`, { txHash: reverted }), 400, 'INVALID_INPUT', /reverted on Ethereum/);
    ok(await alice.post(`/api/bridge/${u.id}/cancel`));
    expect(await balanceOf(usdc.l2Token, DEST64)).toBe(before + units);
  });
});

describe("deposits that are not the record's → refused at source-tx with the reason (400, nothing reserved), nothing credited", () => {
  const cases: [string, (eth: { l1Bridge: string }, usdc: { l1Bridge: string; l1Token: string }) => Promise<string>, RegExp][] = [
    [
      'a different amount',
      (eth) => send(l1.accounts[4]!, eth.l1Bridge, encodeCall('deposit(uint256,uint256)', [10n ** 17n, DEST]), 10n ** 17n + FEE),
      /smallest units/,
    ],
    [
      'a different recipient',
      (eth) =>
        send(l1.accounts[4]!, eth.l1Bridge, encodeCall('deposit(uint256,uint256)', [5n * 10n ** 16n, DEST.replace('e7e7', 'e7e8')]), 5n * 10n ** 16n + FEE),
      /l2Recipient/,
    ],
    [
      'a deposit that reverted (value below the amount)',
      (eth) => send(l1.accounts[4]!, eth.l1Bridge, encodeCall('deposit(uint256,uint256)', [5n * 10n ** 16n, DEST]), 10n ** 16n),
      /reverted on Ethereum/,
    ],
    ['a plain ETH transfer (no StarkGate Deposit)', (eth) => send(l1.accounts[4]!, l1.accounts[5]!, '0x', 5n * 10n ** 16n), /no StarkGate Deposit/],
  ];
  for (const [what, make, reason] of cases) {
    it(what, async () => {
      const eth = routeToken('ethereum-chainb', 'ETH')!;
      const usdc = routeToken('ethereum-chainb', 'USDC')!;
      const t = ok(await alice.post('/api/bridge/initiate', deposit({ amount: '0.05' }))).transaction;
      const before = await balanceOf(eth.l2Token, DEST64);
      const txHash = await make(eth, usdc);
      fails(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash }), 400, 'INVALID_INPUT', reason);
      expect(ok(await alice.get(`/api/bridge/status/${t.id}`)).transaction).toMatchObject({ status: 'pending', sourceTxHash: null });
      expect(await balanceOf(eth.l2Token, DEST64)).toBe(before);
      ok(await alice.post(`/api/bridge/${t.id}/cancel`));
    });
  }

  it('an ETH deposit attached to a USDC record: no Deposit from the USDC bridge', async () => {
    const eth = routeToken('ethereum-chainb', 'ETH')!;
    const t = ok(await alice.post('/api/bridge/initiate', deposit({ token: 'USDC', amount: '1' }))).transaction;
    const txHash = await send(l1.accounts[4]!, eth.l1Bridge, encodeCall('deposit(uint256,uint256)', [1_000_000n, DEST]), 1_000_000n + FEE);
    fails(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash }), 400, 'INVALID_INPUT', /no StarkGate Deposit/);
    ok(await alice.post(`/api/bridge/${t.id}/cancel`));
  });

  it('a hash the L1 does not know stays submitted within the confirm window, then fails', async () => {
    const t = ok(await alice.post('/api/bridge/initiate', deposit())).transaction;
    const unknown = `0x${'5a'.repeat(32)}`;
    ok(await alice.post(`/api/bridge/${t.id}/source-tx`, { txHash: unknown }));
    await rt.jobPasses('bridge-relayer', 3);
    expect(ok(await alice.get(`/api/bridge/status/${t.id}`)).transaction.status).toBe('submitted');
    advanceClock(31 * 60_000);
    expect((await settled(alice, t.id)).status).toBe('failed');
    expect((await readBridge(aliceId, t.id))!.failureReason).toMatch(/not found on Ethereum/);
    // The failed record released the hash: another record may take it.
    const next = ok(await alice.post('/api/bridge/initiate', deposit())).transaction;
    expect(ok(await alice.post(`/api/bridge/${next.id}/source-tx`, { txHash: unknown })).transaction.status).toBe('submitted');
  });
});

describe('routes', () => {
  it('withdraw to Ethereum is UNSUPPORTED_ROUTE; walletId on the Ethereum route is INVALID_INPUT', async () => {
    fails(await alice.post('/api/bridge/initiate', deposit({ direction: 'withdraw', destAddress: l1.accounts[1] })), 400, 'UNSUPPORTED_ROUTE');
    fails(await alice.post('/api/bridge/initiate', deposit({ walletId: '00000000-0000-4000-8000-000000000000' })), 400, 'INVALID_INPUT');
  });
});
