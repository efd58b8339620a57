import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constants, ec, hash } from 'starknet';
import { invokeHash } from '#lib/chains/chain-b/account.ts';
import { startTable, type TestTable } from '../../support/dynamo-table.ts';

/** The local adapter's semantics against DynamoDB Local: the contract's rules, events, transactions. */
let table: TestTable;
let local: typeof import('#lib/local/chain-b/registry.ts');
let keys: typeof import('#lib/chains/chain-b/registry-keys.ts');
let reg: typeof import('#lib/chains/chain-b/registry.ts');
let felts: typeof import('#lib/chains/chain-b/felts.ts');
const keyDir = mkdtempSync(join(tmpdir(), 'shroud-chainb-'));

beforeAll(async () => {
  table = await startTable();
  local = await import('#lib/local/chain-b/registry.ts');
  keys = await import('#lib/chains/chain-b/registry-keys.ts');
  reg = await import('#lib/chains/chain-b/registry.ts');
  felts = await import('#lib/chains/chain-b/felts.ts');
});
afterAll(async () => {
  await table?.stop();
  rmSync(keyDir, { recursive: true, force: true });
});

const newRegistry = () => new local.LocalProofRegistry(keys.loadOrCreateLocalKeys(keyDir), constants.StarknetChainId.SN_SEPOLIA);
let n = 1n;
const args = () => ({ proofId: 0x1000n + n++, proofHash: 0xabcn + n, zkId: felts.zkIdToFelt('did:zk:aaaaaaaaaaaaaaaa') });

describe('local proof registry', () => {
  it('keeps the server key in a 0600 file created once; addresses follow from it', () => {
    const a = keys.loadOrCreateLocalKeys(keyDir);
    const b = keys.loadOrCreateLocalKeys(keyDir);
    expect(b).toEqual(a);
    const file = join(keyDir, 'chainb', 'account.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).privateKey).toBe(a.privateKey);
    expect(a.accountAddress).toBe(keys.localAccountAddress(a.privateKey));
    expect(a.registryAddress).toMatch(/^0x[0-9a-f]{64}$/);
    expect(a.registryAddress).not.toBe(a.accountAddress);
  });

  it('store_proof → get_proof, verify_proof_exists and a ProofStored event', async () => {
    const r = newRegistry();
    const a = args();
    expect(await r.verifyProofExists(a.proofId)).toBe(false);
    expect(await r.getProof(a.proofId)).toBeNull();
    const { txHash } = await r.storeProof(a);
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const p = await r.getProof(a.proofId);
    expect(p).toEqual({
      proof_id: felts.toHex64(a.proofId),
      proof_hash: felts.toHex64(a.proofHash),
      zk_id: felts.toHex64(a.zkId),
      owner: r.accountAddress,
      timestamp: expect.any(Number),
    });
    expect(await r.verifyProofExists(a.proofId)).toBe(true);
    const [event] = await r.getEvents({ proofId: a.proofId });
    expect(event).toEqual({ ...p, blockNumber: expect.any(Number), transactionHash: txHash });
  });

  it('rejects a zero hash, a zero zk_id and an existing proof_id, storing nothing', async () => {
    const r = newRegistry();
    const a = args();
    await expect(r.storeProof({ ...a, proofHash: 0n })).rejects.toMatchObject({ reason: 'zero proof hash' });
    await expect(r.storeProof({ ...a, zkId: 0n })).rejects.toMatchObject({ reason: 'zero zk_id' });
    expect(await r.verifyProofExists(a.proofId)).toBe(false);
    await r.storeProof(a);
    const nonce = await r.getNonce();
    await expect(r.storeProof({ ...a, proofHash: 0x999n })).rejects.toBeInstanceOf(reg.RegistryRevert);
    expect(await r.getNonce()).toBe(nonce); // refused before it took a nonce
    expect((await r.getProof(a.proofId))!.proof_hash).toBe(felts.toHex64(a.proofHash)); // first write stands
    expect(await r.getEvents({ proofId: a.proofId })).toHaveLength(1);
  });

  it('concurrent store_proof of one proof_id: exactly one succeeds', async () => {
    const r = newRegistry();
    const a = args();
    const out = await Promise.allSettled([r.storeProof(a), r.storeProof(a), r.storeProof(a)]);
    expect(out.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    for (const x of out.filter((x) => x.status === 'rejected')) expect((x as PromiseRejectedResult).reason).toBeInstanceOf(reg.RegistryRevert);
  });

  it('each transaction is a real INVOKE v3 of the account: consecutive nonces, hash recomputes, signature verifies', async () => {
    const r = newRegistry();
    const a1 = args();
    const a2 = args();
    const t1 = await r.storeProof(a1);
    const t2 = await r.storeProof(a2);
    const [x1, x2] = [(await r.getTransaction(t1.txHash))!, (await r.getTransaction(t2.txHash))!];
    expect(BigInt(x2.nonce)).toBe(BigInt(x1.nonce) + 1n);
    expect(x2.blockNumber).toBeGreaterThan(x1.blockNumber);
    expect(x1.calls).toEqual([
      { contractAddress: r.address, entrypoint: 'store_proof', calldata: [a1.proofId, a1.proofHash, a1.zkId].map((v) => felts.toHex(v)) },
    ]);
    const h = invokeHash({
      senderAddress: r.accountAddress,
      calls: [reg.storeProofCall(r.address, a1)],
      nonce: BigInt(x1.nonce),
      chainId: constants.StarknetChainId.SN_SEPOLIA,
      resourceBounds: reg.LOCAL_RESOURCE_BOUNDS,
    });
    expect(felts.toHex64(h)).toBe(t1.txHash);
    // Independently: the v3 hash over a hand-written __execute__ calldata.
    const again = hash.calculateInvokeTransactionHash({
      senderAddress: r.accountAddress,
      version: '0x3',
      compiledCalldata: [1n, BigInt(r.address), BigInt(hash.getSelectorFromName('store_proof')), 3n, a1.proofId, a1.proofHash, a1.zkId].map(String),
      chainId: constants.StarknetChainId.SN_SEPOLIA,
      nonce: BigInt(x1.nonce),
      accountDeploymentData: [],
      nonceDataAvailabilityMode: 0,
      feeDataAvailabilityMode: 0,
      resourceBounds: reg.LOCAL_RESOURCE_BOUNDS,
      tip: 0n,
      paymasterData: [],
    });
    expect(felts.toHex64(again)).toBe(t1.txHash);
    const sig = new ec.starkCurve.Signature(BigInt(x1.signature[0]), BigInt(x1.signature[1]));
    expect(ec.starkCurve.verify(sig, t1.txHash, r.accountPublicKey)).toBe(true);
    expect(ec.starkCurve.verify(sig, t2.txHash, r.accountPublicKey)).toBe(false);
  });

  it('events are readable from a block on', async () => {
    const r = newRegistry();
    const a = args();
    await r.storeProof(a);
    const all = await r.getEvents();
    const last = all.at(-1)!;
    expect(last.proof_id).toBe(felts.toHex64(a.proofId));
    const later = await r.getEvents({ fromBlock: last.blockNumber });
    expect(later).toEqual([last]);
    expect(await r.getEvents({ fromBlock: last.blockNumber + 1 })).toEqual([]);
  });
});
