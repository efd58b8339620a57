/**
 * The slice of ffjavascript 0.3.1 (snarkjs's copy) and 0.2.63 (circomlibjs's), wasmcurves 0.2.2 and wasmbuilder 0.0.16
 * (untyped JavaScript) that lib/zk/bn128-curve.ts, poseidon-curve.ts and their generator (curve-wasm-gen.ts) use.
 */
declare module '*/ffjavascript/src/engine.js' {
  import type { Curve } from 'snarkjs';
  /** The engine's thread manager: the wasm instance's memory as its functions see it (lib/zk/poseidon-curve.ts). */
  export interface ThreadManager {
    terminate(): Promise<void>;
    alloc(bytes: number): number;
    setBuff(pointer: number, bytes: Uint8Array): void;
    getBuff(pointer: number, length: number): Uint8Array;
    instance: { exports: Record<string, (...args: number[]) => unknown> };
  }
  export default function buildEngine(params: unknown): Promise<Curve & { tm: ThreadManager }>;
}
declare module 'wasmcurves' {
  export function buildBn128(builder: unknown): void;
}
declare module 'wasmbuilder' {
  export class ModuleBuilder {
    setMemory(pages: number): void;
    build(): number[] | Uint8Array;
    modules: Record<string, Record<string, unknown>>;
  }
}
