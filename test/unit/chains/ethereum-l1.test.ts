import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bridgeRoutes } from '#lib/bridge/routes.ts';
import { STARKNET_CORE_CONTRACT } from '#lib/bridge/starkgate.ts';
import { encodeCall, words } from '#lib/chains/ethereum/abi.ts';
import { startEthereumL1, type EthereumL1 } from '#lib/local/ethereum-l1.ts';

/**
 * The embedded L1 (ganache in process): the contracts stand at the pinned mainnet addresses, and
 * the chain — balances, receipts, the core contract's message nonce — survives a restart on the
 * same data directory, where nothing is placed again.
 */
const dir = mkdtempSync(join(tmpdir(), 'shroud-l1-'));
let l1: EthereumL1 | undefined;
afterAll(async () => {
  await l1?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(l1!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}
const call = async (to: string, sig: string, args: (bigint | string)[] = []) => words(await rpc('eth_call', [{ to, data: encodeCall(sig, args) }, 'latest']));
const tokens = bridgeRoutes['ethereum-chainb'].tokens;

describe('the embedded Ethereum L1', () => {
  it('places the core contract, every StarkGate bridge and every bridged token at their mainnet addresses', async () => {
    l1 = await startEthereumL1(dir);
    expect(l1.placed).toBe(true);
    expect(BigInt(await rpc('eth_chainId', []))).toBe(1337n);
    expect(await rpc('eth_getCode', [STARKNET_CORE_CONTRACT, 'latest'])).not.toBe('0x');
    for (const [symbol, t] of Object.entries(tokens)) {
      expect(await rpc('eth_getCode', [t.l1Bridge, 'latest']), symbol).not.toBe('0x');
      // The bridge's immutables: the core contract, its L2 bridge, its token.
      expect((await call(t.l1Bridge, 'messagingContract()'))[0], symbol).toBe(BigInt(STARKNET_CORE_CONTRACT));
      expect((await call(t.l1Bridge, 'l2TokenBridge()'))[0], symbol).toBe(BigInt(t.l2Bridge));
      expect((await call(t.l1Bridge, 'bridgedToken()'))[0], symbol).toBe(BigInt(t.l1Token));
      if (symbol === 'ETH') continue;
      expect((await call(t.l1Token, 'decimals()'))[0], symbol).toBe(BigInt(t.decimals));
      const [, length, text] = await call(t.l1Token, 'symbol()');
      expect(Buffer.from(text!.toString(16).padStart(64, '0'), 'hex').subarray(0, Number(length)).toString('utf8')).toBe(symbol);
    }
  });

  it('keeps its chain across a restart without placing the contracts again', async () => {
    const eth = tokens.ETH!;
    const from = l1!.accounts[1]!;
    const amount = 10n ** 18n;
    const hash = await rpc('eth_sendTransaction', [
      { from, to: eth.l1Bridge, data: encodeCall('deposit(uint256,uint256)', [amount, 0x1234n]), value: `0x${(amount + 1n).toString(16)}`, gas: '0x7a120' },
    ]);
    expect((await rpc('eth_getTransactionReceipt', [hash])).status).toBe('0x1');
    const height = BigInt(await rpc('eth_blockNumber', []));
    await l1!.stop();

    l1 = await startEthereumL1(dir);
    expect(l1.placed).toBe(false);
    expect(BigInt(await rpc('eth_blockNumber', []))).toBe(height);
    expect((await rpc('eth_getTransactionReceipt', [hash])).status).toBe('0x1');
    expect(BigInt(await rpc('eth_getBalance', [eth.l1Bridge, 'latest']))).toBe(amount);
    expect((await call(STARKNET_CORE_CONTRACT, 'l1ToL2MessageNonce()'))[0]).toBe(1n);
  });
});
