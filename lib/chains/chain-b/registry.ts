import { CallData, hash, type Abi, type Call, type ResourceBoundsBN } from 'starknet';
import { toHex, toHex64 } from './felts.ts';

/**
 * Chain B's proof registry, as a contract (see `proof_registry.cairo` beside this file):
 *
 *   store_proof(proof_id: felt252, proof_hash: felt252, zk_id: felt252)
 *       reverts on proof_hash == 0 ('zero proof hash'), zk_id == 0 ('zero zk_id') and an
 *       existing proof_id ('proof already exists'); stores Proof {proof_hash, zk_id,
 *       owner: caller, timestamp: block timestamp} and emits ProofStored.
 *   get_proof(proof_id: felt252) -> Proof        a zero Proof when absent (Cairo storage default)
 *   verify_proof_exists(proof_id: felt252) -> bool
 *   event ProofStored { #[key] proof_id, proof_hash, zk_id, owner: ContractAddress, timestamp: u64 }
 *
 * Two adapters implement it: `local` (the embedded default, over DynamoDB) and `rpc` (starknet.js).
 */
export interface StoreProofArgs {
  proofId: bigint;
  proofHash: bigint;
  zkId: bigint;
}

export interface StoredProof {
  proof_id: string;
  proof_hash: string;
  zk_id: string;
  /** The caller of store_proof: the server's account. */
  owner: string;
  /** Block timestamp, unix seconds (u64). */
  timestamp: number;
}

export interface ProofStoredEvent extends StoredProof {
  blockNumber: number;
  transactionHash: string;
}

export interface ProofRegistry {
  readonly adapter: 'local' | 'rpc';
  /** The registry contract's address (0x + 64 hex). */
  readonly address: string;
  /** The server's account, which signs and pays for store_proof. */
  readonly accountAddress: string;
  storeProof(args: StoreProofArgs): Promise<{ txHash: string }>;
  /** null where the contract answers a zero Proof. */
  getProof(proofId: bigint): Promise<StoredProof | null>;
  verifyProofExists(proofId: bigint): Promise<boolean>;
  getEvents(opts?: { fromBlock?: number; proofId?: bigint }): Promise<ProofStoredEvent[]>;
}

export type RevertReason = 'proof already exists' | 'zero proof hash' | 'zero zk_id';

/** A store_proof that the contract rejects (it would revert on chain). */
export class RegistryRevert extends Error {
  constructor(readonly reason: RevertReason) {
    super(`store_proof reverted: ${reason}`);
    this.name = 'RegistryRevert';
  }
}

/** The contract's checks, in the contract's order, before anything is written. */
export function checkStoreProof(args: StoreProofArgs): void {
  if (args.proofHash === 0n) throw new RegistryRevert('zero proof hash');
  if (args.zkId === 0n) throw new RegistryRevert('zero zk_id');
}

const FELT = 'core::felt252';
const ADDRESS = 'core::starknet::contract_address::ContractAddress';

/** The Cairo 1 ABI of `proof_registry.cairo` (what `scarb build` emits for it). */
export const PROOF_REGISTRY_ABI: Abi = [
  { type: 'impl', name: 'ProofRegistryImpl', interface_name: 'shroud::proof_registry::IProofRegistry' },
  {
    type: 'struct',
    name: 'shroud::proof_registry::Proof',
    members: [
      { name: 'proof_hash', type: FELT },
      { name: 'zk_id', type: FELT },
      { name: 'owner', type: ADDRESS },
      { name: 'timestamp', type: 'core::integer::u64' },
    ],
  },
  {
    type: 'enum',
    name: 'core::bool',
    variants: [
      { name: 'False', type: '()' },
      { name: 'True', type: '()' },
    ],
  },
  {
    type: 'interface',
    name: 'shroud::proof_registry::IProofRegistry',
    items: [
      {
        type: 'function',
        name: 'store_proof',
        inputs: [
          { name: 'proof_id', type: FELT },
          { name: 'proof_hash', type: FELT },
          { name: 'zk_id', type: FELT },
        ],
        outputs: [],
        state_mutability: 'external',
      },
      {
        type: 'function',
        name: 'get_proof',
        inputs: [{ name: 'proof_id', type: FELT }],
        outputs: [{ type: 'shroud::proof_registry::Proof' }],
        state_mutability: 'view',
      },
      {
        type: 'function',
        name: 'verify_proof_exists',
        inputs: [{ name: 'proof_id', type: FELT }],
        outputs: [{ type: 'core::bool' }],
        state_mutability: 'view',
      },
    ],
  },
  {
    type: 'event',
    name: 'shroud::proof_registry::ProofRegistry::ProofStored',
    kind: 'struct',
    members: [
      { name: 'proof_id', type: FELT, kind: 'key' },
      { name: 'proof_hash', type: FELT, kind: 'data' },
      { name: 'zk_id', type: FELT, kind: 'data' },
      { name: 'owner', type: ADDRESS, kind: 'data' },
      { name: 'timestamp', type: 'core::integer::u64', kind: 'data' },
    ],
  },
  {
    type: 'event',
    name: 'shroud::proof_registry::ProofRegistry::Event',
    kind: 'enum',
    variants: [{ name: 'ProofStored', type: 'shroud::proof_registry::ProofRegistry::ProofStored', kind: 'nested' }],
  },
];

/** keys[0] of a ProofStored event: sn_keccak of the variant name, as Cairo 1 emits it. */
export const PROOF_STORED_SELECTOR = toHex(hash.getSelectorFromName('ProofStored'));

/** The `store_proof` call, its calldata compiled as the ABI orders it. */
export function storeProofCall(registry: string, args: StoreProofArgs): Call {
  return {
    contractAddress: toHex64(registry),
    entrypoint: 'store_proof',
    calldata: CallData.compile([args.proofId, args.proofHash, args.zkId]),
  };
}

/**
 * Fixed fee bounds for the local chain (an RPC deployment estimates them instead): the server's
 * account declares what it is willing to pay; locally nothing is charged.
 */
export const LOCAL_RESOURCE_BOUNDS: ResourceBoundsBN = {
  l1_gas: { max_amount: 0n, max_price_per_unit: 0n },
  l2_gas: { max_amount: 0x1000000n, max_price_per_unit: 0x2540be400n },
  l1_data_gas: { max_amount: 0x400n, max_price_per_unit: 0x2540be400n },
};
