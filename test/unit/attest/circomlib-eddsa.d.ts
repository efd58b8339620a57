/** circomlibjs's EdDSA module (untyped JavaScript), imported by path: the reference test/unit/attest/eddsa.test.ts compares lib/attest/eddsa.ts with. */
declare module '*/circomlibjs/src/eddsa.js' {
  import type { BabyJub, CurvePoint, FieldValue, Poseidon } from 'circomlibjs';
  export interface EddsaSignature {
    R8: CurvePoint;
    S: bigint;
  }
  export interface Eddsa {
    readonly babyJub: BabyJub;
    readonly poseidon: Poseidon;
    prv2pub(prv: Uint8Array): CurvePoint;
    signPoseidon(prv: Uint8Array, msg: FieldValue): EddsaSignature;
    verifyPoseidon(msg: FieldValue, sig: EddsaSignature, A: CurvePoint): boolean;
  }
  export default function buildEddsa(): Promise<Eddsa>;
}
