import { addPoints, BASE8, inSubgroup, mulPoint, onCurve, SUB_ORDER, type Point } from '#lib/zk/babyjub.ts';
import { blake512 } from '#lib/zk/blake512.ts';
import { BN254_R } from '#lib/zk/bn254.ts';
import { poseidon } from '#lib/zk/poseidon.ts';

/**
 * EdDSA over Baby JubJub with Poseidon: circomlibjs's `signPoseidon` / `verifyPoseidon` (the scheme
 * circomlib's EdDSAPoseidonVerifier checks in a circuit), byte for byte, on the plain-bigint curve of
 * lib/zk/babyjub.ts and the process's one Poseidon (lib/zk/poseidon.ts). circomlibjs's own
 * `buildEddsa` builds two bn128 wasm curves plus Pedersen, MiMC7 and MiMCSponge, none of which this
 * scheme uses: seconds on a cold start. test/unit/attest/eddsa.test.ts compares every output with
 * circomlibjs's eddsa on fixed and random keys and messages. Points and scalars cross this module as
 * decimal strings.
 */
export interface PointData {
  x: string;
  y: string;
}
export interface SignatureData {
  R8: PointData;
  S: string;
}

const fromLE = (bytes: Uint8Array): bigint => {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
};
const toLE32 = (v: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
};
const data = (p: Point): PointData => ({ x: p.x.toString(), y: p.y.toString() });

/** The secret scalar s (the pruned low half of BLAKE-512(key), as circomlibjs's pruneBuffer) and the nonce prefix. */
function expand(privateKey: Uint8Array): { s: bigint; prefix: Uint8Array } {
  const h = blake512(privateKey);
  const low = h.slice(0, 32);
  low[0]! &= 0xf8;
  low[31]! &= 0x7f;
  low[31]! |= 0x40;
  return { s: fromLE(low), prefix: h.slice(32) };
}

const publicPoint = (s: bigint): Promise<Point> => mulPoint(BASE8, s >> 3n);

export async function publicKeyOf(privateKey: Uint8Array): Promise<PointData> {
  return data(await publicPoint(expand(privateKey).s));
}

/** Signs a field element (the caller range-checks it: circomlibjs would reduce it). */
export async function signPoseidon(privateKey: Uint8Array, message: bigint): Promise<SignatureData> {
  const { s, prefix } = expand(privateKey);
  const A = await publicPoint(s);
  const nonceInput = new Uint8Array(64);
  nonceInput.set(prefix, 0);
  nonceInput.set(toLE32(message), 32);
  const r = fromLE(blake512(nonceInput)) % SUB_ORDER;
  const R8 = await mulPoint(BASE8, r);
  const hm = await poseidon([R8.x, R8.y, A.x, A.y, message]);
  return { R8: data(R8), S: ((r + hm * s) % SUB_ORDER).toString() };
}

const DECIMAL = /^[0-9]{1,78}$/;

/** false for anything that is not a valid signature of `message` by `publicKey` (never throws on bad values). */
export async function verifyPoseidon(message: bigint, sig: SignatureData, publicKey: PointData): Promise<boolean> {
  const raw = [sig.R8.x, sig.R8.y, publicKey.x, publicKey.y, sig.S];
  if (!raw.every((v) => typeof v === 'string' && DECIMAL.test(v))) return false;
  const [r8x, r8y, ax, ay, S] = raw.map((v) => BigInt(v)) as [bigint, bigint, bigint, bigint, bigint];
  // circomlibjs reduces silently: a coordinate >= r would name another point, so refuse it here.
  if ([r8x, r8y, ax, ay, message].some((v) => v < 0n || v >= BN254_R) || S >= SUB_ORDER) return false;
  const R8 = { x: r8x, y: r8y };
  const A = { x: ax, y: ay };
  if (!onCurve(R8) || !onCurve(A)) return false;
  // The subgroup checks circomlibjs leaves out: a small-order component would allow malleability.
  if (!(await inSubgroup(R8)) || !(await inSubgroup(A))) return false;
  const hm = await poseidon([R8.x, R8.y, A.x, A.y, message]);
  const left = await mulPoint(BASE8, S);
  // circomlibjs multiplies A by 8·hm; A has order l (checked above), so 8·hm mod l is the same point.
  const right = await addPoints(R8, await mulPoint(A, (8n * hm) % SUB_ORDER));
  return left.x === right.x && left.y === right.y;
}
