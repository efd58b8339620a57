import { ec, stark, type constants } from 'starknet';
import type { LocalKeys } from '#lib/chains/chain-b/registry-keys.ts';
import { clock } from '#lib/clock.ts';
import {
  applyStoreProof,
  getRegistryProof,
  getTransaction,
  listRegistryEvents,
  nextBlockNumber,
  peekAccountNonce,
  putTransaction,
  takeAccountNonce,
  type LedgerTransaction,
} from '#lib/local/chain-b/ledger-table.ts';
import { invokeHash } from '#lib/chains/chain-b/account.ts';
import { toHex, toHex64 } from '#lib/chains/chain-b/felts.ts';
import {
  checkStoreProof,
  LOCAL_RESOURCE_BOUNDS,
  PROOF_STORED_SELECTOR,
  RegistryRevert,
  storeProofCall,
  type ProofRegistry,
  type ProofStoredEvent,
  type StoreProofArgs,
  type StoredProof,
} from '#lib/chains/chain-b/registry.ts';

/**
 * The embedded chain B: the registry's exact semantics over DynamoDB. Chain B has no offline
 * devnet, so the contract's state (proofs), its events and the transactions that changed it are
 * items of the project's table; what is real is the cryptography: each store_proof is an INVOKE
 * v3 transaction of the server's account whose hash is Starknet's transaction hash of that very
 * call (lib/chains/chain-b/account.ts `invokeHash`), with the account's nonce taken atomically from a counter, signed with
 * the server's Stark key (lib/chains/chain-b/registry-keys.ts). The items: ledger-table.ts.
 */

/** A transaction of the embedded chain, as stored. */
export type LocalTransaction = LedgerTransaction;

export class LocalProofRegistry implements ProofRegistry {
  readonly adapter = 'local' as const;
  readonly address: string;
  readonly accountAddress: string;
  /** The account's full (uncompressed) public key, for anyone verifying its transaction signatures. */
  readonly accountPublicKey: string;
  readonly #privateKey: string;

  constructor(
    keys: LocalKeys,
    readonly chainId: constants.StarknetChainId,
  ) {
    this.address = keys.registryAddress;
    this.accountAddress = keys.accountAddress;
    this.accountPublicKey = stark.getFullPublicKey(keys.privateKey);
    this.#privateKey = keys.privateKey;
  }

  async storeProof(args: StoreProofArgs): Promise<{ txHash: string }> {
    checkStoreProof(args);
    // As a node's fee estimation would: a call that reverts is refused before it takes a nonce.
    if (await this.verifyProofExists(args.proofId)) throw new RegistryRevert('proof already exists');
    const nonce = BigInt(await takeAccountNonce(this.accountAddress));
    const blockNumber = await nextBlockNumber();
    const timestamp = clock.nowSeconds();
    const call = storeProofCall(this.address, args);
    const txHash = invokeHash({ senderAddress: this.accountAddress, calls: [call], nonce, chainId: this.chainId, resourceBounds: LOCAL_RESOURCE_BOUNDS });
    const sig = ec.starkCurve.sign(txHash, this.#privateKey);
    const proof: StoredProof = {
      proof_id: toHex64(args.proofId),
      proof_hash: toHex64(args.proofHash),
      zk_id: toHex64(args.zkId),
      owner: this.accountAddress,
      timestamp,
    };
    const event = {
      ...proof,
      blockNumber,
      transactionHash: txHash,
      keys: [PROOF_STORED_SELECTOR, proof.proof_id],
      data: [proof.proof_hash, proof.zk_id, proof.owner, toHex(timestamp)],
    };
    const tx: LocalTransaction = {
      transactionHash: txHash,
      type: 'INVOKE',
      version: '0x3',
      senderAddress: this.accountAddress,
      nonce: toHex(nonce),
      chainId: this.chainId,
      calls: [{ contractAddress: call.contractAddress, entrypoint: call.entrypoint, calldata: (call.calldata as string[]).map((x) => toHex(x)) }],
      signature: [toHex(sig.r), toHex(sig.s)],
      blockNumber,
      timestamp,
      executionStatus: 'SUCCEEDED',
    };
    if (!(await applyStoreProof(this.address, { ...proof, blockNumber, transactionHash: txHash }, event, tx))) {
      // Lost a race for the same proof_id: on chain the transaction is included and reverts.
      await putTransaction({ ...tx, executionStatus: 'REVERTED', revertReason: 'proof already exists' });
      throw new RegistryRevert('proof already exists');
    }
    return { txHash };
  }

  async getProof(proofId: bigint): Promise<StoredProof | null> {
    const item = await getRegistryProof(this.address, toHex64(proofId));
    if (!item) return null;
    const { proof_id, proof_hash, zk_id, owner, timestamp } = item;
    return { proof_id, proof_hash, zk_id, owner, timestamp };
  }

  async verifyProofExists(proofId: bigint): Promise<boolean> {
    return (await this.getProof(proofId)) !== null;
  }

  async getEvents(opts: { fromBlock?: number; proofId?: bigint } = {}): Promise<ProofStoredEvent[]> {
    const wanted = opts.proofId === undefined ? undefined : toHex64(opts.proofId);
    return (await listRegistryEvents(this.address, opts.fromBlock ?? 0))
      .filter((e) => !wanted || e.proof_id === wanted)
      .map(({ proof_id, proof_hash, zk_id, owner, timestamp, blockNumber, transactionHash }) => ({
        proof_id,
        proof_hash,
        zk_id,
        owner,
        timestamp,
        blockNumber,
        transactionHash,
      }));
  }

  async getTransaction(txHash: string): Promise<LocalTransaction | null> {
    return (await getTransaction(toHex64(txHash))) ?? null;
  }

  /** The account's next nonce (what starknet_getNonce would answer). */
  async getNonce(): Promise<bigint> {
    return BigInt(await peekAccountNonce(this.accountAddress));
  }
}
