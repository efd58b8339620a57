import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { encodeCall } from '#lib/chains/ethereum/abi.ts';
import type { FaultyEthereumRpc } from '#lib/chains/ethereum/faults.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { ok, settled } from './bridge-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

// The embedded Ethereum L1 (ganache) for this file: test/support/runtime.ts starts it when LOCAL_L1=1.
process.env.LOCAL_L1 = '1';

/**
 * Ethereum → chain B deposits (StarkGate) against the L1 as mainnet behaves (lib/chains/ethereum/faults.ts,
 * CHAIN_FAULTS=l1.…; issue 36): a reorganization removes the deposit's block before its
 * confirmations (its receipt gone, or still answered from the old fork by a node behind), and
 * receipts served late. Each deposit is credited on chain B once, and only on a block that is
 * still canonical and deep enough; one never mined again is never credited, and fails after the
 * confirmation window. The relayer runs on the runtime's timer (each pass mines a block here).
 */
let rt: TestRuntime;
let alice: HttpClient;
let l1: { url: string; accounts: string[] };
let watcher: FaultyEthereumRpc;
let balanceOf: typeof import('#lib/bridge/chain-b-credit.ts').balanceOf;
let l2Token: string;
let l1Bridge: string;
let n = 0;
const FEE = 10n ** 14n;
const ETH_TOKEN = '0x0000000000000000000000000000000000455448';
const AMOUNT = 25n * 10n ** 16n;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '50', CHAIN_FAULTS: 'l1.reorg-blocks=4,l1.late-blocks=3', ETHEREUM_CONFIRMATIONS: '3' });
  l1 = rt.services.l1!;
  ({ balanceOf } = await import('#lib/bridge/chain-b-credit.ts'));
  const eth = (await import('#lib/bridge/routes.ts')).routeToken('ethereum-chainb', 'ETH')!;
  ({ l2Token, l1Bridge } = eth);
  watcher = (await import('#lib/chains/ethereum/index.ts')).ethereumRpc() as FaultyEthereumRpc;
  expect(watcher.options).toMatchObject({ reorgBlocks: 4, lateBlocks: 3 });
  alice = rt.client();
  await signedInUser(alice);
}, 120_000);
afterAll(async () => rt?.stop());
beforeEach(() => {
  watcher.clearInjected();
  advanceClock(61_000);
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
const hex = (x: bigint) => `0x${x.toString(16)}`;

/** A record, its deposit sent on the L1 (straight to the node, as a wallet would) and attached; the record's id, tx hash and recipient. */
async function depositAttached() {
  const dest = `0x0${(0xe7e700n + BigInt(n++)).toString(16).padStart(63, '4')}`;
  const r = ok(
    await alice.post('/api/bridge/initiate', { bridgeType: 'ethereum-chainb', direction: 'deposit', token: 'ETH', amount: '0.25', destAddress: dest }),
  );
  const txHash: string = await rpc('eth_sendTransaction', [
    {
      from: l1.accounts[2]!,
      to: l1Bridge,
      data: encodeCall('deposit(address,uint256,uint256)', [ETH_TOKEN, AMOUNT, dest]),
      value: hex(AMOUNT + FEE),
      gas: hex(500_000n),
    },
  ]);
  expect((await rpc('eth_getTransactionReceipt', [txHash])).status).toBe('0x1');
  const attached = ok(await alice.post(`/api/bridge/${r.transaction.id}/source-tx`, { txHash })).transaction;
  expect(attached.status).toBe('submitted');
  return { id: r.transaction.id as string, txHash, dest: `0x${BigInt(dest).toString(16).padStart(64, '0')}` };
}
const head = async () => BigInt(await rpc('eth_blockNumber', []));
/** `n` relayer passes that begin from now (each mines an L1 block here). */
const passes = (n: number) => rt.jobPasses('bridge-relayer', n);

describe('Ethereum → chain B deposits under L1 faults', () => {
  it('its block reorganized away and a node behind still answers the old receipt: never credited while it is not on the chain; failed after the window', async () => {
    watcher.inject('stale-receipt', 1_000_000); // never mined again within this test
    const d = await depositAttached();
    const fate = watcher.fateOf(d.txHash)!;
    expect(fate.fault).toBe('stale-receipt');
    // Relayer passes (each mines a block) until the old receipt is far deeper than 3 confirmations.
    const mined = (fate as { height: bigint }).height;
    const status = async () => ok(await alice.get(`/api/bridge/status/${d.id}`)).transaction.status as string;
    for (let i = 0; i < 40 && (await head()) < mined + 6n && (await status()) === 'submitted'; i++) await passes(1);
    await passes(2);
    expect(await status()).toBe('submitted');
    expect(await balanceOf(l2Token, d.dest)).toBe(0n);
    expect(await head()).toBeGreaterThanOrEqual(mined + 6n);
    // Never seen on the canonical chain within the confirmation window: failed, nothing credited.
    advanceClock(31 * 60 * 1000);
    expect((await settled(alice, d.id)).status).toBe('failed');
    expect(await balanceOf(l2Token, d.dest)).toBe(0n);
  });

  for (const fault of ['reorg', 'stale-receipt', 'late-receipt'] as const) {
    it(`${fault}: credited once, on its block deep enough on the canonical chain`, async () => {
      watcher.inject(fault);
      const d = await depositAttached();
      const fate = watcher.fateOf(d.txHash)!;
      expect(fate.fault).toBe(fault);
      const done = await settled(alice, d.id);
      expect(done.status).toBe('completed');
      expect(await balanceOf(l2Token, d.dest)).toBe(AMOUNT);
      // Where the watcher now sees it: the block it was mined in again (a reorg), at least 3 deep.
      const receipt = await watcher.getTransactionReceipt(d.txHash);
      if (fault !== 'late-receipt') expect(receipt!.blockNumber).toBe((fate as { minedAgainAt: bigint }).minedAgainAt);
      expect(await watcher.getBlockHash(receipt!.blockNumber)).toBe(receipt!.blockHash);
      expect(await head()).toBeGreaterThanOrEqual(receipt!.blockNumber + 2n);
      // The relayer's later passes credit nothing more.
      await passes(2);
      expect(await balanceOf(l2Token, d.dest)).toBe(AMOUNT);
    });
  }
});
