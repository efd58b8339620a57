import { describe, expect, it } from 'vitest';
import { CallData, constants, ec, hash, Signer, stark, transaction } from 'starknet';
import { RpcProofRegistry } from '#lib/chains/chain-b/rpc.ts';
import { invokeHash } from '#lib/chains/chain-b/account.ts';
import { LOCAL_RESOURCE_BOUNDS, PROOF_STORED_SELECTOR, storeProofCall, RegistryRevert } from '#lib/chains/chain-b/registry.ts';
import { toHex, toHex64, zkIdToFelt } from '#lib/chains/chain-b/felts.ts';

/**
 * The rpc adapter, offline: starknet.js builds and signs the real transaction, and a fake
 * JSON-RPC transport (no network) records what would be sent to the node and answers it.
 */
const PRIVATE_KEY = '0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcde';
const ACCOUNT = '0x0467a0b0a1e1c37bd4ba9cf3c5e4f1d0e1fbb5b67e0aa48e3a4d32cf8a5e6a11';
const REGISTRY = '0x0712e2b3f0c5c1f2a5d3e8b9c0a1f2e3d4c5b6a7980f1e2d3c4b5a6978877665';
const args = { proofId: 0x11112222333344445555666677778888n, proofHash: 0xabcdefn, zkId: zkIdToFelt('did:zk:abcdefghijklmnop') };

type RpcCall = { method: string; params: unknown };

