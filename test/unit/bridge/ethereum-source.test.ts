import { describe, expect, it } from 'vitest';
import { constants } from 'starknet';
import { l1HandlerOutcome } from '#lib/bridge/ethereum-relay.ts';
import { checkEthereumDeposit, DEPOSIT_TOPIC, LOG_MESSAGE_TO_L2_TOPIC } from '#lib/bridge/ethereum-source.ts';
import { routeToken } from '#lib/bridge/routes.ts';
import { depositL1HandlerTxHash } from '#lib/bridge/starkgate.ts';
import { EthereumRpc, EthereumUnavailable } from '#lib/chains/ethereum/rpc.ts';
import fixture from '../../fixtures/ethereum/starkgate-deposits.json' with { type: 'json' };

/**
 * The StarkGate watcher's check, offline, against recorded L1 answers: two deposits (ETH, USDC)
 * recorded from the embedded L1 (ganache running lib/chains/ethereum/contracts at the mainnet
 * addresses; test/fixtures/ethereum/record-deposits.ts) — not mainnet receipts: none was at hand.
 * The message hash is checked against the one the core contract computed in the EVM.
 */
type Receipt = (typeof fixture)['ETH']['eth_getTransactionReceipt'];
const eth = routeToken('ethereum-chainb', 'ETH')!;
const usdc = routeToken('ethereum-chainb', 'USDC')!;

/** A node with these answers; the canonical block at the receipt's height has the receipt's block hash unless `canonical` says another. */
function node(receipt: Receipt | null, head = fixture.eth_blockNumber, canonical?: string) {
  const calls: string[] = [];
  const fetch = (async (_url: string, init: { body: string }) => {
    const { id, method, params } = JSON.parse(init.body) as { id: number; method: string; params: unknown[] };
    calls.push(method);
    const block = {
      number: params?.[0],
      hash: canonical ?? receipt?.blockHash ?? `0x${'ab'.repeat(32)}`,
      parentHash: `0x${'00'.repeat(32)}`,
      transactions: [],
    };
    const answers: Record<string, unknown> = {
      eth_getTransactionReceipt: receipt,
      eth_blockNumber: head,
      eth_chainId: fixture.eth_chainId,
      eth_getTransactionByHash: fixture.ETH.eth_getTransactionByHash,
      eth_getBlockByNumber: block,
    };
    const result = answers[method];
    return new Response(
      JSON.stringify(result === undefined ? { jsonrpc: '2.0', id, error: { code: -32601, message: 'not faked' } } : { jsonrpc: '2.0', id, result }),
    );
  }) as unknown as typeof globalThis.fetch;
  return { rpc: new EthereumRpc({ url: 'http://l1.invalid', fetch }), calls };
}
const clone = (r: Receipt): Receipt => JSON.parse(JSON.stringify(r));
const expectFor = (f: typeof fixture.ETH) => ({ amount: BigInt(f.amount), l2Recipient: f.l2Recipient });

