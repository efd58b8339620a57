import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as snarkjs from 'snarkjs';
import { createNote, type Note } from '#lib/client/transfer-note.ts';
import { proveWithdrawal } from '#lib/client/withdraw-proof.ts';
import { merklePath, poseidonHash1, poseidonHash2, type Hash2 } from '#lib/zk/merkle.ts';
import { poolSignal, recipientSignal } from '#lib/transfer/statement.ts';
import { artifactPath } from '#lib/zk/circuits.ts';
import { terminateCurves, verifyProof } from '#lib/zk/groth16.ts';

/**
 * The withdraw circuit (circuits/withdraw.circom) with its committed artifacts: a note in the tree
 * proves and verifies; a wrong path, a wrong nullifier or a wrong secret has no witness; a proof
 * does not verify for another root, nullifier hash, recipient or fee.
 */
let h: Hash2;
let note: Note;
let leaves: string[];
const RECIPIENT = 'Vote111111111111111111111111111111111111111';

beforeAll(async () => {
  h = await poseidonHash2();
  note = createNote('sol-1');
  leaves = ['11', '22', h(note.nullifier, note.secret).toString(), '33'];
});
afterAll(async () => terminateCurves());

/** The circuit's input for `note` at `index`, with parts replaced. */
async function input(over: Record<string, unknown> = {}) {
  const path = merklePath(h, leaves.map(BigInt), 2);
  return {
    root: path.root.toString(),
    nullifierHash: (await poseidonHash1())(note.nullifier).toString(),
    recipient: (await recipientSignal(RECIPIENT)).toString(),
    relayerFee: '0',
    pool: (await poolSignal('sol-1')).toString(),
    nullifier: note.nullifier.toString(),
    secret: note.secret.toString(),
    pathElements: path.pathElements.map(String),
    pathIndices: path.pathIndices.map(String),
    ...over,
  };
}

const fullProve = async (i: Record<string, unknown>) =>
  snarkjs.groth16.fullProve(i as never, artifactPath('withdraw', 'wasm'), artifactPath('withdraw', 'zkey'));

describe('withdraw circuit', () => {
  let proved: Awaited<ReturnType<typeof proveWithdrawal>>;

  it('proves a note in the tree; the public signals are [root, nullifierHash, recipient, relayerFee, pool]', async () => {
    proved = await proveWithdrawal(note, leaves, RECIPIENT, { relayerFee: 5n });
    const signals = [proved.root, proved.nullifierHash, (await recipientSignal(RECIPIENT)).toString(), '5', (await poolSignal('sol-1')).toString()];
    expect(await verifyProof('withdraw', proved.proof, signals)).toBe(true);
    expect(proved.root).toBe(merklePath(h, leaves.map(BigInt), 2).root.toString());
  });

  it('does not verify for another root, nullifier hash, recipient, fee or pool', async () => {
    const good = [proved.root, proved.nullifierHash, (await recipientSignal(RECIPIENT)).toString(), '5', (await poolSignal('sol-1')).toString()];
    for (const i of [0, 1, 2, 3, 4]) {
      const bad = [...good];
      bad[i] = (BigInt(bad[i]!) + 1n).toString();
      expect(await verifyProof('withdraw', proved.proof, bad), `signal ${i}`).toBe(false);
    }
    // The same note's proof, made for sol-1, is refused as a withdrawal from any other pool.
    for (const other of ['sol-0.1', 'sol-10', 'token-1']) {
      const elsewhere = [...good.slice(0, 4), (await poolSignal(other)).toString()];
      expect(await verifyProof('withdraw', proved.proof, elsewhere), other).toBe(false);
    }
  });

  it('has no witness for a wrong path, a wrong nullifier, a wrong secret or a non-bit index', async () => {
    const good = await input();
    const wrongSibling = [...good.pathElements];
    wrongSibling[0] = '12';
    const flipped = [...good.pathIndices];
    flipped[0] = flipped[0] === '0' ? '1' : '0';
    const cases: [string, Record<string, unknown>][] = [
      ['wrong sibling', { pathElements: wrongSibling }],
      ['wrong side', { pathIndices: flipped }],
      ['wrong nullifier', { nullifier: (note.nullifier + 1n).toString() }],
      ['nullifier hash of another nullifier', { nullifierHash: (await poseidonHash1())(note.nullifier + 1n).toString() }],
      ['wrong secret', { secret: (note.secret + 1n).toString() }],
      ['another root', { root: h(1n, 2n).toString() }],
      ['index 2', { pathIndices: ['2', ...good.pathIndices.slice(1)] }],
    ];
    await expect(fullProve(good)).resolves.toBeDefined();
    for (const [name, over] of cases) {
      await expect(fullProve({ ...good, ...over }), name).rejects.toThrow();
    }
  });
});
