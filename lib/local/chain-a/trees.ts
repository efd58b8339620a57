import { createHash } from 'node:crypto';
import { TreeType, type TreeInfo } from '@lightprotocol/stateless.js';
import { ComputeBudgetProgram, type Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';

/**
 * The local chain A's state trees beyond the five it starts with.
 *
 * A V2 (batched) state tree takes new compressed accounts into its output queue, two batches of a
 * fixed size; a forester empties the queue into the tree with a zero-knowledge batch proof from
 * Light's prover, which does not run here. So a queue, once full, refuses every further account
 * (`BatchNotReady`, 14301). The network meets a tree that fills as Light's operators do: new
 * trees are registered with the registry program's own `initialize_batched_state_merkle_tree`
 * (permissionless for trees forested by Light, at the protocol's network fee), and clients pick an
 * output tree from the active list, sending the outputs of accounts they spend from a full tree to
 * its `nextTreeInfo` (stateless.js `selectStateTreeInfo`, `getOutputTreeInfo`). Here the chain
 * registers a tree when fewer than `MIN_OPEN_TREES` have room (chain.ts), and the RPC lists the
 * trees with room first and points each full one at an open one (rpc.ts `getStateTreeInfos`).
 *
 * A tree's input queue (the nullifiers of the accounts spent from it) is as large as its output
 * queue, and an account is spent once, so every account a tree took can be spent from it.
 */

const REGISTRY = new PublicKey('Lighton6oQpVkeewmo2mcPTQQp7kYHr4fWpAgJyEmDX');
const ACCOUNT_COMPRESSION = new PublicKey('compr6CUsB5m2jS4Y3831ztGSTnDpnKJTKS95d64XVq');
const LIGHT_SYSTEM = new PublicKey('SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7');
/** The account compression program's registration of the registry (its CPI signer may create trees). */
const REGISTERED_REGISTRY = new PublicKey('DumMsyvkaGJG4QnQ1BhTgvoRMXsgGxfpKDUCr22Xqu4w');
/** The registry's protocol config (network fee 5,000, CPI context size 20,488 in the CLI's accounts). */
const PROTOCOL_CONFIG = new PublicKey('CuEtcKkkbTn6qy2qxqDswq5U2ADsqoipYDAYfRvxPjcp');
const CPI_CONTEXT_SIZE = 20_488;
const NETWORK_FEE = 5_000n;
const INITIALIZE = createHash('sha256').update('global:initialize_batched_state_merkle_tree').digest().subarray(0, 8);

/** Fewer trees with room than this and the chain registers another. */
export const MIN_OPEN_TREES = 2;

/**
 * A tree's size: accounts per output (and input) queue batch, two batches. The five initial trees
 * have 50; new ones 500 (Light's `e2e_test_default`), with the initial trees' bloom filter (160,000
 * bits: a false positive, which would refuse a valid spend, about 1 in 10^6 at a full batch).
 * `bytes` are the tree and queue account sizes the program requires for these parameters
 * (measured: the program refuses any other size, `InvalidAccountSize` 20004).
 */
export interface TreeConfig {
  batchSize: number;
  treeBytes: number;
  queueBytes: number;
}
export const DEFAULT_TREE_CONFIG: TreeConfig = { batchSize: 500, treeBytes: 50_336, queueBytes: 35_816 };
/** The initial trees' own parameters (tests: a new tree fills after 100 accounts). */
export const SMALL_TREE_CONFIG: TreeConfig = { batchSize: 50, treeBytes: 47_456, queueBytes: 4_136 };

const u64 = (n: number | bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

/** `InitStateTreeAccountsInstructionData` (light-batched-merkle-tree), Borsh. */
function initParams(index: number, config: TreeConfig): Buffer {
  const none = Buffer.from([0]);
  const some = (v: bigint) => Buffer.concat([Buffer.from([1]), u64(v)]);
  return Buffer.concat([
    u64(index),
    none, // program_owner
    none, // forester: Light's foresters, at the network fee
    u64(CPI_CONTEXT_SIZE), // additional_bytes
    u64(config.batchSize), // input queue batch
    u64(config.batchSize), // output queue batch
    u64(10), // input zkp batch
    u64(10), // output zkp batch
    u64(3), // bloom filter iterations
    u64(160_000), // bloom filter capacity (bits)
    u32(200), // root history
    some(NETWORK_FEE),
    some(95n), // rollover threshold (%)
    none, // close threshold
    u32(32), // height
  ]);
}

export interface NewTree {
  tree: Keypair;
  queue: Keypair;
  cpiContext: Keypair;
}

/** The instructions that create and register one tree, its output queue and its CPI context; `payer` pays their rent. */
export function registerTreeInstructions(
  payer: PublicKey,
  keys: NewTree,
  index: number,
  config: TreeConfig,
  rent: (bytes: number) => number,
): TransactionInstruction[] {
  const [cpiAuthority, bump] = PublicKey.findProgramAddressSync([Buffer.from('cpi_authority')], REGISTRY);
  const params = initParams(index, config);
  const create = (account: Keypair, space: number, programId: PublicKey) =>
    SystemProgram.createAccount({ fromPubkey: payer, newAccountPubkey: account.publicKey, lamports: rent(space), space, programId });
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units: 400_000 }),
    create(keys.tree, config.treeBytes, ACCOUNT_COMPRESSION),
    create(keys.queue, config.queueBytes, ACCOUNT_COMPRESSION),
    create(keys.cpiContext, CPI_CONTEXT_SIZE, LIGHT_SYSTEM),
    new TransactionInstruction({
      programId: REGISTRY,
      keys: [
        { pubkey: payer, isSigner: true, isWritable: true },
        { pubkey: keys.tree.publicKey, isSigner: false, isWritable: true },
        { pubkey: keys.queue.publicKey, isSigner: false, isWritable: true },
        { pubkey: REGISTERED_REGISTRY, isSigner: false, isWritable: false },
        { pubkey: cpiAuthority, isSigner: false, isWritable: true },
        { pubkey: ACCOUNT_COMPRESSION, isSigner: false, isWritable: false },
        { pubkey: PROTOCOL_CONFIG, isSigner: false, isWritable: false },
        { pubkey: keys.cpiContext.publicKey, isSigner: false, isWritable: true },
        { pubkey: LIGHT_SYSTEM, isSigner: false, isWritable: false },
      ],
      data: Buffer.concat([INITIALIZE, Buffer.from([bump]), u32(params.length), params]),
    }),
  ];
}

