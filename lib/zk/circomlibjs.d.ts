/**
 * The slice of circomlibjs 0.1.7 (untyped JavaScript) that lib/zk uses. Field elements are
 * ffjavascript WasmField1 values: 32-byte Montgomery-form buffers, converted with `F.e` (which
 * REDUCES mod r silently: range-check first) and `F.toObject` (→ canonical bigint).
 */
declare module 'circomlibjs' {
  export type FieldValue = Uint8Array;
  export type Scalarish = bigint | number | string;

  export interface WasmField {
    readonly p: bigint;
    readonly zero: FieldValue;
    readonly one: FieldValue;
    e(v: Scalarish): FieldValue;
    toObject(a: FieldValue): bigint;
    toString(a: FieldValue, radix?: number): string;
    eq(a: FieldValue, b: FieldValue): boolean;
    isZero(a: FieldValue): boolean;
  }

  export type CurvePoint = [FieldValue, FieldValue];

  export interface BabyJub {
    readonly F: WasmField;
    readonly p: bigint;
    readonly order: bigint;
    readonly subOrder: bigint;
    readonly A: FieldValue;
    readonly D: FieldValue;
    readonly Generator: CurvePoint;
    readonly Base8: CurvePoint;
    addPoint(a: CurvePoint, b: CurvePoint): CurvePoint;
    mulPointEscalar(base: CurvePoint, e: bigint | number): CurvePoint;
    inCurve(p: CurvePoint): boolean;
    inSubgroup(p: CurvePoint): boolean;
    packPoint(p: CurvePoint): Uint8Array;
    /** Mutates `buf` (clears the sign bit): pass a copy. */
    unpackPoint(buf: Uint8Array): CurvePoint | null;
  }

  export interface Poseidon {
    (inputs: Scalarish[], initState?: Scalarish, nOut?: number): FieldValue;
    readonly F: WasmField;
  }

  export interface Mimc7 {
    readonly F: WasmField;
    hash(x: Scalarish | FieldValue, k: Scalarish | FieldValue): FieldValue;
    multiHash(arr: Scalarish[], key?: Scalarish): FieldValue;
  }

  export interface PedersenHash {
    readonly babyJub: BabyJub;
    hash(msg: Uint8Array, options?: { baseHash?: 'blake' | 'blake2b' }): Uint8Array;
  }

  export function buildBabyjub(): Promise<BabyJub>;
  export function buildPoseidon(): Promise<Poseidon>;
  export function buildMimc7(): Promise<Mimc7>;
  export function buildPedersenHash(): Promise<PedersenHash>;
}

/*
 * circomlibjs's own modules, imported by path (lib/zk/circomlib/*): the package entry pulls in
 * every primitive. The same types as the entry's.
 */
declare module '*/circomlibjs/src/poseidon_wasm.js' {
  import type { Poseidon } from 'circomlibjs';
  export function buildPoseidon(): Promise<Poseidon>;
  /** Adds the Poseidon functions and their constants to a wasmbuilder module (lib/zk/curve-wasm-gen.ts). */
  export function buildPoseidonWasm(builder: unknown): void;
}
declare module '*/circomlibjs/src/babyjub.js' {
  import type { BabyJub } from 'circomlibjs';
  export default function buildBabyjub(): Promise<BabyJub>;
}
declare module '*/circomlibjs/src/mimc7.js' {
  import type { Mimc7 } from 'circomlibjs';
  export default function buildMimc7(): Promise<Mimc7>;
}
declare module '*/circomlibjs/src/pedersen_hash.js' {
  import type { PedersenHash } from 'circomlibjs';
  export default function buildPedersenHash(): Promise<PedersenHash>;
}
