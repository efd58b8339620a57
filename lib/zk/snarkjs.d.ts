/**
 * The slice of snarkjs 0.7.6 (untyped JavaScript) that the project calls. Curve objects are
 * ffjavascript's (points as Uint8Array buffers); files may be paths, bytes or in-memory files.
 */
declare module 'snarkjs' {
  export interface CurveGroup {
    /** The generator. */
    g: Uint8Array;
    fromObject(o: unknown): Uint8Array;
    isValid(p: Uint8Array): boolean;
    isZero(p: Uint8Array): boolean;
    timesScalar(p: Uint8Array, e: bigint): Uint8Array;
    add(a: Uint8Array, b: Uint8Array): Uint8Array;
    neg(p: Uint8Array): Uint8Array;
    double(p: Uint8Array): Uint8Array;
    toAffine(p: Uint8Array): Uint8Array;
    /** Coordinates as bigints (G2: pairs). */
    toObject(p: Uint8Array): bigint[];
  }
  export interface Curve {
    G1: CurveGroup;
    G2: CurveGroup;
    /** Whether the product of the pairings e(p₀, q₀)·e(p₁, q₁)·… is one (G1, G2 points alternating). */
    pairingEq(...points: Uint8Array[]): Promise<boolean>;
    terminate(): Promise<void>;
  }
  /** An in-memory file: snarkjs writes `data` into it. */
  export interface MemFile {
    type: 'mem';
    data?: Uint8Array;
  }
  export type FileLike = string | Uint8Array | MemFile;
  export interface Groth16Proof {
    pi_a: [string, string, string];
    pi_b: [[string, string], [string, string], [string, string]];
    pi_c: [string, string, string];
    protocol: 'groth16';
    curve: 'bn128';
  }

  export const curves: { getCurveFromName(name: string): Promise<Curve> };
  export const wtns: { calculate(input: unknown, wasm: FileLike, out: MemFile): Promise<void> };
  export const groth16: {
    prove(zkey: FileLike, wtns: FileLike): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    fullProve(input: unknown, wasm: FileLike, zkey: FileLike): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    verify(vkey: unknown, publicSignals: string[], proof: unknown): Promise<boolean>;
  };
}
