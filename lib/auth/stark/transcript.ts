// Fiat–Shamir transcript: a SHA-256 hash chain. Every absorb and every squeeze replaces the state,
// so each challenge depends on everything absorbed before it and on all earlier challenges.
import { createHash, hash } from 'node:crypto';
import { sha256Short, leadingZeroBitsWords } from './sha256.ts';
import { P, feltsToBytes } from './field.ts';
import { type Fp2, extsToBytes } from './ext.ts';

const ABSORB = Buffer.from([1]);
const SQUEEZE = Buffer.from([2]);
const POW = Buffer.from([3]);

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

export class Transcript {
  private state: Buffer;
  constructor(domain: string) {
    const d = Buffer.from(domain, 'utf8');
    this.state = createHash('sha256').update('shroud-stark/transcript/v1').update(u32(d.length)).update(d).digest();
  }
  absorb(data: Uint8Array): void {
    this.state = hash('sha256', Buffer.concat([this.state, ABSORB, u32(data.length), data]), 'buffer');
  }
  absorbFelts(xs: readonly bigint[]): void {
    this.absorb(feltsToBytes(xs));
  }
  absorbExts(xs: readonly Fp2[]): void {
    this.absorb(extsToBytes(xs));
  }
  private squeeze(): Buffer {
    this.state = hash('sha256', Buffer.concat([this.state, SQUEEZE]), 'buffer');
    return this.state;
  }
  /** Uniform felt by rejection sampling (bias-free). */
  drawFelt(): bigint {
    for (;;) {
      const v = this.squeeze().readBigUInt64LE(0);
      if (v < P) return v;
    }
  }
  drawExt(): Fp2 {
    return [this.drawFelt(), this.drawFelt()];
  }
  /**
   * Grinding: leading zero bits of SHA-256(state || 0x03 || nonce as u64 LE).
   * `powWork` returns the smallest nonce ≥ start meeting `bits` (prover); `powBits` checks one (verifier).
   */
  powBits(nonce: bigint): number {
    const msg = new Uint8Array(41);
    msg.set(this.state, 0);
    msg[32] = POW[0];
    new DataView(msg.buffer).setBigUint64(33, nonce, true);
    const out = new Int32Array(8);
    sha256Short(msg, out);
    return leadingZeroBitsWords(out);
  }
  powWork(bits: number): bigint {
    const msg = new Uint8Array(41);
    msg.set(this.state, 0);
    msg[32] = POW[0];
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
        const v = h.readUInt32LE(i * 4) & mask;
        if (!seen.has(v)) {
          seen.add(v);
          out.push(v);
        }
      }
    }
    return out;
  }
}
