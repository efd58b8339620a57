/**
 * BLAKE-512 (the SHA-3 finalist, 16 rounds, not BLAKE2b): EdDSA on Baby JubJub derives its keys and
 * nonces with it (circomlibjs's eddsa.js, through the `blake-hash` package). @noble/hashes 1.5 has
 * only BLAKE2/BLAKE3, and the inputs here are one or two blocks, so plain 64-bit BigInt words are
 * fast enough (tens of µs) and need no native binding. Checked against `blake-hash` in
 * test/unit/zk/blake512.test.ts.
 */
const MASK = (1n << 64n) - 1n;

/** The first 16 64-bit words of the fractional part of π. */
const U = [
  0x243f6a8885a308d3n,
  0x13198a2e03707344n,
  0xa4093822299f31d0n,
  0x082efa98ec4e6c89n,
  0x452821e638d01377n,
  0xbe5466cf34e90c6cn,
  0xc0ac29b7c97c50ddn,
  0x3f84d5b5b5470917n,
  0x9216d5d98979fb1bn,
  0xd1310ba698dfb5acn,
  0x2ffd72dbd01adfb7n,
  0xb8e1afed6a267e96n,
  0xba7c9045f12c7f99n,
  0x24a19947b3916cf7n,
  0x0801f2e2858efc16n,
  0x636920d871574e69n,
];

/** SHA-512's initial value. */
const IV = [
  0x6a09e667f3bcc908n,
  0xbb67ae8584caa73bn,
  0x3c6ef372fe94f82bn,
  0xa54ff53a5f1d36f1n,
  0x510e527fade682d1n,
  0x9b05688c2b3e6c1fn,
  0x1f83d9abfb41bd6bn,
  0x5be0cd19137e2179n,
];

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

const rotr = (x: bigint, n: bigint): bigint => ((x >> n) | (x << (64n - n))) & MASK;

/** [a, b, c, d] and the message-word offset of each of the 8 G calls of a round (columns, then diagonals). */
const STEPS = [
  [0, 4, 8, 12],
  [1, 5, 9, 13],
  [2, 6, 10, 14],
  [3, 7, 11, 15],
  [0, 5, 10, 15],
  [1, 6, 11, 12],
  [2, 7, 8, 13],
  [3, 4, 9, 14],
] as const;

/** One compression of a 128-byte block; `t` is the message bits counted so far (0 for a block of padding only). */
function compress(h: bigint[], block: DataView, t: bigint): void {
  const m = Array.from({ length: 16 }, (_, i) => block.getBigUint64(i * 8));
  const t0 = t & MASK;
  const t1 = t >> 64n;
  // The salt is zero, so v[8..11] are the constants themselves.
  const v = [...h, U[0]!, U[1]!, U[2]!, U[3]!, t0 ^ U[4]!, t0 ^ U[5]!, t1 ^ U[6]!, t1 ^ U[7]!];
  for (let round = 0; round < 16; round++) {
    const s = SIGMA[round % 10]!;
    STEPS.forEach(([a, b, c, d], j) => {
      const x = s[2 * j]!;
      const y = s[2 * j + 1]!;
      v[a] = (v[a]! + v[b]! + (m[x]! ^ U[y]!)) & MASK;
      v[d] = rotr(v[d]! ^ v[a]!, 32n);
      v[c] = (v[c]! + v[d]!) & MASK;
      v[b] = rotr(v[b]! ^ v[c]!, 25n);
      v[a] = (v[a]! + v[b]! + (m[y]! ^ U[x]!)) & MASK;
      v[d] = rotr(v[d]! ^ v[a]!, 16n);
      v[c] = (v[c]! + v[d]!) & MASK;
      v[b] = rotr(v[b]! ^ v[c]!, 11n);
    });
  }
  for (let i = 0; i < 8; i++) h[i] = h[i]! ^ v[i]! ^ v[i + 8]!;
}

export function blake512(message: Uint8Array): Uint8Array {
  const len = message.length;
  // message ‖ 0x80 ‖ zeros up to 112 mod 128 ‖ (last of those | 0x01) ‖ 128-bit big-endian bit length.
  const total = Math.ceil((len + 17) / 128) * 128;
  const padded = new Uint8Array(total);
  padded.set(message);
  padded[len] = 0x80;
  padded[total - 17]! |= 0x01;
  const view = new DataView(padded.buffer);
  const bits = BigInt(len) * 8n;
  view.setBigUint64(total - 16, bits >> 64n);
  view.setBigUint64(total - 8, bits & MASK);
  const h = [...IV];
  for (let start = 0; start < total; start += 128) {
    const t = start < len ? BigInt(Math.min(len, start + 128)) * 8n : 0n;
    compress(h, new DataView(padded.buffer, start, 128), t);
  }
  const out = new Uint8Array(64);
  const outView = new DataView(out.buffer);
  h.forEach((w, i) => outView.setBigUint64(i * 8, w));
  return out;
}
