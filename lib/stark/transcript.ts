// Fiat–Shamir transcript: a SHA-256 hash chain. Every absorb and every squeeze replaces the state,
// so each challenge depends on everything absorbed before it and on all earlier challenges.
import { sha256, sha256Short, leadingZeroBitsWords, utf8 } from './sha256.ts';
import { P, feltsToBytes } from './field.ts';
import { type Fp3, extsToBytes } from './ext.ts';

const ABSORB = Uint8Array.of(1);
const SQUEEZE = Uint8Array.of(2);
const POW = 3;

function u32(n: number): Uint8Array {
  return Uint8Array.of(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}
function readU64(b: Uint8Array, o: number): bigint {
  const lo = (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
  const hi = (b[o + 4] | (b[o + 5] << 8) | (b[o + 6] << 16) | (b[o + 7] << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

export class Transcript {
  private state: Uint8Array;
  constructor(domain: string) {
    const d = utf8(domain);
    this.state = sha256(utf8('shroud-stark/transcript/v2'), u32(d.length), d);
  }
  absorb(data: Uint8Array): void {
    this.state = sha256(this.state, ABSORB, u32(data.length), data);
  }
  absorbFelts(xs: readonly bigint[]): void {
    this.absorb(feltsToBytes(xs));
  }
  absorbExts(xs: readonly Fp3[]): void {
    this.absorb(extsToBytes(xs));
  }
  private squeeze(): Uint8Array {
    this.state = sha256(this.state, SQUEEZE);
    return this.state;
  }
  /** Uniform felt by rejection sampling (bias-free). */
  drawFelt(): bigint {
    for (;;) {
      const v = readU64(this.squeeze(), 0);
      if (v < P) return v;
    }
  }
  drawExt(): Fp3 {
    return [this.drawFelt(), this.drawFelt(), this.drawFelt()];
  }
  /**
   * Grinding: leading zero bits of SHA-256(state || 0x03 || nonce as u64 LE).
   * `powWork` returns the smallest nonce ≥ 0 meeting `bits` (prover); `powBits` checks one (verifier).
   */
  powBits(nonce: bigint): number {
    const msg = new Uint8Array(41);
    msg.set(this.state, 0);
    msg[32] = POW;
    new DataView(msg.buffer).setBigUint64(33, nonce, true);
    const out = new Int32Array(8);
    sha256Short(msg, out);
    return leadingZeroBitsWords(out);
  }
  powWork(bits: number): bigint {
    const msg = new Uint8Array(41);
    msg.set(this.state, 0);
    msg[32] = POW;
    const out = new Int32Array(8);
    // Nonces below 2^32 suffice (expected 2^bits attempts, bits ≤ 30); the upper 4 bytes stay zero.
    for (let lo = 0; lo < 2 ** 32; lo++) {
      msg[33] = lo & 0xff;
      msg[34] = (lo >>> 8) & 0xff;
      msg[35] = (lo >>> 16) & 0xff;
      msg[36] = lo >>> 24;
      sha256Short(msg, out);
      if (leadingZeroBitsWords(out) >= bits) return BigInt(lo);
    }
    throw new Error('transcript: grinding failed');
  }
  /** `count` distinct positions in [0, domainSize) (domainSize a power of two ≤ 2^32), in draw order. */
  drawDistinctIndices(count: number, domainSize: number): number[] {
    if (count > domainSize) throw new Error('transcript: more queries than positions');
    const seen = new Set<number>();
    const out: number[] = [];
    const mask = domainSize - 1;
    while (out.length < count) {
      const h = this.squeeze();
      for (let i = 0; i < 8 && out.length < count; i++) {
        const v = ((h[4 * i] | (h[4 * i + 1] << 8) | (h[4 * i + 2] << 16) | (h[4 * i + 3] << 24)) >>> 0) & mask;
        if (!seen.has(v)) {
          seen.add(v);
          out.push(v);
        }
      }
    }
    return out;
  }
}
