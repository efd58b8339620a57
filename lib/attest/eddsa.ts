// A deep import, as lib/zk/circomlib/*: circomlibjs's package entry pulls in every primitive.
import buildEddsa from '../../node_modules/circomlibjs/src/eddsa.js';
import { once } from '#lib/zk/circomlib/once.ts';

/**
 * EdDSA over Baby JubJub with Poseidon (circomlibjs `signPoseidon` / `verifyPoseidon`, the scheme
 * circomlib's EdDSAPoseidonVerifier checks in a circuit). Points and scalars cross this module as
 * decimal strings; circomlibjs's field values stay inside.
 */
export interface PointData {
  x: string;
  y: string;
}
export interface SignatureData {
  R8: PointData;
  S: string;
}

const eddsa = once(buildEddsa);

/** Built ahead of the first request (the build compiles several wasm modules: seconds). */
export const warmEddsa = async (): Promise<void> => void (await eddsa());

export async function publicKeyOf(privateKey: Uint8Array): Promise<PointData> {
  const e = await eddsa();
  const [x, y] = e.prv2pub(privateKey);
  return { x: e.babyJub.F.toObject(x).toString(), y: e.babyJub.F.toObject(y).toString() };
}

/** Signs a field element (the caller range-checks it: circomlibjs would reduce it). */
export async function signPoseidon(privateKey: Uint8Array, message: bigint): Promise<SignatureData> {
  const e = await eddsa();
  const F = e.babyJub.F;
  const sig = e.signPoseidon(privateKey, F.e(message));
  return { R8: { x: F.toObject(sig.R8[0]).toString(), y: F.toObject(sig.R8[1]).toString() }, S: sig.S.toString() };
}

/** false for anything that is not a valid signature of `message` by `publicKey` (never throws on bad values). */
export async function verifyPoseidon(message: bigint, sig: SignatureData, publicKey: PointData): Promise<boolean> {
  const e = await eddsa();
  const F = e.babyJub.F;
  const r = F.p;
  const values = [sig.R8.x, sig.R8.y, publicKey.x, publicKey.y].map((v) => BigInt(v));
  // circomlibjs reduces silently: a coordinate >= r would name another point, so refuse it here.
  if (values.some((v) => v < 0n || v >= r) || message < 0n || message >= r) return false;
  const S = BigInt(sig.S);
  const point = (x: bigint, y: bigint): [Uint8Array, Uint8Array] => [F.e(x), F.e(y)];
  const R8 = point(values[0]!, values[1]!);
  const A = point(values[2]!, values[3]!);
  // The subgroup checks circomlibjs leaves out: a small-order component would allow malleability.
  if (!e.babyJub.inSubgroup(R8) || !e.babyJub.inSubgroup(A)) return false;
  return e.verifyPoseidon(F.e(message), { R8, S }, A);
}
