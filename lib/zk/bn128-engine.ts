import { BN254_Q, BN254_R } from './bn254.ts';

/**
 * ffjavascript's engine parameters for bn128 (what its `buildBn128` passes to `buildEngine`), on a
 * precomputed module (lib/zk/curve-wasm-gen.ts) instead of one generated at run time: snarkjs's
 * curve (lib/zk/bn128-curve.ts) and circomlibjs's Poseidon (lib/zk/poseidon-curve.ts) build on it.
 */
export function bn128EngineParams(offsets: Record<string, number>, codeBase64: string, singleThread: boolean) {
  const wasm = { ...offsets, code: new Uint8Array(Buffer.from(codeBase64, 'base64')), n8q: 32, n8r: 32, q: BN254_Q, r: BN254_R };
  return {
    name: 'bn128',
    wasm,
    q: BN254_Q,
    r: BN254_R,
    n8q: 32,
    n8r: 32,
    cofactorG2: 0x30644e72e131a029b85045b68181585e06ceecda572a2489345f2299c0f9fa8dn,
    singleThread,
  };
}
