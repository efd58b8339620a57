import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, clock } from '#lib/clock.ts';
import { encodeCall } from '#lib/chains/ethereum/abi.ts';
import type { FaultyEthereumRpc, L1Fault } from '#lib/chains/ethereum/faults.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { expectDocumented, PROPERTY_TIMEOUT, RUNS, SEED, type Answer } from './chaos-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

// The embedded Ethereum L1 (ganache) for this file: test/support/runtime.ts starts it when LOCAL_L1=1.
process.env.LOCAL_L1 = '1';

/**
 * Chaos as a property for Ethereum L1 → chain B deposits (StarkGate) under the L1's faults
 * (lib/chains/ethereum/faults.ts): a reorganization that removes the deposit's block before its
 * confirmations (mined again some blocks later, or never), a node that keeps answering the old
 * fork's receipt meanwhile, receipts served late. Each schedule: a record, its deposit sent on the
 * L1, attached by 1–3 concurrent requests, then rounds of a block passing and 1–3 relayer passes
 * side by side (driven here, the runtime's timer off). After every round: chain B holds the
 * credit only if the deposit's block is, at that moment, the canonical block at its height and
 * ETHEREUM_CONFIRMATIONS deep. At the end: credited exactly once when the record completed, never
 * when it failed (a deposit never mined again, after the confirmation window); the record
 * resolved; every answer documented. `npm test`: CHAOS_RUNS (default 8); `npm run chaos`: 1,000.
 */
let rt: TestRuntime;
let alice: HttpClient;
let l1: { url: string; accounts: string[] };
let watcher: FaultyEthereumRpc;
let balanceOf: typeof import('#lib/bridge/chain-b-credit.ts').balanceOf;
let l2Token: string;
let l1Bridge: string;
let signIn: () => Promise<void>;
let signedInAt = 0;
let n = 0;
const CONFIRMATIONS = 3n;
const FEE = 10n ** 14n;
const ETH_TOKEN = '0x0000000000000000000000000000000000455448';
const totals = { schedules: 0, requests: 0, faults: {} as Record<string, number>, ms: 0 };

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000', CHAIN_FAULTS: 'l1.reorg-blocks=3', ETHEREUM_CONFIRMATIONS: String(CONFIRMATIONS) }, undefined, {
    withoutJobs: ['bridge-relayer'],
  });
  l1 = rt.services.l1!;
  ({ balanceOf } = await import('#lib/bridge/chain-b-credit.ts'));
  ({ l2Token, l1Bridge } = (await import('#lib/bridge/routes.ts')).routeToken('ethereum-chainb', 'ETH')!);
  watcher = (await import('#lib/chains/ethereum/index.ts')).ethereumRpc() as FaultyEthereumRpc;
  alice = rt.client();
  const me = await signedInUser(alice);
  signIn = async () => {
    expect((await alice.post('/api/auth/login', { username: me.username, password: me.password })).status).toBe(200);
    signedInAt = clock.nowMs();
  };
  signedInAt = clock.nowMs();
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  if (process.env.CHAOS_REPORT) {
    const faults = Object.values(totals.faults).reduce((a, b) => a + b, 0);
    console.log(
      `chaos l1-deposit: ${totals.schedules} schedules, ${totals.requests} requests, ${faults} faults injected ${JSON.stringify(totals.faults)}, ${(totals.ms / 1000).toFixed(1)} s`,
    );
  }
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

const schedule = fc.record({
  fault: fc.constantFrom<L1Fault | 'none'>('none', 'reorg', 'stale-receipt', 'late-receipt'),
  // reorg-blocks or late-blocks of this deposit; one reorganized deposit in five is never mined again.
  blocks: fc.integer({ min: 1, max: 6 }),
  lost: fc.integer({ min: 0, max: 4 }).map((x) => x === 0),
  attaches: fc.integer({ min: 1, max: 3 }),
  passes: fc.integer({ min: 1, max: 3 }),
  amount: fc.integer({ min: 1, max: 50 }).map((x) => BigInt(x) * 10n ** 15n),
});

