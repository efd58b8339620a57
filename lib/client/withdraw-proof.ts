import { merklePath, poseidonHash1, poseidonHash2 } from '#lib/zk/merkle.ts';
import { poolSignal, recipientSignal } from '#lib/transfer/statement.ts';
import type { Note } from './transfer-note.ts';

/**
 * What a client runs to withdraw a note: rebuild the pool's tree from its public leaves
 * (`GET /api/transfer/pools/:id/leaves?from=`), take the note's Merkle path, and prove with the
 * `withdraw` circuit (snarkjs, in the client's own process) that the note is in the tree under
 * that root, binding the pool, the recipient and the relayer fee. The result is the body of
 * `POST /api/transfer/withdraw`; the note itself never leaves the client.
 */
export const WITHDRAW_CIRCUIT = 'withdraw';

export interface WithdrawArtifacts {
  /** The witness generator and the proving key: bytes, or a path (Node) / URL (browser). */
  wasm: Uint8Array | string;
  zkey: Uint8Array | string;
}

export interface WithdrawRequest {
  pool: string;
  proof: { pi_a: string[]; pi_b: string[][]; pi_c: string[]; protocol: 'groth16'; curve: 'bn128' };
  root: string;
  nullifierHash: string;
  recipient: string;
  relayerFee: string;
}

/** Every leaf of a pool, in order, through its leaves route (`getJson` is the client's GET). */
export async function fetchLeaves(getJson: (path: string) => Promise<{ leaves: string[]; size: number }>, pool: string): Promise<string[]> {
  const leaves: string[] = [];
  for (;;) {
    const page = await getJson(`/api/transfer/pools/${encodeURIComponent(pool)}/leaves?from=${leaves.length}`);
    leaves.push(...page.leaves);
    if (page.leaves.length === 0 || leaves.length >= page.size) return leaves;
  }
}

async function defaultArtifacts(): Promise<WithdrawArtifacts> {
  const { artifactPath } = await import('#lib/zk/circuits.ts');
  return { wasm: artifactPath(WITHDRAW_CIRCUIT, 'wasm'), zkey: artifactPath(WITHDRAW_CIRCUIT, 'zkey') };
}

/**
 * The withdrawal of `note` to `recipient` (a chain A address) with `relayerFee` smallest units
 * kept by the pool, proved against the tree of `leaves`. Throws when the note is not in them.
 */
export async function proveWithdrawal(
  note: Note,
  leaves: string[],
  recipient: string,
  options: { relayerFee?: bigint; artifacts?: WithdrawArtifacts } = {},
): Promise<WithdrawRequest> {
  const h2 = await poseidonHash2();
  const commitment = h2(note.nullifier, note.secret);
  const tree = leaves.map(BigInt);
  const index = tree.indexOf(commitment);
  if (index < 0) throw new Error('the note is not in these leaves (not deposited, or the leaves are stale)');
  const path = merklePath(h2, tree, index);
  const nullifierHash = (await poseidonHash1())(note.nullifier);
  const relayerFee = options.relayerFee ?? 0n;
  const input = {
    root: path.root.toString(),
    nullifierHash: nullifierHash.toString(),
    recipient: (await recipientSignal(recipient)).toString(),
    relayerFee: relayerFee.toString(),
    pool: (await poolSignal(note.pool)).toString(),
    nullifier: note.nullifier.toString(),
    secret: note.secret.toString(),
    pathElements: path.pathElements.map(String),
    pathIndices: path.pathIndices.map(String),
  };
  const { wasm, zkey } = options.artifacts ?? (await defaultArtifacts());
  // snarkjs loads here, not with the module (seconds of start-up for whoever imports this).
  const snarkjs = await import('snarkjs'); // typed by lib/zk/snarkjs.d.ts
  const { proof } = await snarkjs.groth16.fullProve(input, wasm, zkey);
  return {
    pool: note.pool,
    proof: { pi_a: proof.pi_a, pi_b: proof.pi_b, pi_c: proof.pi_c, protocol: 'groth16', curve: 'bn128' },
    root: input.root,
    nullifierHash: input.nullifierHash,
    recipient,
    relayerFee: input.relayerFee,
  };
}
