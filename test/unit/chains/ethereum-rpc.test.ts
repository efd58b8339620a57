import { describe, expect, it } from 'vitest';
import { constants } from 'starknet';
import { RpcChainB } from '#lib/chains/chain-b/rpc-chain.ts';
import { ChainBUnavailable } from '#lib/chains/chain-b/port.ts';
import { addressOf, bytes32String, encodeCall, eventTopic, functionSelector, uintArrayAt, words } from '#lib/chains/ethereum/abi.ts';
import { readEthereumConfig } from '#lib/chains/ethereum/config.ts';

/**
 * The Ethereum side's small parts: the ABI helpers against known values, the configuration's
 * checks, and chain B's `starknet_getMessagesStatus` through the rpc adapter (starknet.js) on an
 * answer in the shape of the Starknet JSON-RPC 0.10 spec (no node's recorded answer was at hand).
 */
describe('ABI helpers', () => {
  it('selectors and topics are keccak-256 of the signatures (known values)', () => {
    expect(functionSelector('transfer(address,uint256)')).toBe('0xa9059cbb');
    expect(functionSelector('approve(address,uint256)')).toBe('0x095ea7b3');
    expect(eventTopic('Transfer(address,address,uint256)')).toBe('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
    // The Starknet core contract's LogMessageToL2, as indexers match it on mainnet.
    expect(eventTopic('LogMessageToL2(address,uint256,uint256,uint256[],uint256,uint256)')).toBe(
      '0xdb80dd488acf86d17c747445b0eabb5d57c541d3bd7b6b87af987858e5066b2b',
    );
  });

  it('encodes static arguments as words and decodes arrays and addresses', () => {
    expect(encodeCall('transfer(address,uint256)', ['0x00000000000000000000000000000000000000ff', 1n])).toBe(
      `0xa9059cbb${'ff'.padStart(64, '0')}${'1'.padStart(64, '0')}`,
    );
    expect(() => encodeCall('f(uint256)', [-1n])).toThrow(RangeError);
    expect(bytes32String('USDC')).toBe(BigInt(`0x55534443${'0'.repeat(56)}`));
    const data = `0x${[0x40n, 9n, 2n, 7n, 8n].map((x) => x.toString(16).padStart(64, '0')).join('')}`;
    expect(uintArrayAt(words(data), 0)).toEqual([7n, 8n]);
    expect(() => uintArrayAt(words(`0x${0x40n.toString(16).padStart(64, '0')}`), 0)).toThrow(RangeError);
    expect(addressOf(`0x${'00'.repeat(12)}${'ab'.repeat(20)}`)).toBe(`0x${'ab'.repeat(20)}`);
    expect(addressOf(`0x01${'00'.repeat(11)}${'ab'.repeat(20)}`)).toBeUndefined();
  });
});

describe('Ethereum configuration', () => {
  it('12 confirmations by default; a bad value stops the start', () => {
    expect(readEthereumConfig({})).toEqual({ ETHEREUM_CONFIRMATIONS: 12, ETHEREUM_LOCAL: false });
    expect(readEthereumConfig({ ETHEREUM_RPC_URL: 'https://l1.example/rpc', ETHEREUM_CONFIRMATIONS: '3', ETHEREUM_LOCAL: '1' })).toEqual({
      ETHEREUM_RPC_URL: 'https://l1.example/rpc',
      ETHEREUM_CONFIRMATIONS: 3,
      ETHEREUM_LOCAL: true,
    });
    expect(() => readEthereumConfig({ ETHEREUM_CONFIRMATIONS: '0' })).toThrow(/ETHEREUM_CONFIRMATIONS/);
    expect(() => readEthereumConfig({ ETHEREUM_CONFIRMATIONS: 'twelve' })).toThrow(/ETHEREUM_CONFIRMATIONS/);
    expect(() => readEthereumConfig({ ETHEREUM_RPC_URL: 'not a url' })).toThrow(/ETHEREUM_RPC_URL/);
  });
});

describe('chain B rpc adapter: starknet_getMessagesStatus', () => {
  const L1_TX = '0x1eb878ff2cfd614042fb4d9848f82072bba0d3101da9cf13185f4990d0ae5709';
  function node(answer: (params: unknown) => { result?: unknown; error?: { code: number; message: string } }) {
    const requests: { method: string; params: unknown }[] = [];
    const fetch = (async (_url: string, init: { body: string }) => {
      const { id, method, params } = JSON.parse(init.body) as { id: number; method: string; params: unknown };
      requests.push({ method, params });
      const out =
        method === 'starknet_specVersion'
          ? { result: '0.10.0' }
          : method === 'starknet_getMessagesStatus'
            ? answer(params)
            : { error: { code: -32601, message: 'not faked' } };
      return new Response(JSON.stringify({ jsonrpc: '2.0', id, ...out }), { headers: { 'content-type': 'application/json' } });
    }) as unknown as typeof globalThis.fetch;
    return { chain: new RpcChainB({ rpcUrl: 'http://node.invalid/rpc', chainId: constants.StarknetChainId.SN_SEPOLIA, fetch }), requests };
  }

  it('lists the L1_HANDLER transactions of the L1 transaction with their status', async () => {
    const { chain, requests } = node(() => ({
      result: [
        {
          transaction_hash: '0x67d959200d65d4ad293aa4b0da21bb050a1f669bce37d215c6edbf041269c07',
          finality_status: 'ACCEPTED_ON_L2',
          execution_status: 'SUCCEEDED',
        },
        { transaction_hash: '0x5', finality_status: 'ACCEPTED_ON_L1', execution_status: 'REVERTED', failure_reason: 'u256_sub Overflow' },
      ],
    }));
    expect(await chain.l1MessagesStatus(L1_TX)).toEqual([
      { transactionHash: '0x067d959200d65d4ad293aa4b0da21bb050a1f669bce37d215c6edbf041269c07', finalityStatus: 'ACCEPTED_ON_L2', executionStatus: 'SUCCEEDED' },
      { transactionHash: `0x${'5'.padStart(64, '0')}`, finalityStatus: 'ACCEPTED_ON_L1', executionStatus: 'REVERTED', failureReason: 'u256_sub Overflow' },
    ]);
    const sent = requests.find((r) => r.method === 'starknet_getMessagesStatus')!;
    expect(JSON.stringify(sent.params)).toContain(L1_TX.slice(2));
  });

  it('an L1 transaction the node has not seen is [] (wait); a node failure is ChainBUnavailable', async () => {
    expect(await node(() => ({ error: { code: 29, message: 'Transaction hash not found' } })).chain.l1MessagesStatus(L1_TX)).toEqual([]);
    await expect(node(() => ({ error: { code: -32603, message: 'Internal error' } })).chain.l1MessagesStatus(L1_TX)).rejects.toBeInstanceOf(ChainBUnavailable);
  });
});