describe('StarkGate deposit check (recorded receipts)', () => {
  it("an ETH deposit: confirmed, the message hash equals the core contract's", async () => {
    const { rpc } = node(fixture.ETH.eth_getTransactionReceipt);
    const out = await checkEthereumDeposit(rpc, fixture.ETH.txHash, eth, expectFor(fixture.ETH), 1);
    expect(out).toEqual({
      ok: true,
      deposit: {
        messageHash: expect.any(String),
        depositor: fixture.ETH.depositor,
        nonce: expect.any(BigInt),
        fee: 10n ** 14n,
        blockNumber: BigInt(fixture.ETH.eth_getTransactionReceipt.blockNumber),
      },
    });
    if (!out.ok) return;
    expect(BigInt(out.deposit.messageHash)).toBe(BigInt(fixture.ETH.coreContractMessageHash));
  });

  it('a USDC deposit (approve, transferFrom): the same, with its own nonce', async () => {
    const { rpc } = node(fixture.USDC.eth_getTransactionReceipt);
    const out = await checkEthereumDeposit(rpc, fixture.USDC.txHash, usdc, expectFor(fixture.USDC), 1);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(BigInt(out.deposit.messageHash)).toBe(BigInt(fixture.USDC.coreContractMessageHash));
    expect(out.deposit.nonce).toBe(1n);
  });

  it('waits for confirmations: not deep enough is `waiting`, then ok', async () => {
    const mined = BigInt(fixture.ETH.eth_getTransactionReceipt.blockNumber);
    const shallow = node(fixture.ETH.eth_getTransactionReceipt, `0x${(mined + 10n).toString(16)}`);
    expect(await checkEthereumDeposit(shallow.rpc, fixture.ETH.txHash, eth, expectFor(fixture.ETH), 12)).toEqual({
      ok: false,
      missing: false,
      waiting: true,
      confirmations: 11n,
    });
    const deep = node(fixture.ETH.eth_getTransactionReceipt, `0x${(mined + 11n).toString(16)}`);
    expect((await checkEthereumDeposit(deep.rpc, fixture.ETH.txHash, eth, expectFor(fixture.ETH), 12)).ok).toBe(true);
  });

  it('unknown → missing; reverted, wrong amount, wrong recipient, wrong bridge, no message → the reason', async () => {
    const check = (r: Receipt | null, route = eth, expected = expectFor(fixture.ETH)) =>
      checkEthereumDeposit(node(r).rpc, fixture.ETH.txHash, route, expected, 1);
    expect(await check(null)).toEqual({ ok: false, missing: true });

    const reverted = clone(fixture.ETH.eth_getTransactionReceipt);
    reverted.status = '0x0';
    expect(await check(reverted)).toMatchObject({ ok: false, reason: expect.stringMatching(/reverted on Ethereum/) });
    expect(await check(fixture.ETH.eth_getTransactionReceipt, eth, { ...expectFor(fixture.ETH), amount: 1n })).toMatchObject({
      reason: expect.stringMatching(/9000000000000000 smallest units, the record expects 1/),
    });
    expect(await check(fixture.ETH.eth_getTransactionReceipt, eth, { ...expectFor(fixture.ETH), l2Recipient: '0x1234' })).toMatchObject({
      reason: expect.stringMatching(/l2Recipient/),
    });
    // An ETH deposit offered as a USDC one: no Deposit from the USDC bridge.
    expect(await check(fixture.ETH.eth_getTransactionReceipt, usdc)).toMatchObject({ reason: expect.stringMatching(/no StarkGate Deposit/) });

    // The Deposit alone, without the core contract's message (a bridge impostor emitting the event): refused.
    const noMessage = clone(fixture.ETH.eth_getTransactionReceipt);
    noMessage.logs = noMessage.logs.filter((l) => l.topics[0] !== LOG_MESSAGE_TO_L2_TOPIC);
    expect(await check(noMessage)).toMatchObject({ reason: expect.stringMatching(/no L1→L2 message/) });
    // A message whose nonce is not the deposit's.
    const otherNonce = clone(fixture.ETH.eth_getTransactionReceipt);
    const msg = otherNonce.logs.find((l) => l.topics[0] === LOG_MESSAGE_TO_L2_TOPIC)!;
    msg.data = msg.data.slice(0, 2 + 64) + '7'.padStart(64, '0') + msg.data.slice(2 + 128);
    expect(await check(otherNonce)).toMatchObject({ reason: expect.stringMatching(/no L1→L2 message/) });
    // A Deposit event from another address than the route's bridge is not the bridge's.
    const elsewhere = clone(fixture.ETH.eth_getTransactionReceipt);
    for (const l of elsewhere.logs) if (l.topics[0] === DEPOSIT_TOPIC) l.address = '0x000000000000000000000000000000000000dead';
    expect(await check(elsewhere)).toMatchObject({ reason: expect.stringMatching(/no StarkGate Deposit/) });
  });

  it("a receipt for a block later reorganized (a node behind still answers the old fork's): not confirmed, however deep the new head", async () => {
    const mined = BigInt(fixture.ETH.eth_getTransactionReceipt.blockNumber);
    const deep = `0x${(mined + 40n).toString(16)}`;
    const reorged = node(fixture.ETH.eth_getTransactionReceipt, deep, `0x${'5e'.repeat(32)}`);
    expect(await checkEthereumDeposit(reorged.rpc, fixture.ETH.txHash, eth, expectFor(fixture.ETH), 12)).toEqual({ ok: false, missing: true });
    expect(reorged.calls).toEqual(['eth_getTransactionReceipt', 'eth_blockNumber', 'eth_getBlockByNumber']);
    // The same receipt while its block is the canonical one at that height: confirmed.
    expect((await checkEthereumDeposit(node(fixture.ETH.eth_getTransactionReceipt, deep).rpc, fixture.ETH.txHash, eth, expectFor(fixture.ETH), 12)).ok).toBe(
      true,
    );
  });

  it('a late receipt (the transaction mined, its receipt not served yet): missing, the relayer waits', async () => {
    const { rpc } = node(null);
    expect((await rpc.getTransactionByHash(fixture.ETH.txHash))?.blockNumber).toBe(BigInt(fixture.ETH.eth_getTransactionReceipt.blockNumber));
    expect(await checkEthereumDeposit(rpc, fixture.ETH.txHash, eth, expectFor(fixture.ETH), 1)).toEqual({ ok: false, missing: true });
  });

  it('the client decodes the recorded transaction and chain id', async () => {
    const { rpc } = node(fixture.ETH.eth_getTransactionReceipt);
    expect(await rpc.chainId()).toBe(1337n);
    expect(await rpc.getTransactionByHash(fixture.ETH.txHash)).toEqual({
      hash: fixture.ETH.txHash,
      from: fixture.ETH.depositor,
      to: eth.l1Bridge.toLowerCase(),
      value: BigInt(fixture.ETH.amount) + 10n ** 14n,
      input: fixture.ETH.eth_getTransactionByHash.input,
      blockNumber: BigInt(fixture.ETH.eth_getTransactionReceipt.blockNumber),
    });
  });

  it('an unreachable or failing node is EthereumUnavailable (the relayer retries)', async () => {
    const down = new EthereumRpc({
      url: 'http://l1.invalid',
      fetch: (async () => {
        throw new TypeError('fetch failed');
      }) as unknown as typeof fetch,
    });
    await expect(checkEthereumDeposit(down, fixture.ETH.txHash, eth, expectFor(fixture.ETH), 1)).rejects.toBeInstanceOf(EthereumUnavailable);
    const http500 = new EthereumRpc({ url: 'http://l1.invalid', fetch: (async () => new Response('oops', { status: 500 })) as unknown as typeof fetch });
    await expect(http500.blockNumber()).rejects.toThrow(/HTTP 500/);
    const rpcError = new EthereumRpc({
      url: 'http://l1.invalid',
      fetch: (async () =>
        new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'limit exceeded' } }))) as unknown as typeof fetch,
    });
    await expect(rpcError.getTransactionReceipt(fixture.ETH.txHash)).rejects.toThrow(/limit exceeded/);
  });
});

