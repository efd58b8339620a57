import { describe, expect, it } from 'vitest';
import { constants, ec, hash } from 'starknet';
import { RpcChainB, revertReasonOf } from '#lib/chains/chain-b/rpc-chain.ts';
import { accountAddress, deployAccountHash, invokeHash, OZ_ACCOUNT_CLASS_HASH, publicKeyOf, verifyStarkSignature } from '#lib/chains/chain-b/account.ts';
import { transferCall } from '#lib/chains/chain-b/tokens.ts';
import { STRK } from '#lib/chains/chain-b/tokens.ts';
import type { SignedInvoke } from '#lib/chains/chain-b/port.ts';
import { settleChainB } from '#lib/chains/chain-b/settle.ts';

/**
 * The chain B rpc adapter, offline: starknet.js (RpcProvider + Account) builds, estimates and
 * signs the real DEPLOY_ACCOUNT and INVOKE v3; a fake JSON-RPC transport records every request
 * and replays a node's answers (shapes as a Starknet 0.10 node returns them). The transactions
 * it sends are checked down to their hash and signature.
 */
const PRIVATE_KEY = '0x0139fe4d6f02e666e86a6f58e65060f115cd3c185bd9e98bd829636931458f79';
const PUBLIC_KEY = publicKeyOf(PRIVATE_KEY);
const ADDRESS = accountAddress(PUBLIC_KEY);
const RECIPIENT = '0x0517a1b0c3d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3';
const SN_SEPOLIA = constants.StarknetChainId.SN_SEPOLIA;

type Req = { method: string; params: any };
type Answer = (params: any) => unknown;
class RpcFailure {
  constructor(
    readonly code: number,
    readonly message: string,
    readonly data?: unknown,
  ) {}
}

const estimate = {
  l1_gas_consumed: '0x0',
  l1_gas_price: '0x1b48eb57e000',
  l2_gas_consumed: '0xdbba0',
  l2_gas_price: '0x1dcd65000',
  l1_data_gas_consumed: '0x80',
  l1_data_gas_price: '0x3b9aca00',
  overall_fee: '0x61c58bfcd9be000',
  unit: 'FRI',
};
const receipt = (hash: string, extra: Record<string, unknown> = {}) => ({
  type: 'INVOKE',
  transaction_hash: hash,
  actual_fee: { amount: '0x1aa535d3d0c000', unit: 'FRI' },
  execution_status: 'SUCCEEDED',
  finality_status: 'ACCEPTED_ON_L2',
  block_hash: '0x1',
  block_number: 812_345,
  messages_sent: [],
  events: [],
  execution_resources: { l1_gas: 0, l1_data_gas: 128, l2_gas: 900_000 },
  ...extra,
});

/** What a node computes for a received INVOKE v3 (starknet.js's hash, from the raw JSON-RPC fields). */
function nodeHashOf(t: any): string {
  const bounds = boundsOf(t.resource_bounds);
  return `0x${hash
    .calculateInvokeTransactionHash({
      senderAddress: t.sender_address,
      version: t.version,
      compiledCalldata: t.calldata,
      chainId: SN_SEPOLIA,
      nonce: t.nonce,
      accountDeploymentData: t.account_deployment_data,
      nonceDataAvailabilityMode: 0,
      feeDataAvailabilityMode: 0,
      resourceBounds: bounds,
      tip: t.tip,
      paymasterData: t.paymaster_data,
    })
    .replace(/^0x/, '')
    .padStart(64, '0')}`;
}

