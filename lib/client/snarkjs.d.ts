/**
 * Types for the part of snarkjs 0.7 that lib/client calls (the package ships no declarations).
 * Written as namespaces and functions so that another declaration of this module merges with it.
 */
declare module 'snarkjs' {
  export interface Groth16Proof {
    pi_a: string[];
    pi_b: string[][];
    pi_c: string[];
    protocol: string;
    curve: string;
  }

  export namespace groth16 {
    /** Witness and proof in one call; `wasm` and `zkey` are bytes, or a path (Node) / URL (browser). */
    function fullProve(
      input: unknown,
      wasm: Uint8Array | string,
      zkey: Uint8Array | string,
    ): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
  }
}
