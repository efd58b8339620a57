import type { Poseidon } from 'circomlibjs';
// A deep import, as in bn128-curve.ts: the engine alone of circomlibjs's ffjavascript (0.2.63), the
// copy its buildPoseidon builds on; the package entry's buildBn128 would generate the module first.
import buildEngine from '../../node_modules/ffjavascript/src/engine.js';
import { bn128EngineParams } from './bn128-engine.ts';
import { POSEIDON_CODE, POSEIDON_OFFSETS } from './poseidon-wasm.generated.ts';

type Fr = Poseidon['F'] & { zero: Uint8Array; e(v: unknown): Uint8Array };

/**
 * circomlibjs's wasm Poseidon (`buildPoseidon` of circomlibjs/src/poseidon_wasm.js) on the engine
 * it builds, single-threaded as there, from the precomputed module of lib/zk/poseidon-wasm.generated.ts
 * instead of generating it (wasmcurves's code, then every width's constants converted one by one).
 * The hash below is circomlibjs's own function, line for line; test/unit/zk/poseidon-wasm.test.ts
 * compares its outputs with circomlibjs's.
 */
export async function buildCachedPoseidon(): Promise<Poseidon> {
  const bn128 = await buildEngine(bn128EngineParams(POSEIDON_OFFSETS, POSEIDON_CODE, true));
  const F = (bn128 as unknown as { Fr: Fr }).Fr;
  const tm = bn128.tm;
  const pState = tm.alloc(32);
  const pIn = tm.alloc(32 * 16);
  const pOut = tm.alloc(32 * 17);

  const poseidon = (arr: unknown[] | Uint8Array, state?: unknown, nOut?: number) => {
    let buff: Uint8Array;
    let n: number;
    if (Array.isArray(arr)) {
      n = arr.length;
      buff = new Uint8Array(n * 32);
      for (let i = 0; i < n; i++) buff.set(F.e(arr[i]), i * 32);
    } else {
      buff = arr;
      n = buff.byteLength / 32;
      if (n * 32 !== buff.byteLength) throw new Error('Invalid iput buff size');
    }
    tm.setBuff(pIn, buff);
    if (n < 1 || n > 16) throw new Error('Invalid poseidon size');
    tm.setBuff(pState, state === undefined ? F.zero : F.e(state));
    const outs = nOut || 1;
    tm.instance.exports.poseidon!(pState, pIn, n, pOut, outs);
    if (outs === 1) return tm.getBuff(pOut, 32);
    const out: Uint8Array[] = [];
    for (let i = 0; i < outs; i++) out.push(tm.getBuff(pOut + i * 32, 32));
    return out;
  };
  poseidon.F = F;
  return poseidon as unknown as Poseidon;
}