/** The credit is allowed only now: the deposit's receipt names a block that is the canonical one at its height, CONFIRMATIONS deep. */
async function creditAllowed(txHash: string): Promise<boolean> {
  const receipt = await watcher.getTransactionReceipt(txHash);
  if (!receipt) return false;
  const head = BigInt(await rpc('eth_blockNumber', []));
  return (await watcher.getBlockHash(receipt.blockNumber)) === receipt.blockHash && head - receipt.blockNumber + 1n >= CONFIRMATIONS;
}

describe('chaos: l1-deposit', () => {
  it(
    `${RUNS} schedules of reorganizations, stale and late receipts, concurrent attaches and relayers: credited once, only on the surviving fork`,
    async () => {
      const started = Date.now();
      const { relayOnce } = await import('#lib/bridge/relayer.ts');
      await fc.assert(
        fc.asyncProperty(schedule, async (s) => {
          watcher.clearInjected();
          advanceClock(61_000);
          if (clock.nowMs() - signedInAt > 86_400_000) await signIn();
          const dest = `0x0${(0xc4a05n + BigInt(n++)).toString(16).padStart(63, '5')}`;
          const l2Dest = `0x${BigInt(dest).toString(16).padStart(64, '0')}`;
          const answers: Answer[] = [];
          const record = await alice.post('/api/bridge/initiate', {
            bridgeType: 'ethereum-chainb',
            direction: 'deposit',
            token: 'ETH',
            amount: String(Number(s.amount) / 1e18),
            destAddress: dest,
          });
          answers.push({ status: record.status, json: record.json });
          expect(record.status, JSON.stringify(record.json)).toBe(200);
          const id: string = record.json.transaction.id;
          const txHash: string = await rpc('eth_sendTransaction', [
            {
              from: l1.accounts[2]!,
              to: l1Bridge,
              data: encodeCall('deposit(address,uint256,uint256)', [ETH_TOKEN, s.amount, dest]),
              value: hex(s.amount + FEE),
              gas: hex(500_000n),
            },
          ]);
          // The fault is this deposit's from the watcher's first read of its receipt.
          if (s.fault !== 'none') watcher.inject(s.fault, s.lost && s.fault !== 'late-receipt' ? 1_000_000 : s.blocks);
          const attached = await Promise.all(Array.from({ length: s.attaches }, () => alice.post(`/api/bridge/${id}/source-tx`, { txHash })));
          for (const a of attached) answers.push({ status: a.status, json: a.json });
          expect(attached.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);

          // Rounds: a block passes, relayers side by side; after each, a credit only on the surviving fork, deep enough.
          const status = async () => (await alice.get(`/api/bridge/status/${id}`)).json.transaction.status as string;
          let rounds = 0;
          for (; rounds < 30 && (await status()) === 'submitted'; rounds++) {
            await rpc('evm_mine', []);
            await Promise.all(Array.from({ length: s.passes }, () => relayOnce()));
            if ((await balanceOf(l2Token, l2Dest)) > 0n) expect(await creditAllowed(txHash), `round ${rounds}`).toBe(true);
          }
          const lostForGood = s.lost && (s.fault === 'reorg' || s.fault === 'stale-receipt');
          if (lostForGood) {
            // Never mined again: never credited; failed once the confirmation window passed.
            expect(await status()).toBe('submitted');
            advanceClock(31 * 60 * 1000);
            await relayOnce();
          } else await relayOnce();
          const final = await alice.get(`/api/bridge/status/${id}`);
          answers.push({ status: final.status, json: final.json });
          expect(final.json.transaction.status).toBe(lostForGood ? 'failed' : 'completed');
          // Exactly once: the amount when completed, nothing when failed; more passes change nothing.
          await Promise.all([relayOnce(), relayOnce()]);
          expect(await balanceOf(l2Token, l2Dest)).toBe(lostForGood ? 0n : s.amount);
          const { listOpenBridges } = await import('#lib/data/bridge-transfers.ts');
          expect((await listOpenBridges()).map((b) => b.id)).not.toContain(id);
          expectDocumented(answers, { 409: ['BRIDGE_STATE_CONFLICT'] });
          totals.schedules++;
          totals.requests += answers.length;
          if (s.fault !== 'none') totals.faults[s.fault] = (totals.faults[s.fault] ?? 0) + 1;
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      totals.ms += Date.now() - started;
    },
    PROPERTY_TIMEOUT,
  );
});
