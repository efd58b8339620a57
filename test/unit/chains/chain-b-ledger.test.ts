import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constants, hash } from 'starknet';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.ts';

/** The local chain B ledger against DynamoDB Local: mints, balances, transactions. */
let rt: TestRuntime;
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let ledgerMod: typeof import('#lib/chains/chain-b/ledger.ts');

beforeAll(async () => {
  rt = await startTestRuntime();
  chainb = await import('#lib/chains/chain-b/index.ts');
  ledgerMod = await import('#lib/chains/chain-b/ledger.ts');
});
afterAll(async () => {
  await rt?.stop();
});

const addr = () => `0x${(BigInt(`0x${crypto.randomUUID().replace(/-/g, '')}`) << 100n).toString(16).padStart(64, '0')}`;
const TRANSFER_KEY = hash.getSelectorFromName('Transfer');

describe('bridgeMint and balanceOf', () => {
  it('credits exactly once per message id and answers the first hash again', async () => {
    const to = addr();
    const token = chainb.ETH.address;
    const amount = 123_456_789_012_345_678_901_234_567_890_123_456_789_012n; // 48 digits: more than a DynamoDB number holds
    const messageId = `0x${'ab'.repeat(32)}-${to}`;
    const first = await chainb.bridgeMint({ token, to, amount, messageId });
    expect(first.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chainb.balanceOf(token, to)).toBe(amount);
    const again = await Promise.all([1, 2, 3].map(() => chainb.bridgeMint({ token, to, amount: amount + 1n, messageId })));
    for (const a of again) expect(a.txHash).toBe(first.txHash);
    expect(await chainb.balanceOf(token, to)).toBe(amount);
    const tx = await chainb.localLedger().getTransaction(first.txHash);
    expect(tx).toMatchObject({ type: 'L1_HANDLER', executionStatus: 'SUCCEEDED', messageId });
    expect(tx!.events).toEqual([
      { fromAddress: token, keys: [TRANSFER_KEY, '0x0', `0x${BigInt(to).toString(16)}`], data: [`0x${(amount % 2n ** 128n).toString(16)}`, `0x${(amount / 2n ** 128n).toString(16)}`] },
    ]);
  });

  it('parallel mints of distinct messages to one holder all land', async () => {
    const to = addr();
    const token = addr(); // a bridged token at its own address
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => chainb.bridgeMint({ token, to, amount: 10n ** 30n + BigInt(i), messageId: `m-${to}-${i}`, symbol: 'USDC', decimals: 6 })),
    );
    expect(await chainb.balanceOf(token, to)).toBe(8n * 10n ** 30n + 28n);
    expect(await chainb.localLedger().token(token)).toMatchObject({ symbol: 'USDC', decimals: 6 });
  });

  it('refuses what a mint cannot be', async () => {
    await expect(chainb.bridgeMint({ token: chainb.STRK.address, to: '0x0', amount: 1n, messageId: 'x1' })).rejects.toBeInstanceOf(RangeError);
    await expect(chainb.bridgeMint({ token: chainb.STRK.address, to: addr(), amount: 0n, messageId: 'x2' })).rejects.toBeInstanceOf(RangeError);
    expect(ledgerMod.SEQUENCER_ADDRESS).toMatch(/^0x0/);
    expect(constants.StarknetChainId.SN_SEPOLIA).toBeTruthy();
  });
});