/** Lamports a registration needs: the three accounts' rent and the fee, with room to spare. */
export function registrationCost(config: TreeConfig, rent: (bytes: number) => number): bigint {
  return BigInt(rent(config.treeBytes) + rent(config.queueBytes) + rent(CPI_CONTEXT_SIZE)) + 1_000_000n;
}

/** The tree a landed transaction (rpc.ts `LedgerTransaction`) registered: the registry's instruction, top level; if any. */
export function registeredTree(tx: {
  accountKeys: string[];
  instructions: { programIdIndex: number; accounts: number[]; data: string }[];
}): TreeInfo | undefined {
  const registry = REGISTRY.toBase58();
  for (const ix of tx.instructions) {
    if (tx.accountKeys[ix.programIdIndex] !== registry) continue;
    if (!Buffer.from(ix.data, 'base64').subarray(0, 8).equals(INITIALIZE)) continue;
    const key = (i: number) => new PublicKey(tx.accountKeys[ix.accounts[i]!]!);
    return { tree: key(1), queue: key(2), cpiContext: key(7), treeType: TreeType.StateV2, nextTreeInfo: null };
  }
  return undefined;
}

/**
 * Room left in a V2 output queue: batches × batch size − accounts ever inserted (BatchedQueueMetadata:
 * `num_batches` at byte 232, `batch_size` 240, `next_index` 280). Without a forester no batch is
 * ever emptied, so what was inserted stays counted.
 */
export function queueRoom(queue: Buffer): { room: number; capacity: number } {
  const capacity = Number(queue.readBigUInt64LE(232) * queue.readBigUInt64LE(240));
  return { room: capacity - Number(queue.readBigUInt64LE(280)), capacity };
}

/** A tree counts as open while it has room for this share of its queue: transactions built on it before it filled still land. */
export const OPEN_MARGIN = 0.1;