describe("delivery on a real chain B: the deposit's L1_HANDLER transaction in starknet_getMessagesStatus", () => {
  it('completes on its own entry accepted and SUCCEEDED; fails on REVERTED; waits otherwise', async () => {
    const { rpc } = node(fixture.ETH.eth_getTransactionReceipt);
    const out = await checkEthereumDeposit(rpc, fixture.ETH.txHash, eth, expectFor(fixture.ETH), 1);
    if (!out.ok) throw new Error('fixture deposit refused');
    const record = { l2Recipient: fixture.ETH.l2Recipient, amount: BigInt(fixture.ETH.amount) };
    const SN_MAIN = constants.StarknetChainId.SN_MAIN;
    const handler = depositL1HandlerTxHash(
      { l1Bridge: eth.l1Bridge, l2Bridge: eth.l2Bridge, l1Token: eth.l1Token, depositor: out.deposit.depositor, ...record, l1Nonce: out.deposit.nonce },
      SN_MAIN,
    );
    const other = { transactionHash: '0x5', finalityStatus: 'ACCEPTED_ON_L2', executionStatus: 'SUCCEEDED' as const };
    const mine = (finalityStatus: string, executionStatus: 'SUCCEEDED' | 'REVERTED' | null, failureReason?: string) => ({
      transactionHash: handler,
      finalityStatus,
      executionStatus,
      ...(failureReason ? { failureReason } : {}),
    });

    expect(l1HandlerOutcome(eth, record, out.deposit, [], SN_MAIN)).toEqual({ state: 'waiting' });
    expect(l1HandlerOutcome(eth, record, out.deposit, [other], SN_MAIN)).toEqual({ state: 'waiting' });
    expect(l1HandlerOutcome(eth, record, out.deposit, [other, mine('RECEIVED', null)], SN_MAIN)).toEqual({ state: 'waiting' });
    expect(l1HandlerOutcome(eth, record, out.deposit, [other, mine('ACCEPTED_ON_L2', 'SUCCEEDED')], SN_MAIN)).toEqual({ state: 'completed', txHash: handler });
    expect(l1HandlerOutcome(eth, record, out.deposit, [mine('ACCEPTED_ON_L1', 'REVERTED', 'u256_sub Overflow')], SN_MAIN)).toEqual({
      state: 'failed',
      reason: expect.stringMatching(/failed on chain B: u256_sub Overflow/),
    });
    // The same deposit on another chain B network is another transaction: not this record's.
    expect(l1HandlerOutcome(eth, record, out.deposit, [mine('ACCEPTED_ON_L2', 'SUCCEEDED')], constants.StarknetChainId.SN_SEPOLIA)).toEqual({
      state: 'waiting',
    });
  });
});
