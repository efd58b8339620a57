// Proof byte format. Every field has a fixed size or a size determined by the parameters and the
// query positions (which the verifier derives from the transcript), so the parser accepts exactly
// one encoding: felts must be canonical (< p), no length prefixes, no padding, no trailing bytes.
import { writeFelt, readFelt } from './field.ts';
import { type Fp3, writeExt, readExt, EXT_BYTES } from './ext.ts';
import { DIGEST_BYTES } from './merkle.ts';
import type { FriLayerOpening } from './fri.ts';

export const PROOF_FORMAT_VERSION = 2;
export const SALT_BYTES = 16;

/** Merkle leaf of the trace / composition trees: salt || felts (row x then row -x). */
export function leafBytes(salt: Uint8Array, row: readonly bigint[]): Uint8Array {
  const out = new Uint8Array(SALT_BYTES + 8 * row.length);
  out.set(salt, 0);
  row.forEach((x, i) => writeFelt(out, SALT_BYTES + 8 * i, x));
  return out;
}

export interface ProofHeader {
  traceRoot: Uint8Array;
  compRoot: Uint8Array;
  friRoots: Uint8Array[];
  /** t_c(z) and t_c(g z) for each trace column. */
  oodTraceZ: Fp3[];
  oodTraceGz: Fp3[];
  /** H'_j(z) for each masked composition segment. */
  oodComp: Fp3[];
  remainder: Fp3[];
  nonce: bigint;
}
export interface ProofBody {
  /** Per query position (ascending): row x then row -x, trace columns; then the leaf salt. */
  traceRows: bigint[][];
  traceSalts: Uint8Array[];
  traceNodes: Uint8Array[];
  /** Per query position: row x then row -x, composition columns; then the leaf salt. */
  compRows: bigint[][];
  compSalts: Uint8Array[];
  compNodes: Uint8Array[];
  fri: FriLayerOpening[];
}
export interface HeaderShape {
  traceWidth: number;
  friLayers: number;
  segments: number;
  remainderDegree: number;
}
export interface BodyShape {
  queries: number;
  traceWidth: number;
  compWidth: number;
  traceNodes: number;
  compNodes: number;
  friLeaves: number[];
  friNodes: number[];
}

export class ByteWriter {
  private chunks: Uint8Array[] = [];
  private len = 0;
  bytes(b: Uint8Array): void {
    this.chunks.push(b);
    this.len += b.length;
  }
  u8(v: number): void {
    this.bytes(Uint8Array.of(v));
  }
  felts(xs: readonly bigint[]): void {
    const b = new Uint8Array(8 * xs.length);
    xs.forEach((x, i) => writeFelt(b, 8 * i, x));
    this.bytes(b);
  }
  exts(xs: readonly Fp3[]): void {
    const b = new Uint8Array(EXT_BYTES * xs.length);
    xs.forEach((x, i) => writeExt(b, EXT_BYTES * i, x));
    this.bytes(b);
  }
  u64(v: bigint): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, v, true);
    this.bytes(b);
  }
  finish(): Uint8Array {
    const out = new Uint8Array(this.len);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
}

/** Strict reader: every method throws on a short read or a non-canonical felt. */
export class ByteReader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}
  private take(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error('proof: truncated');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  u8(): number {
    return this.take(1)[0];
  }
  digest(): Uint8Array {
    return this.take(DIGEST_BYTES);
  }
  /** Salts are raw bytes: any value is valid, and each one is hashed into its Merkle leaf. */
  salt(): Uint8Array {
    return this.take(SALT_BYTES);
  }
  digests(n: number): Uint8Array[] {
    return Array.from({ length: n }, () => this.digest());
  }
  felts(n: number): bigint[] {
    const b = this.take(8 * n);
    return Array.from({ length: n }, (_, i) => {
      const v = readFelt(b, 8 * i);
      if (v === null) throw new Error('proof: non-canonical felt');
      return v;
    });
  }
  exts(n: number): Fp3[] {
    const b = this.take(EXT_BYTES * n);
    return Array.from({ length: n }, (_, i) => {
      const v = readExt(b, EXT_BYTES * i);
      if (v === null) throw new Error('proof: non-canonical felt');
      return v;
    });
  }
  u64(): bigint {
    const b = this.take(8);
    return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  }
  end(): void {
    if (this.pos !== this.buf.length) throw new Error('proof: trailing bytes');
  }
}

export function writeHeader(w: ByteWriter, h: ProofHeader): void {
  w.u8(PROOF_FORMAT_VERSION);
  w.bytes(h.traceRoot);
  w.bytes(h.compRoot);
  h.friRoots.forEach((r) => w.bytes(r));
  w.exts(h.oodTraceZ);
  w.exts(h.oodTraceGz);
  w.exts(h.oodComp);
  w.exts(h.remainder);
  w.u64(h.nonce);
}
export function readHeader(r: ByteReader, s: HeaderShape): ProofHeader {
  if (r.u8() !== PROOF_FORMAT_VERSION) throw new Error('proof: unknown format version');
  return {
    traceRoot: r.digest(),
    compRoot: r.digest(),
    friRoots: r.digests(s.friLayers),
    oodTraceZ: r.exts(s.traceWidth),
    oodTraceGz: r.exts(s.traceWidth),
    oodComp: r.exts(s.segments),
    remainder: r.exts(s.remainderDegree),
    nonce: r.u64(),
  };
}
export function writeBody(w: ByteWriter, b: ProofBody): void {
  b.traceRows.forEach((row, q) => {
    w.felts(row);
    w.bytes(b.traceSalts[q]);
  });
  b.traceNodes.forEach((n) => w.bytes(n));
  b.compRows.forEach((row, q) => {
    w.felts(row);
    w.bytes(b.compSalts[q]);
  });
  b.compNodes.forEach((n) => w.bytes(n));
  for (const layer of b.fri) {
    layer.pairs.forEach(([a, c]) => w.exts([a, c]));
    layer.nodes.forEach((n) => w.bytes(n));
  }
}
export function readBody(r: ByteReader, s: BodyShape): ProofBody {
  const traceRows: bigint[][] = [];
  const traceSalts: Uint8Array[] = [];
  for (let q = 0; q < s.queries; q++) {
    traceRows.push(r.felts(2 * s.traceWidth));
    traceSalts.push(r.salt());
  }
  const traceNodes = r.digests(s.traceNodes);
  const compRows: bigint[][] = [];
  const compSalts: Uint8Array[] = [];
  for (let q = 0; q < s.queries; q++) {
    compRows.push(r.felts(2 * s.compWidth));
    compSalts.push(r.salt());
  }
  const compNodes = r.digests(s.compNodes);
  const fri = s.friLeaves.map((leaves, i) => ({
    pairs: Array.from({ length: leaves }, () => {
      const [a, c] = r.exts(2);
      return [a, c] as [Fp3, Fp3];
    }),
    nodes: r.digests(s.friNodes[i]),
  }));
  return { traceRows, traceSalts, traceNodes, compRows, compSalts, compNodes, fri };
}
