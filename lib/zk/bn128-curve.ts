import type { Curve } from 'snarkjs';
// A deep import: ffjavascript's `exports` map lists only its entry, whose buildBn128 generates the
// curve's WebAssembly before building the engine; this is the engine alone (snarkjs's own copy).
import buildEngine from '../../node_modules/snarkjs/node_modules/ffjavascript/src/engine.js';
import { bn128EngineParams } from './bn128-engine.ts';
import { BN128_CODE, BN128_OFFSETS } from './bn128-wasm.generated.ts';

/**
 * snarkjs's bn128 curve (ffjavascript's `buildBn128(false)`: the engine and its worker threads),
 * built from the precomputed module of lib/zk/bn128-wasm.generated.ts instead of generating it, and put
 * where snarkjs looks for it (`globalThis.curve_bn128`), with the same `terminate`.
 */
export async function buildCachedBn128(): Promise<Curve> {
  // In a Lambda bundle, one thread: ffjavascript's workers (the web-worker package starts the
  // bundle's own file as the worker) never answer there, and every proof check hung to the
  // function's timeout (npm run test:assets: attest and storage, 503 after 29 s; with this, 3 s).
  const params = bn128EngineParams(BN128_OFFSETS, BN128_CODE, Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME));
  const curve = await buildEngine(params);
  const g = globalThis as { curve_bn128?: Curve | null };
  curve.terminate = async () => {
    if (g.curve_bn128 === curve) g.curve_bn128 = null;
    // A single-threaded engine has no workers, and its thread manager's terminate throws reading them
    // (ffjavascript's own buildBn128 skips it so too).
    if (!params.singleThread) await curve.tm.terminate();
  };
  g.curve_bn128 = curve;
  return curve;
}