function fakeNode(answers: Record<string, (params: any) => unknown> = {}) {
  const calls: RpcCall[] = [];
  const fetch = (async (_url: string, init: { body: string }) => {
    const body = JSON.parse(init.body);
    const requests = Array.isArray(body) ? body : [body];
    const out = requests.map((r: { id: number; method: string; params: unknown }) => {
      calls.push({ method: r.method, params: r.params });
      const answer = answers[r.method] ?? defaults[r.method];
      if (!answer) return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `method ${r.method} not faked` } };
      const result = answer(r.params);
      return result instanceof Error
        ? { jsonrpc: '2.0', id: r.id, error: { code: 40, message: result.message, data: { revert_error: result.message } } }
        : { jsonrpc: '2.0', id: r.id, result };
    });
    return new Response(JSON.stringify(Array.isArray(body) ? out : out[0]), { headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, calls };
}

const defaults: Record<string, (params: any) => unknown> = {
  starknet_specVersion: () => '0.10.0',
  starknet_chainId: () => constants.StarknetChainId.SN_SEPOLIA,
  starknet_getNonce: () => '0x7',
  starknet_addInvokeTransaction: () => ({ transaction_hash: '0xfeed' }),
  starknet_getTransactionStatus: () => ({ finality_status: 'ACCEPTED_ON_L2', execution_status: 'SUCCEEDED' }),
  starknet_getTransactionReceipt: () => ({
    type: 'INVOKE',
    transaction_hash: '0xfeed',
    actual_fee: { amount: '0x0', unit: 'FRI' },
    execution_status: 'SUCCEEDED',
    finality_status: 'ACCEPTED_ON_L2',
    block_hash: '0x1',
    block_number: 1,
    messages_sent: [],
    events: [],
    execution_resources: { l1_gas: 0, l1_data_gas: 0, l2_gas: 0 },
  }),
};

const registry = (fetch: typeof globalThis.fetch, receiptTimeoutMs?: number) =>
  new RpcProofRegistry({
    rpcUrl: 'http://node.invalid/rpc',
    registryAddress: REGISTRY,
    accountAddress: ACCOUNT,
    privateKey: PRIVATE_KEY,
    chainId: constants.StarknetChainId.SN_SEPOLIA,
    fetch,
    details: { nonce: 7n, resourceBounds: LOCAL_RESOURCE_BOUNDS, tip: 0n },
    pollIntervalMs: 10,
    ...(receiptTimeoutMs ? { receiptTimeoutMs } : {}),
  });

describe('rpc adapter (offline)', () => {
  it('populates store_proof from the ABI exactly as the shared call builder does', () => {
    const call = registry(fakeNode().fetch).storeProofCall(args);
    const ours = storeProofCall(REGISTRY, args);
    expect(call.entrypoint).toBe('store_proof');
    expect(BigInt(call.contractAddress)).toBe(BigInt(REGISTRY));
    expect((call.calldata as string[]).map((x) => BigInt(x))).toEqual([args.proofId, args.proofHash, args.zkId]);
    expect((ours.calldata as string[]).map((x) => BigInt(x))).toEqual([args.proofId, args.proofHash, args.zkId]);
  });

  it("sends an INVOKE v3 whose hash is invokeHash of the call and whose signature is the account key's", async () => {
    const node = fakeNode();
    const out = await registry(node.fetch).storeProof(args);
    expect(out.txHash).toBe(toHex64('0xfeed'));
    const sent = node.calls.find((c) => c.method === 'starknet_addInvokeTransaction')!;
    expect(sent).toBeDefined();
    const tx = (sent.params as { invoke_transaction: any }).invoke_transaction;
    expect(tx.type).toBe('INVOKE');
    expect(tx.version).toBe('0x3');
    expect(BigInt(tx.sender_address)).toBe(BigInt(ACCOUNT));
    expect(BigInt(tx.nonce)).toBe(7n);
    // The account's __execute__ calldata: one call to the registry's store_proof with our three felts.
    const expected = transaction.getExecuteCalldata([storeProofCall(REGISTRY, args)], '1').map((x) => BigInt(x));
    expect(tx.calldata.map((x: string) => BigInt(x))).toEqual(expected);
    expect(expected).toEqual([1n, BigInt(REGISTRY), BigInt(hash.getSelectorFromName('store_proof')), 3n, args.proofId, args.proofHash, args.zkId]);

    const txHash = invokeHash({
      senderAddress: ACCOUNT,
      calls: [storeProofCall(REGISTRY, args)],
      nonce: 7n,
      chainId: constants.StarknetChainId.SN_SEPOLIA,
      resourceBounds: LOCAL_RESOURCE_BOUNDS,
    });
    const [r, s] = tx.signature.map((x: string) => BigInt(x));
    expect(ec.starkCurve.verify(new ec.starkCurve.Signature(r, s), txHash, stark.getFullPublicKey(PRIVATE_KEY))).toBe(true);

    // And starknet.js's own Signer, given the same details, signs the same hash.
    const viaSigner = await new Signer(PRIVATE_KEY).signTransaction([storeProofCall(REGISTRY, args)], {
      walletAddress: ACCOUNT,
      chainId: constants.StarknetChainId.SN_SEPOLIA,
      cairoVersion: '1',
      nonce: 7n,
      version: '0x3',
      resourceBounds: LOCAL_RESOURCE_BOUNDS,
      tip: 0n,
      paymasterData: [],
      accountDeploymentData: [],
      nonceDataAvailabilityMode: 'L1',
      feeDataAvailabilityMode: 'L1',
    } as never);
    expect(stark.signatureToDecimalArray(viaSigner).map(BigInt)).toEqual([r, s]);
  });

  it('refuses a zero hash or zk_id before sending anything', async () => {
    const node = fakeNode();
    await expect(registry(node.fetch).storeProof({ ...args, proofHash: 0n })).rejects.toEqual(new RegistryRevert('zero proof hash'));
    await expect(registry(node.fetch).storeProof({ ...args, zkId: 0n })).rejects.toEqual(new RegistryRevert('zero zk_id'));
    expect(node.calls.filter((c) => c.method === 'starknet_addInvokeTransaction')).toEqual([]);
  });

  it('maps the contract\'s "proof already exists" revert', async () => {
    const node = fakeNode({
      starknet_addInvokeTransaction: () =>
        new Error("Transaction execution has failed: ... Failure reason: 0x70726f6f6620616c726561647920657869737473 ('proof already exists')."),
    });
    const err = await registry(node.fetch)
      .storeProof(args)
      .catch((e) => e);
    expect(err).toBeInstanceOf(RegistryRevert);
    expect(err.reason).toBe('proof already exists');
  });

  it('waits for the receipt with a deadline: a transaction the node keeps RECEIVED is an error in time; a blip while polling is waited out; a revert is the reason', async () => {
    const stuck = fakeNode({ starknet_getTransactionStatus: () => ({ finality_status: 'RECEIVED' }) });
    const started = Date.now();
    const err = await registry(stuck.fetch, 150)
      .storeProof(args)
      .catch((e) => e);
    expect(err.message).toMatch(/^no receipt for 0x0+feed within \d+ ms$/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stuck.calls.filter((c) => c.method === 'starknet_getTransactionStatus').length).toBeGreaterThan(1);

    let polls = 0;
    const blip = fakeNode({
      starknet_getTransactionStatus: () =>
        ++polls === 1 ? new Error('node restarting') : { finality_status: 'ACCEPTED_ON_L2', execution_status: 'SUCCEEDED' },
    });
    expect(await registry(blip.fetch, 5_000).storeProof(args)).toEqual({ txHash: `0x${'0'.repeat(60)}feed` });
    expect(polls).toBe(2);

    const reverted = fakeNode({
      starknet_getTransactionReceipt: () => ({
        ...(defaults.starknet_getTransactionReceipt!({}) as object),
        execution_status: 'REVERTED',
        revert_reason: "Failure reason: ('proof already exists')",
      }),
    });
    expect(
      await registry(reverted.fetch)
        .storeProof(args)
        .catch((e) => e),
    ).toEqual(new RegistryRevert('proof already exists'));
  });

  it('reads get_proof, verify_proof_exists and ProofStored events through starknet_call/getEvents', async () => {
    const owner = BigInt(ACCOUNT);
    const node = fakeNode({
      starknet_call: (p: any) => {
        const selector = BigInt(p.request.entry_point_selector);
        if (selector === BigInt(hash.getSelectorFromName('get_proof'))) {
          return BigInt(p.request.calldata[0]) === args.proofId
            ? [toHex(args.proofHash), toHex(args.zkId), toHex(owner), '0x6553f100']
            : ['0x0', '0x0', '0x0', '0x0'];
        }
        return [BigInt(p.request.calldata[0]) === args.proofId ? '0x1' : '0x0'];
      },
      starknet_getEvents: () => ({
        events: [
          {
            from_address: REGISTRY,
            keys: [PROOF_STORED_SELECTOR, toHex(args.proofId)],
            data: [toHex(args.proofHash), toHex(args.zkId), toHex(owner), '0x6553f100'],
            block_number: 12,
            block_hash: '0x1',
            transaction_hash: '0xfeed',
          },
        ],
      }),
    });
    const reg = registry(node.fetch);
    expect(await reg.getProof(args.proofId)).toEqual({
      proof_id: toHex64(args.proofId),
      proof_hash: toHex64(args.proofHash),
      zk_id: toHex64(args.zkId),
      owner: toHex64(owner),
      timestamp: 0x6553f100,
    });
    expect(await reg.getProof(1n)).toBeNull();
    expect(await reg.verifyProofExists(args.proofId)).toBe(true);
    expect(await reg.verifyProofExists(1n)).toBe(false);
    const call = node.calls.find((c) => c.method === 'starknet_call')!;
    expect(CallData.compile([args.proofId])).toEqual((call.params as any).request.calldata.map((x: string) => BigInt(x).toString()));
    const events = await reg.getEvents({ proofId: args.proofId });
    expect(events).toEqual([
      {
        proof_id: toHex64(args.proofId),
        proof_hash: toHex64(args.proofHash),
        zk_id: toHex64(args.zkId),
        owner: toHex64(owner),
        timestamp: 0x6553f100,
        blockNumber: 12,
        transactionHash: toHex64('0xfeed'),
      },
    ]);
    const filter = (node.calls.find((c) => c.method === 'starknet_getEvents')!.params as any).filter;
    expect(filter.keys).toEqual([[PROOF_STORED_SELECTOR], [toHex(args.proofId)]]);
  });
});
