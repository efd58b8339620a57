import type { Curve } from 'snarkjs';
// A deep import: ffjavascript's `exports` map lists only its entry, whose buildBn128 generates the
// curve's WebAssembly before building the engine; this is the engine alone (snarkjs's own copy).
import buildEngine from '../../node_modules/snarkjs/node_modules/ffjavascript/src/engine.js';
import { BN128_CODE, BN128_OFFSETS } from './bn128-wasm.ts';

const Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

/**
 * snarkjs's bn128 curve (ffjavascript's `buildBn128(false)`: the engine and its worker threads),
 * built from the precomputed module of lib/zk/bn128-wasm.ts instead of generating it, and put
 * where snarkjs looks for it (`globalThis.curve_bn128`), with the same `terminate`.
 */
export async function buildCachedBn128(): Promise<Curve> {
  const wasm = { ...BN128_OFFSETS, code: new Uint8Array(Buffer.from(BN128_CODE, 'base64')), n8q: 32, n8r: 32, q: Q, r: R };
  const params = {
    name: 'bn128',
    wasm,
    q: Q,
    r: R,
    n8q: 32,
    n8r: 32,
    cofactorG2: 0x30644e72e131a029b85045b68181585e06ceecda572a2489345f2299c0f9fa8dn,
    // In a Lambda bundle, one thread: ffjavascript's workers (the web-worker package starts the
    // bundle's own file as the worker) never answer there, and every proof check hung to the
    // function's timeout (npm run test:assets: attest and storage, 503 after 29 s; with this, 3 s).
    singleThread: Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME),
  };
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