function fakeNode(answers: Record<string, Answer> = {}) {
  const requests: Req[] = [];
  const defaults: Record<string, Answer> = {
    starknet_specVersion: () => '0.10.0',
    starknet_chainId: () => SN_SEPOLIA,
    starknet_getClassHashAt: () => new RpcFailure(20, 'Contract not found'),
    starknet_getNonce: () => '0x0',
    starknet_estimateFee: (p) => p.request.map(() => estimate),
    starknet_addDeployAccountTransaction: () => ({ transaction_hash: '0xdead01', contract_address: ADDRESS }),
    // A node names the transaction by the hash it computes from it.
    starknet_addInvokeTransaction: (p) => ({ transaction_hash: nodeHashOf(p.invoke_transaction) }),
    starknet_getTransactionStatus: () => ({ finality_status: 'ACCEPTED_ON_L2', execution_status: 'SUCCEEDED' }),
    starknet_getTransactionReceipt: (p) => receipt(p.transaction_hash),
    // starknet.js looks at recent blocks' tips before it signs: quiet blocks, tip 0.
    starknet_blockHashAndNumber: () => ({ block_hash: '0x1', block_number: 812_345 }),
    starknet_getBlockWithTxs: (p) => ({
      status: 'ACCEPTED_ON_L2',
      block_hash: '0x1',
      parent_hash: '0x0',
      block_number: p.block_id?.block_number ?? 812_345,
      new_root: '0x0',
      timestamp: 1_763_000_000,
      sequencer_address: '0x1',
      transactions: [],
    }),
  };
  const fetch = (async (_url: string, init: { body: string }) => {
    const body = JSON.parse(init.body);
    const list = Array.isArray(body) ? body : [body];
    const out = list.map((r: { id: number; method: string; params: any }) => {
      requests.push({ method: r.method, params: r.params });
      const answer = answers[r.method] ?? defaults[r.method];
      if (!answer) return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `method ${r.method} not faked` } };
      const result = answer(r.params);
      if (result instanceof Error) throw result;
      return result instanceof RpcFailure
        ? { jsonrpc: '2.0', id: r.id, error: { code: result.code, message: result.message, ...(result.data ? { data: result.data } : {}) } }
        : { jsonrpc: '2.0', id: r.id, result };
    });
    return new Response(JSON.stringify(Array.isArray(body) ? out : out[0]), { headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, requests, sent: (method: string) => requests.filter((r) => r.method === method) };
}

const chain = (fetch: typeof globalThis.fetch, receiptTimeoutMs = 300) =>
  new RpcChainB({ rpcUrl: 'http://node.invalid/rpc', chainId: SN_SEPOLIA, fetch, pollIntervalMs: 5, receiptTimeoutMs });
const bn = (x: string) => BigInt(x);
const boundsOf = (rb: any) => ({
  l1_gas: { max_amount: bn(rb.l1_gas.max_amount), max_price_per_unit: bn(rb.l1_gas.max_price_per_unit) },
  l2_gas: { max_amount: bn(rb.l2_gas.max_amount), max_price_per_unit: bn(rb.l2_gas.max_price_per_unit) },
  l1_data_gas: { max_amount: bn(rb.l1_data_gas.max_amount), max_price_per_unit: bn(rb.l1_data_gas.max_price_per_unit) },
});

describe('chain B rpc adapter (offline, recorded answers)', () => {
  it('an undeployed account: sends a signed DEPLOY_ACCOUNT v3, then the signed INVOKE v3 of transfer', async () => {
    const node = fakeNode();
    const out = await chain(node.fetch).transfer({ privateKey: PRIVATE_KEY, token: STRK.address, to: RECIPIENT, amount: 1_500_000_000_000_000_001n });
    expect(out).toMatchObject({ deployTxHash: `0x${'dead01'.padStart(64, '0')}`, fee: 2n * 0x1aa535d3d0c000n });

    const [deploy] = node.sent('starknet_addDeployAccountTransaction').map((r) => r.params.deploy_account_transaction);
    expect(deploy).toMatchObject({ type: 'DEPLOY_ACCOUNT', version: '0x3', nonce: '0x0' });
    expect(BigInt(deploy.class_hash)).toBe(BigInt(OZ_ACCOUNT_CLASS_HASH));
    expect(BigInt(deploy.contract_address_salt)).toBe(BigInt(PUBLIC_KEY));
    expect(deploy.constructor_calldata.map(BigInt)).toEqual([BigInt(PUBLIC_KEY)]);
    const deployBounds = boundsOf(deploy.resource_bounds);
    expect(deployBounds.l2_gas.max_amount).toBeGreaterThanOrEqual(0xdbba0n); // the estimate plus starknet.js's margin
    const dHash = deployAccountHash({
      contractAddress: ADDRESS,
      classHash: OZ_ACCOUNT_CLASS_HASH,
      constructorCalldata: [PUBLIC_KEY],
      addressSalt: PUBLIC_KEY,
      nonce: 0n,
      resourceBounds: deployBounds,
      tip: BigInt(deploy.tip),
      chainId: SN_SEPOLIA,
    });
    expect(verifyStarkSignature(dHash, deploy.signature, PUBLIC_KEY)).toBe(true);

    const [invoke] = node.sent('starknet_addInvokeTransaction').map((r) => r.params.invoke_transaction);
    expect(invoke).toMatchObject({ type: 'INVOKE', version: '0x3', sender_address: ADDRESS });
    const call = transferCall(STRK.address, RECIPIENT, 1_500_000_000_000_000_001n);
    const iHash = invokeHash({
      senderAddress: ADDRESS,
      calls: [call],
      nonce: BigInt(invoke.nonce),
      resourceBounds: boundsOf(invoke.resource_bounds),
      tip: BigInt(invoke.tip),
      chainId: SN_SEPOLIA,
    });
    expect(verifyStarkSignature(iHash, invoke.signature, PUBLIC_KEY)).toBe(true);
    expect(verifyStarkSignature(iHash, invoke.signature, publicKeyOf('0x1234'))).toBe(false);
    expect(out.txHash).toBe(iHash);
    // __execute__ calldata: one call, the token, selector of transfer, [recipient, low, high]
    expect(invoke.calldata.map(BigInt).slice(0, 2)).toEqual([1n, BigInt(STRK.address)]);
    expect(invoke.calldata.map(BigInt).slice(-3)).toEqual([BigInt(RECIPIENT), 1_500_000_000_000_000_001n, 0n]);
    expect(ec.starkCurve.getStarkKey(PRIVATE_KEY)).toBe(PUBLIC_KEY.replace(/^0x0*/, '0x'));
  });

  it("a deployed account sends only the INVOKE; a node's revert, nonce and fee refusals map to the port's errors", async () => {
    const deployed = { starknet_getClassHashAt: () => OZ_ACCOUNT_CLASS_HASH, starknet_getNonce: () => '0x5' };
    const ok = fakeNode(deployed);
    const r = await chain(ok.fetch).transfer({ privateKey: PRIVATE_KEY, token: STRK.address, to: RECIPIENT, amount: 1n });
    expect(r.deployTxHash).toBeUndefined();
    expect(ok.sent('starknet_addDeployAccountTransaction')).toHaveLength(0);
    expect(ok.sent('starknet_addInvokeTransaction')[0]!.params.invoke_transaction.nonce).toBe('0x5');

    const reason =
      "Transaction execution has failed:\n0: Error in the called contract (contract address: 0x04718f…, class hash: 0x…, selector: 0x…):\nExecution failed. Failure reason: 0x45524332303a20696e73756666696369656e742062616c616e6365 ('ERC20: insufficient balance').\n";
    const reverted = fakeNode({
      ...deployed,
      starknet_getTransactionReceipt: (p) => receipt(p.transaction_hash, { execution_status: 'REVERTED', revert_reason: reason }),
      starknet_getTransactionStatus: () => ({ finality_status: 'ACCEPTED_ON_L2', execution_status: 'REVERTED', failure_reason: reason }),
    });
    await expect(chain(reverted.fetch).transfer({ privateKey: PRIVATE_KEY, token: STRK.address, to: RECIPIENT, amount: 1n })).rejects.toMatchObject({
      name: 'ChainBReverted',
      reason: 'ERC20: insufficient balance',
    });

    const nonce = fakeNode({ ...deployed, starknet_addInvokeTransaction: () => new RpcFailure(52, 'Invalid transaction nonce') });
    await expect(chain(nonce.fetch).transfer({ privateKey: PRIVATE_KEY, token: STRK.address, to: RECIPIENT, amount: 1n })).rejects.toMatchObject({
      name: 'ChainBRejected',
      kind: 'NONCE',
    });
    const poor = fakeNode({
      ...deployed,
      starknet_addInvokeTransaction: () =>
        new RpcFailure(54, "Account balance is smaller than the transaction's maximal fee (calculated from the resource bounds)"),
    });
    await expect(chain(poor.fetch).transfer({ privateKey: PRIVATE_KEY, token: STRK.address, to: RECIPIENT, amount: 1n })).rejects.toMatchObject({
      name: 'ChainBRejected',
      kind: 'FEE_BALANCE',
    });
    const down = fakeNode({ starknet_getClassHashAt: () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }) });
    await expect(chain(down.fetch).transfer({ privateKey: PRIVATE_KEY, token: STRK.address, to: RECIPIENT, amount: 1n })).rejects.toMatchObject({
      name: 'ChainBUnavailable',
    });
  });

  it('reads: balance_of as a u256, transactions with their receipt, unknown ones as null', async () => {
    const node = fakeNode({
      starknet_call: (p) => (p.request.entry_point_selector && BigInt(p.request.contract_address) === BigInt(STRK.address) ? ['0x1', '0x2'] : ['0x0', '0x0']),
      starknet_getTransactionByHash: (p) =>
        p.transaction_hash === '0x99'
          ? new RpcFailure(29, 'Transaction hash not found')
          : { type: 'INVOKE', version: '0x3', sender_address: ADDRESS, nonce: '0x3', transaction_hash: p.transaction_hash },
    });
    const c = chain(node.fetch);
    expect(await c.balanceOf(STRK.address, ADDRESS)).toBe(1n + 2n * 2n ** 128n);
    const [call] = node.sent('starknet_call');
    expect(call!.params.request.calldata.map(BigInt)).toEqual([BigInt(ADDRESS)]);
    const tx = await c.getTransaction('0xbeef');
    expect(tx).toMatchObject({ type: 'INVOKE', status: 'SUCCEEDED', sender: ADDRESS, nonce: '0x3', fee: String(0x1aa535d3d0c000n), blockNumber: 812_345 });
    expect(await c.getTransaction('0x99')).toBeNull();
    expect(revertReasonOf("Failure reason: 0x… ('ERC20: transfer to 0').")).toBe('ERC20: transfer to 0');
  });

  describe('the hash before the send; a lost answer is an unknown outcome, a refusal stays one', () => {
    const deployed = { starknet_getClassHashAt: () => OZ_ACCOUNT_CLASS_HASH, starknet_getNonce: () => '0x5' };
    const down = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    const send = (node: ReturnType<typeof fakeNode>, seen: string[]) =>
      chain(node.fetch).execute({
        privateKey: PRIVATE_KEY,
        calls: [transferCall(STRK.address, RECIPIENT, 7n)],
        beforeSend: async (h) => {
          expect(node.sent('starknet_addInvokeTransaction')).toHaveLength(0); // nothing sent yet
          seen.push(h);
        },
      });

    it('beforeSend gets the hash the node then names the transaction by', async () => {
      const node = fakeNode(deployed);
      const seen: string[] = [];
      const out = await send(node, seen);
      expect(seen).toEqual([out.txHash]);
      expect(out.txHash).toBe(nodeHashOf(node.sent('starknet_addInvokeTransaction')[0]!.params.invoke_transaction));
    });

    it('the node gone during the send, or while waiting for the receipt: ChainBOutcomeUnknown with that hash', async () => {
      const losses: Record<string, Answer>[] = [
        { starknet_addInvokeTransaction: down },
        { starknet_getTransactionStatus: down, starknet_getTransactionReceipt: down },
      ];
      for (const lost of losses) {
        const node = fakeNode({ ...deployed, ...lost });
        const seen: string[] = [];
        const e = await send(node, seen).catch((x: unknown) => x);
        expect(e).toMatchObject({ name: 'ChainBOutcomeUnknown', txHash: seen[0] });
        expect(seen[0]).toMatch(/^0x[0-9a-f]{64}$/);
      }
    });

    it('no receipt within the deadline (the node says RECEIVED on and on): ChainBOutcomeUnknown, in time; a blip while polling is waited out', async () => {
      const slow = fakeNode({ ...deployed, starknet_getTransactionStatus: () => ({ finality_status: 'RECEIVED' }) });
      const seen: string[] = [];
      const started = Date.now();
      const e = await send(slow, seen).catch((x: unknown) => x);
      expect(e).toMatchObject({ name: 'ChainBOutcomeUnknown', txHash: seen[0] });
      expect((e as Error).message).toMatch(/no receipt for 0x[0-9a-f]{64} within \d+ ms/);
      expect(Date.now() - started).toBeLessThan(3000);
      let calls = 0;
      const blip = fakeNode({
        ...deployed,
        starknet_getTransactionStatus: () => (++calls === 1 ? down() : { finality_status: 'ACCEPTED_ON_L2', execution_status: 'SUCCEEDED' }),
      });
      const out = await send(blip, []);
      expect(out.fee).toBe(0x1aa535d3d0c000n);
      expect(calls).toBe(2);
    });

    it('a refusal by the node stays ChainBRejected; the node down before signing stays ChainBUnavailable; a failing beforeSend sends nothing', async () => {
      const nonce = fakeNode({ ...deployed, starknet_addInvokeTransaction: () => new RpcFailure(52, 'Invalid transaction nonce') });
      await expect(send(nonce, [])).rejects.toMatchObject({ name: 'ChainBRejected', kind: 'NONCE' });
      const early = fakeNode({ ...deployed, starknet_estimateFee: down });
      const seen: string[] = [];
      await expect(send(early, seen)).rejects.toMatchObject({ name: 'ChainBUnavailable' });
      expect(seen).toEqual([]);
      const node = fakeNode(deployed);
      const boom = new Error('the record could not be written');
      await expect(
        chain(node.fetch).execute({
          privateKey: PRIVATE_KEY,
          calls: [transferCall(STRK.address, RECIPIENT, 7n)],
          beforeSend: async () => {
            throw boom;
          },
        }),
      ).rejects.toBe(boom);
      expect(node.sent('starknet_addInvokeTransaction')).toHaveLength(0);
    });
  });

  /** Chain B as a real node misbehaves (issue 36; the local layer is lib/chains/chain-b/faults.ts). */
  describe('received, rejected, reverted, nonce taken', () => {
    const deployed = { starknet_getClassHashAt: () => OZ_ACCOUNT_CLASS_HASH, starknet_getNonce: () => '0x5' };
    const send = (node: ReturnType<typeof fakeNode>, seen: string[] = []) =>
      chain(node.fetch, 2000).execute({
        privateKey: PRIVATE_KEY,
        calls: [transferCall(STRK.address, RECIPIENT, 7n)],
        beforeSend: async (h) => void seen.push(h),
      });

    it('RECEIVED, then REJECTED: refused at once (nothing changed, its nonce unused), not an unknown outcome held for half an hour', async () => {
      let polls = 0;
      const node = fakeNode({
        ...deployed,
        starknet_getTransactionStatus: () =>
          ++polls < 3 ? { finality_status: 'RECEIVED' } : { finality_status: 'REJECTED', failure_reason: 'Transaction validation failed: nonce too old' },
        starknet_getTransactionReceipt: () => new RpcFailure(29, 'Transaction hash not found'),
      });
      const started = Date.now();
      const e = await send(node).catch((x: unknown) => x);
      expect(e).toMatchObject({ name: 'ChainBRejected', kind: 'INVALID' });
      expect((e as Error).message).toMatch(/REJECTED.*nonce too old/);
      expect(Date.now() - started).toBeLessThan(1500); // well before the 2 s receipt deadline
      expect(node.sent('starknet_getTransactionReceipt')).toHaveLength(0);
    });

    it('getTransactionStatus: RECEIVED (and the newer CANDIDATE, PRE_CONFIRMED) waits, REJECTED, ACCEPTED_ON_L2/L1, unknown hashes', async () => {
      const statuses: Record<string, unknown> = {
        '0x1': { finality_status: 'RECEIVED' },
        '0x2': { finality_status: 'CANDIDATE' },
        '0x3': { finality_status: 'PRE_CONFIRMED', execution_status: 'SUCCEEDED' },
        '0x4': { finality_status: 'REJECTED', failure_reason: 'Invalid transaction nonce' },
        '0x5': { finality_status: 'ACCEPTED_ON_L2', execution_status: 'REVERTED', failure_reason: 'ERC20: insufficient balance' },
        '0x6': { finality_status: 'ACCEPTED_ON_L1', execution_status: 'SUCCEEDED' },
      };
      const node = fakeNode({ starknet_getTransactionStatus: (p) => statuses[p.transaction_hash] ?? new RpcFailure(29, 'Transaction hash not found') });
      const c = chain(node.fetch);
      const got = await Promise.all(['0x1', '0x2', '0x3', '0x4', '0x5', '0x6', '0x7'].map((h) => c.getTransactionStatus(h)));
      expect(got).toEqual(['RECEIVED', 'RECEIVED', 'RECEIVED', 'REJECTED', 'ACCEPTED', 'ACCEPTED', 'NOT_RECEIVED']);
      const down = fakeNode({ starknet_getTransactionStatus: () => new RpcFailure(-32603, 'Internal error') });
      await expect(chain(down.fetch).getTransactionStatus('0x1')).rejects.toMatchObject({ name: 'ChainBUnavailable' });
    });

    it("getNonce: the account's next nonce at the latest block; 0 for an account not deployed; a node down is ChainBUnavailable", async () => {
      const node = fakeNode({ starknet_getNonce: (p) => (BigInt(p.contract_address) === BigInt(ADDRESS) ? '0x7' : new RpcFailure(20, 'Contract not found')) });
      const c = chain(node.fetch);
      expect(await c.getNonce(ADDRESS)).toBe(7n);
      expect(node.sent('starknet_getNonce')[0]!.params).toMatchObject({ block_id: 'latest' });
      expect(await c.getNonce(`0x${'9'.repeat(64)}`)).toBe(0n);
      const down = fakeNode({ starknet_getNonce: () => new RpcFailure(-32603, 'Internal error') });
      await expect(chain(down.fetch).getNonce(ADDRESS)).rejects.toMatchObject({ name: 'ChainBUnavailable' });
    });

    it('past blocks: starknet_blockNumber, starknet_getNonce at {block_number}, starknet_getBlockWithTxs (an INVOKE with its sender and nonce); BLOCK_NOT_FOUND (a node behind) is ChainBUnavailable', async () => {
      const txs = [
        { transaction_hash: '0xabc', type: 'INVOKE', version: '0x3', sender_address: '0x1234', nonce: '0x6' },
        { transaction_hash: `0x${'0'.repeat(60)}beef`, type: 'L1_HANDLER', version: '0x0', contract_address: '0x99', nonce: '0x7' },
        { transaction_hash: '0xdea', type: 'DEPLOY_ACCOUNT', version: '0x3', nonce: '0x0', class_hash: '0x1' },
      ];
      const node = fakeNode({
        starknet_blockNumber: () => 812_345,
        starknet_getNonce: (p) => (p.block_id.block_number > 812_345 ? new RpcFailure(24, 'Block not found') : '0x6'),
        starknet_getBlockWithTxs: (p) =>
          p.block_id.block_number > 812_345
            ? new RpcFailure(24, 'Block not found')
            : { status: 'ACCEPTED_ON_L2', block_hash: '0x1', parent_hash: '0x0', block_number: p.block_id.block_number, transactions: txs },
      });
      const c = chain(node.fetch);
      expect(await c.blockNumber()).toBe(812_345);
      expect(await c.getNonce(ADDRESS, 812_000)).toBe(6n);
      expect(node.sent('starknet_getNonce')[0]!.params).toMatchObject({ block_id: { block_number: 812_000 } });
      expect(await c.blockTransactions(812_001)).toEqual([
        { hash: `0x${'0'.repeat(61)}abc`, sender: `0x${'0'.repeat(60)}1234`, nonce: 6n },
        { hash: `0x${'0'.repeat(60)}beef` },
        { hash: `0x${'0'.repeat(61)}dea` },
      ]);
      expect(node.sent('starknet_getBlockWithTxs').at(-1)!.params).toEqual({ block_id: { block_number: 812_001 } });
      await expect(c.getNonce(ADDRESS, 812_346)).rejects.toMatchObject({ name: 'ChainBUnavailable' });
      await expect(c.blockTransactions(812_346)).rejects.toMatchObject({ name: 'ChainBUnavailable' });
      // A node that answers another block than the one asked (a pending one, say): unavailable, never taken for it.
      const other = fakeNode({ starknet_getBlockWithTxs: () => ({ status: 'ACCEPTED_ON_L2', block_hash: '0x1', block_number: 5, transactions: txs }) });
      await expect(chain(other.fetch).blockTransactions(6)).rejects.toMatchObject({ name: 'ChainBUnavailable' });
    });

    it('getTransaction: a receipt of a transaction not accepted yet (pre-confirmed, or pending without a block) is not a landed one', async () => {
      const tx = (p: any) => ({ type: 'INVOKE', version: '0x3', sender_address: ADDRESS, nonce: '0x5', transaction_hash: p.transaction_hash });
      const pre = fakeNode({
        starknet_getTransactionByHash: tx,
        starknet_getTransactionReceipt: (p) => receipt(p.transaction_hash, { finality_status: 'PRE_CONFIRMED', block_hash: undefined, block_number: 812_346 }),
      });
      expect(await chain(pre.fetch).getTransaction('0xbeef')).toBeNull();
      const pending = fakeNode({
        starknet_getTransactionByHash: tx,
        starknet_getTransactionReceipt: (p) => receipt(p.transaction_hash, { finality_status: 'RECEIVED', block_hash: undefined, block_number: undefined }),
      });
      expect(await chain(pending.fetch).getTransaction('0xbeef')).toBeNull();
      const accepted = fakeNode({ starknet_getTransactionByHash: tx });
      expect(await chain(accepted.fetch).getTransaction('0xbeef')).toMatchObject({ status: 'SUCCEEDED', blockNumber: 812_345 });
    });

    it('REVERTED with a reason: the send is ChainBReverted naming the transaction; the transaction reads REVERTED with the panic string', async () => {
      const reason =
        "Transaction execution has failed:\n0: Error in the called contract (contract address: 0x04718f…):\nExecution failed. Failure reason: 0x… ('ERC20: insufficient balance').\n";
      const node = fakeNode({
        ...deployed,
        starknet_getTransactionStatus: () => ({ finality_status: 'ACCEPTED_ON_L2', execution_status: 'REVERTED', failure_reason: reason }),
        starknet_getTransactionReceipt: (p) => receipt(p.transaction_hash, { execution_status: 'REVERTED', revert_reason: reason }),
        starknet_getTransactionByHash: (p) => ({ type: 'INVOKE', version: '0x3', sender_address: ADDRESS, nonce: '0x5', transaction_hash: p.transaction_hash }),
      });
      const seen: string[] = [];
      const e = await send(node, seen).catch((x: unknown) => x);
      expect(e).toMatchObject({ name: 'ChainBReverted', reason: 'ERC20: insufficient balance', txHash: seen[0] });
      expect(await chain(node.fetch).getTransaction(seen[0]!)).toMatchObject({ status: 'REVERTED', revertReason: 'ERC20: insufficient balance', nonce: '0x5' });
    });

    it('accepted but never received (the send lost on its way): the settle pass resends the same signed INVOKE, starknet_addInvokeTransaction, the same hash', async () => {
      const lost = fakeNode({
        ...deployed,
        starknet_addInvokeTransaction: () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }),
      });
      let signed: SignedInvoke | undefined;
      const e = await chain(lost.fetch)
        .execute({ privateKey: PRIVATE_KEY, calls: [transferCall(STRK.address, RECIPIENT, 7n)], beforeSend: async (_h, s) => void (signed = s) })
        .catch((x: unknown) => x);
      expect(e).toMatchObject({ name: 'ChainBOutcomeUnknown' });
      const txHash = (e as { txHash: string }).txHash;
      const first = lost.sent('starknet_addInvokeTransaction')[0]!.params.invoke_transaction;
      expect(signed).toMatchObject({ sender: ADDRESS, nonce: 5n });
      // What the journal keeps survives JSON (its record in the table), and is enough to send it again.
      const stored = JSON.parse(JSON.stringify(signed!.invoke));
      const t = { txHash, account: ADDRESS, nonce: 5n, invoke: stored };

      // The node never heard of it, the account's nonce still 5: sent again, unchanged; landed.
      let received = false;
      const node = fakeNode({
        ...deployed,
        starknet_addInvokeTransaction: (p) => ((received = true), { transaction_hash: nodeHashOf(p.invoke_transaction) }),
        starknet_getTransactionByHash: (p) => ({ type: 'INVOKE', version: '0x3', sender_address: ADDRESS, nonce: '0x5', transaction_hash: p.transaction_hash }),
        starknet_getTransactionStatus: () =>
          received ? { finality_status: 'ACCEPTED_ON_L2', execution_status: 'SUCCEEDED' } : new RpcFailure(29, 'Transaction hash not found'),
      });
      expect(await settleChainB(chain(node.fetch), t)).toEqual({ kind: 'landed' });
      const resent = node.sent('starknet_addInvokeTransaction');
      expect(resent).toHaveLength(1);
      expect(resent[0]!.params.invoke_transaction).toEqual(first);
      expect(nodeHashOf(resent[0]!.params.invoke_transaction)).toBe(txHash);

      // Its nonce taken between the read and the resend: refused, still pending (expired on a later pass, never sent anew).
      const refused = fakeNode({
        ...deployed,
        starknet_addInvokeTransaction: () => new RpcFailure(52, 'Invalid transaction nonce'),
        starknet_getTransactionStatus: () => new RpcFailure(29, 'Transaction hash not found'),
      });
      expect(await settleChainB(chain(refused.fetch), t)).toEqual({ kind: 'pending' });
      // Its nonce taken (6 from block 812,340 on) by another transaction, in that block: expired, found in 21 reads of past nonces.
      const takenIn = (hash: string) =>
        fakeNode({
          ...deployed,
          starknet_blockNumber: () => 812_345,
          starknet_getNonce: (p) => (p.block_id === 'latest' || p.block_id.block_number >= 812_340 ? '0x6' : '0x5'),
          starknet_getBlockWithTxs: (p) => ({
            status: 'ACCEPTED_ON_L2',
            block_hash: '0x2',
            parent_hash: '0x1',
            block_number: p.block_id.block_number,
            transactions: [{ transaction_hash: hash, type: 'INVOKE', version: '0x3', sender_address: ADDRESS, nonce: '0x5' }],
          }),
          starknet_getTransactionStatus: () => new RpcFailure(29, 'Transaction hash not found'),
        });
      const taken = takenIn(`0x${'0'.repeat(60)}beef`);
      expect(await settleChainB(chain(taken.fetch), t)).toEqual({ kind: 'expired' });
      expect(taken.sent('starknet_addInvokeTransaction')).toHaveLength(0);
      expect(taken.sent('starknet_getBlockWithTxs').map((r) => r.params.block_id)).toEqual([{ block_number: 812_340 }]);
      // From the head back: 812,345, 344, 343, 341, 337 (not taken), then halving: 339, 340.
      expect(taken.sent('starknet_getNonce').map((r) => r.params.block_id.block_number ?? r.params.block_id)).toEqual([
        'latest',
        812_345,
        812_344,
        812_343,
        812_341,
        812_337,
        812_339,
        812_340,
      ]);
      // Taken by this very transaction, which the node asked says it does not know (it is behind): pending, not expired.
      expect(await settleChainB(chain(takenIn(txHash).fetch), t)).toEqual({ kind: 'pending' });
    });

    it('a nonce already used (another signer of the account, or our own earlier transaction): refused as NONCE with nothing sent twice', async () => {
      const node = fakeNode({
        ...deployed,
        starknet_addInvokeTransaction: () =>
          new RpcFailure(52, 'Invalid transaction nonce', 'Invalid transaction nonce of contract at address 0x… Account nonce: 0x6; got: 0x5.'),
      });
      const seen: string[] = [];
      await expect(send(node, seen)).rejects.toMatchObject({ name: 'ChainBRejected', kind: 'NONCE' });
      expect(node.sent('starknet_addInvokeTransaction')).toHaveLength(1);
      expect(node.sent('starknet_addInvokeTransaction')[0]!.params.invoke_transaction.nonce).toBe('0x5');
      expect(node.sent('starknet_getTransactionStatus')).toHaveLength(0);
    });
  });
});
