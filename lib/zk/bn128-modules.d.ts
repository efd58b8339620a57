/**
 * The slice of ffjavascript 0.3.1 (snarkjs's copy), wasmcurves 0.2.2 and wasmbuilder 0.0.16
 * (untyped JavaScript) that lib/zk/bn128-curve.ts and bn128-wasm-gen.ts use.
 */
declare module '*/ffjavascript/src/engine.js' {
  import type { Curve } from 'snarkjs';
  export default function buildEngine(params: unknown): Promise<Curve & { tm: { terminate(): Promise<void> } }>;
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
