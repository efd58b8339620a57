import { describe, expect, it } from 'vitest';
import * as snarkjs from 'snarkjs';
import { BN128_CODE, BN128_OFFSETS } from '#lib/zk/bn128-wasm.generated.ts';
import { bn128WasmFromSource } from '#lib/zk/curve-wasm-gen.ts';
import { generateProof, terminateCurves, verifyProof } from '#lib/zk/groth16.ts';

/**
 * The precomputed BN254 module (lib/zk/bn128-wasm.generated.ts) is the one ffjavascript generates at run
 * time: a wasmcurves update that changes it fails here (regenerate with lib/zk/curve-wasm-gen.ts).
 */
describe('the precomputed bn128 WebAssembly module', () => {
  it('is byte for byte what wasmcurves generates, with the same offsets', () => {
    const { code, ...offsets } = bn128WasmFromSource();
    expect(offsets).toEqual(BN128_OFFSETS);
    expect(code === BN128_CODE).toBe(true);
  });

  it('is the curve snarkjs then uses: a pairing identity holds, a proof made and checked with it verifies, a forged one does not', async () => {
    await terminateCurves();
    const { proof, publicSignals } = await generateProof('preimage', { secret: '5' });
    expect(await verifyProof('preimage', proof, publicSignals)).toBe(true);
    expect(await verifyProof('preimage', proof, [(BigInt(publicSignals[0]!) + 1n).toString()])).toBe(false);
    const c = await snarkjs.curves.getCurveFromName('bn128');
    expect(await c.pairingEq(c.G1.g, c.G2.g, c.G1.neg(c.G1.g), c.G2.g)).toBe(true);
    await terminateCurves();
  });

  it('built single-threaded, as in a Lambda, it verifies and then terminates (no worker threads to stop)', async () => {
    await terminateCurves();
    const { proof, publicSignals } = await generateProof('preimage', { secret: '6' });
    await terminateCurves();
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'bn128-wasm-test';
    try {
      expect(await verifyProof('preimage', proof, publicSignals)).toBe(true);
      const c = (globalThis as { curve_bn128?: { tm: { singleThread?: boolean } } | null }).curve_bn128;
      expect(c?.tm.singleThread).toBe(true);
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
    await expect(terminateCurves()).resolves.toBeUndefined();
  });
});
