// Shared test helpers for the STARK suite (not a test file itself).
import { deriveShape, type StarkParams } from '../../../lib/stark/params.ts';
import { verifyStatement } from '../../../lib/stark/verifier.ts';
import { proveStatement } from '../../../lib/stark/prover.ts';
import { hashKey, WIDTH } from '../../../lib/stark/rpo.ts';
import { randomFelt } from '../../../lib/stark/field.ts';
import { statementFelts, CUSTODY_CLIENT, type Statement } from '../../../lib/stark/air.ts';
import { EXT_BYTES } from '../../../lib/stark/ext.ts';
import { SALT_BYTES } from '../../../lib/stark/serialize.ts';

/** Small parameters for exhaustive tests: every proof section is present, proofs are ~4 KB. */
export const SMALL_PARAMS: StarkParams = { traceLength: 32, blowup: 8, queries: 4, grindingBits: 2, friRemainderDegree: 4 };

export function randomStatement(): { sk: bigint[]; stmt: Statement; felts: bigint[] } {
  const sk = Array.from({ length: 4 }, () => randomFelt());
  const stmt: Statement = { keyHash: hashKey(sk), binding: Array.from({ length: 4 }, () => randomFelt()), expiry: 1_900_000_000n, custody: CUSTODY_CLIENT };
  return { sk, stmt, felts: statementFelts(stmt) };
}

export function proveRandom(params: StarkParams) {
  const s = randomStatement();
  return { ...s, proof: proveStatement(s.sk, s.stmt, params) };
}

export interface Section {
  name: string;
  start: number;
  end: number;
}
/** Byte ranges of every section of a valid proof, derived from its parsed contents. */
export function proofSections(proof: Uint8Array, felts: bigint[], params: StarkParams): Section[] {
  const r = verifyStatement(proof, felts, params);
  if (!r.ok) throw new Error('proofSections: proof does not verify: ' + r.reason);
  const shape = deriveShape(params);
  const sizes: [string, number][] = [
    ['version', 1],
    ['traceRoot', 32],
    ['compRoot', 32],
    ['friRoots', 32 * r.header.friRoots.length],
    ['oodTraceZ', EXT_BYTES * WIDTH],
    ['oodTraceGz', EXT_BYTES * WIDTH],
    ['oodComp', EXT_BYTES * shape.segments],
    ['remainder', EXT_BYTES * params.friRemainderDegree],
    ['nonce', 8],
    ['traceRows', (8 * 2 * WIDTH + SALT_BYTES) * r.positions.length],
    ['traceNodes', 32 * r.body.traceNodes.length],
    ['compRows', (8 * 2 * shape.compositionColumns + SALT_BYTES) * r.positions.length],
    ['compNodes', 32 * r.body.compNodes.length],
  ];
  r.body.fri.forEach((l, i) => {
    sizes.push([`fri${i + 1}Pairs`, 2 * EXT_BYTES * l.pairs.length], [`fri${i + 1}Nodes`, 32 * l.nodes.length]);
  });
  const out: Section[] = [];
  let o = 0;
  for (const [name, len] of sizes) {
    out.push({ name, start: o, end: o + len });
    o += len;
  }
  if (o !== proof.length) throw new Error(`proofSections: sections cover ${o} of ${proof.length} bytes`);
  return out;
}

/** A copy with one bit of byte i flipped (the bit rotates with i so all bit positions are exercised). */
export function flipped(proof: Uint8Array, i: number): Uint8Array {
  const c = proof.slice();
  c[i] ^= 1 << (i % 8);
  return c;
}
