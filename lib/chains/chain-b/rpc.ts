import { Account, Contract, RpcProvider, type Call, type constants, type UniversalDetails } from 'starknet';
import { toHex, toHex64 } from './felts.ts';
import { acceptedReceipt } from './receipts.ts';
import {
  checkStoreProof,
  PROOF_REGISTRY_ABI,
  PROOF_STORED_SELECTOR,
  RegistryRevert,
  type ProofRegistry,
  type ProofStoredEvent,
  type RevertReason,
  type StoreProofArgs,
  type StoredProof,
} from './registry.ts';

export interface RpcRegistryOptions {
  rpcUrl: string;
  registryAddress: string;
  accountAddress: string;
  privateKey: string;
  chainId?: constants.StarknetChainId;
  /** Transport override (tests answer JSON-RPC offline with it). */
  fetch?: typeof fetch;
  /** Fixed execution details (tests); a deployment lets the node estimate fees and the nonce. */
  details?: UniversalDetails;
  /** How often to poll for the receipt (ms); default 2000. */
  pollIntervalMs?: number;
  /** How long `storeProof` waits for its receipt (ms); default 20 000, under the routes' 29 s. */
  receiptTimeoutMs?: number;
}

const REVERTS: RevertReason[] = ['proof already exists', 'zero proof hash', 'zero zk_id'];

/** Maps a node's revert message (the Cairo panic string) to the registry's reason. */
function asRevert(e: unknown): unknown {
  const text = e instanceof Error ? e.message : String(e);
  const reason = REVERTS.find((r) => text.includes(r));
  return reason ? new RegistryRevert(reason) : e;
}

/**
 * The proof registry on a real Starknet node: starknet.js v10 `Account` (the server's account,
 * which signs and pays) and `Contract` (calldata from the registry's ABI).
 */
export class RpcProofRegistry implements ProofRegistry {
  readonly adapter = 'rpc' as const;
  readonly address: string;
  readonly accountAddress: string;
  readonly provider: RpcProvider;
  readonly account: Account;
  readonly contract: Contract;
  readonly #details: UniversalDetails;
  readonly #pollMs: number;
  readonly #receiptTimeoutMs: number;

  constructor(opts: RpcRegistryOptions) {
    this.address = toHex64(opts.registryAddress);
    this.accountAddress = toHex64(opts.accountAddress);
    this.provider = new RpcProvider({ nodeUrl: opts.rpcUrl, chainId: opts.chainId, ...(opts.fetch ? { baseFetch: opts.fetch } : {}) });
    this.account = new Account({ provider: this.provider, address: this.accountAddress, signer: opts.privateKey, cairoVersion: '1' });
    this.contract = new Contract({ abi: PROOF_REGISTRY_ABI, address: this.address, providerOrAccount: this.account });
    this.#details = opts.details ?? {};
    this.#pollMs = opts.pollIntervalMs ?? 2000;
    this.#receiptTimeoutMs = opts.receiptTimeoutMs ?? 20_000;
  }

  /** The store_proof call as the ABI compiles it. */
  storeProofCall(args: StoreProofArgs): Call {
    return this.contract.populate('store_proof', { proof_id: args.proofId, proof_hash: args.proofHash, zk_id: args.zkId });
  }

  async storeProof(args: StoreProofArgs): Promise<{ txHash: string }> {
    checkStoreProof(args);
    try {
      const { transaction_hash } = await this.account.execute(this.storeProofCall(args), this.#details);
      // With a deadline: a slow chain is an error the route answers (CHAINB_ERROR), not a function cut off.
      const receipt = await acceptedReceipt(this.provider, transaction_hash, { pollMs: this.#pollMs, deadline: Date.now() + this.#receiptTimeoutMs });
      if (receipt.execution_status === 'REVERTED') throw new Error(receipt.revert_reason ?? 'transaction reverted');
      return { txHash: toHex64(transaction_hash) };
    } catch (e) {
      throw asRevert(e);
    }
  }

  async getProof(proofId: bigint): Promise<StoredProof | null> {
    const p = (await this.contract.call('get_proof', [proofId])) as { proof_hash: bigint; zk_id: bigint; owner: bigint; timestamp: bigint };
    if (BigInt(p.proof_hash) === 0n) return null; // Cairo storage default: never stored
    return {
      proof_id: toHex64(proofId),
      proof_hash: toHex64(p.proof_hash),
      zk_id: toHex64(p.zk_id),
      owner: toHex64(p.owner),
      timestamp: Number(p.timestamp),
    };
  }

  async verifyProofExists(proofId: bigint): Promise<boolean> {
    return Boolean(await this.contract.call('verify_proof_exists', [proofId]));
  }

  async getEvents(opts: { fromBlock?: number; proofId?: bigint } = {}): Promise<ProofStoredEvent[]> {
    const out: ProofStoredEvent[] = [];
    let continuation_token: string | undefined;
    do {
      const chunk = await this.provider.getEvents({
        address: this.address,
        keys: [[PROOF_STORED_SELECTOR], opts.proofId === undefined ? [] : [toHex(opts.proofId)]],
        from_block: { block_number: opts.fromBlock ?? 0 },
        to_block: 'latest',
        chunk_size: 100,
        continuation_token,
      });
      for (const e of chunk.events) {
        const [proof_hash, zk_id, owner, timestamp] = e.data;
        out.push({
          proof_id: toHex64(e.keys[1]!),
          proof_hash: toHex64(proof_hash!),
          zk_id: toHex64(zk_id!),
          owner: toHex64(owner!),
          timestamp: Number(BigInt(timestamp!)),
          blockNumber: Number(e.block_number ?? 0),
          transactionHash: toHex64(e.transaction_hash),
        });
      }
      continuation_token = chunk.continuation_token;
    } while (continuation_token);
    return out;
  }
}
