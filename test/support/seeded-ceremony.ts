import { createHash } from 'node:crypto';
import { BN254_R } from '#lib/zk/bn254.ts';

/**
 * The secrets of the seeded ceremony that circuits/build.ts ran until it was replaced (every
 * contribution a snarkjs beacon seeded with sha256 of a public string), recomputed as a forger
 * would: snarkjs's beacon RNG is SHA-256 iterated 2^exp times, then ChaCha20 keyed with the
 * result, and a scalar is four 64-bit draws (high word first) masked to 254 bits, rejected
 * while ≥ r, and read in Montgomery form (so the scalar is v·2^-256 mod r).
 */
const CEREMONY_ID = 'shroud local ceremony v1';
const ITERATIONS_EXP = 10;
export const SEEDED = {
  phase1: [`${CEREMONY_ID} / phase 1 / contribution 1`, `${CEREMONY_ID} / phase 1 / beacon`],
  phase2: (circuit: string) => [`${CEREMONY_ID} / phase 2 / ${circuit} / contribution 1`, `${CEREMONY_ID} / phase 2 / ${circuit} / beacon`],
};

const rotl = (x: number, n: number) => ((x << n) | (x >>> (32 - n))) >>> 0;

/** ChaCha20 with a 256-bit key, a zero nonce and a block counter from 0: 32-bit words, in order. */
class ChaCha20 {
  private readonly state: number[];
  private block: number[] = [];
  private next = 16;
  constructor(key: number[]) {
    this.state = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, ...key, 0, 0, 0, 0];
  }
  u32(): number {
    if (this.next === 16) this.refill();
    return this.block[this.next++]!;
  }
  u64(): bigint {
    return (BigInt(this.u32()) << 32n) + BigInt(this.u32());
  }
  private refill(): void {
    const x = [...this.state];
    const quarter = (a: number, b: number, c: number, d: number) => {
      x[a] = (x[a]! + x[b]!) >>> 0;
      x[d] = rotl(x[d]! ^ x[a]!, 16);
      x[c] = (x[c]! + x[d]!) >>> 0;
      x[b] = rotl(x[b]! ^ x[c]!, 12);
      x[a] = (x[a]! + x[b]!) >>> 0;
      x[d] = rotl(x[d]! ^ x[a]!, 8);
      x[c] = (x[c]! + x[d]!) >>> 0;
      x[b] = rotl(x[b]! ^ x[c]!, 7);
    };
    for (let i = 0; i < 10; i++) {
      quarter(0, 4, 8, 12);
      quarter(1, 5, 9, 13);
      quarter(2, 6, 10, 14);
      quarter(3, 7, 11, 15);
      quarter(0, 5, 10, 15);
      quarter(1, 6, 11, 12);
      quarter(2, 7, 8, 13);
      quarter(3, 4, 9, 14);
    }
    this.block = x.map((v, i) => (v + this.state[i]!) >>> 0);
    this.next = 0;
    for (let i = 12; i < 16; i++) {
      this.state[i] = (this.state[i]! + 1) >>> 0;
      if (this.state[i] !== 0) break;
    }
  }
}

/** snarkjs's `rngFromBeaconParams(hash, exp)`: SHA-256 iterated 2^exp times keys ChaCha20. */
function beaconRng(hash: Buffer, exp = ITERATIONS_EXP): ChaCha20 {
  let h = hash;
  for (let i = 0; i < 2 ** exp; i++) h = createHash('sha256').update(h).digest();
  return new ChaCha20(Array.from({ length: 8 }, (_, i) => h.readUInt32BE(i * 4)));
}
/** The seeded ceremony's beacons were sha256 of a public string. */
const seededRng = (text: string) => beaconRng(createHash('sha256').update(text).digest());

const MASK = (1n << 254n) - 1n;
const mod = (a: bigint) => ((a % BN254_R) + BN254_R) % BN254_R;
export function inverse(a: bigint): bigint {
  let [r0, r1, s0, s1] = [BN254_R, mod(a), 0n, 1n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return mod(s0);
}
const R_INVERSE = inverse(1n << 256n);

/** ffjavascript's `Fr.fromRng`: the scalar it stands for. */
function scalar(rng: ChaCha20): bigint {
  for (;;) {
    let v = 0n;
    for (let i = 0; i < 4; i++) v += rng.u64() << BigInt(64 * i);
    v &= MASK;
    if (v < BN254_R) return mod(v * R_INVERSE);
  }
}

/** α and β of the seeded phase 1 (each beacon draws τ, α, β in that order; contributions multiply). */
export function seededAlphaBeta(): { alpha: bigint; beta: bigint } {
  let [alpha, beta] = [1n, 1n];
  for (const text of SEEDED.phase1) {
    const rng = seededRng(text);
    scalar(rng); // τ
    alpha = mod(alpha * scalar(rng));
    beta = mod(beta * scalar(rng));
  }
  return { alpha, beta };
}

/** δ of a circuit's seeded phase 2 (each beacon's first draw; contributions multiply). */
export function seededDelta(circuit: string): bigint {
  return SEEDED.phase2(circuit).reduce((d, text) => mod(d * scalar(seededRng(text))), 1n);
}

/** δ of a beacon given as the hex of its hash (what a transcript records). */
export const beaconDelta = (hashHex: string, exp: number): bigint => scalar(beaconRng(Buffer.from(hashHex, 'hex'), exp));
