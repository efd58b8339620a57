// Single-block SHA-256 in plain JS, used only for grinding: the proof-of-work message
// (32-byte transcript state || 0x03 || 8-byte nonce) fits one 64-byte block, and a native
// crypto call per attempt costs several microseconds of binding overhead, which dominated
// proving time. Tests check it against node:crypto.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
const W = new Int32Array(64);

/** SHA-256 of a message of at most 55 bytes; writes the 8 big-endian digest words into `out`. */
export function sha256Short(msg: Uint8Array, out: Int32Array): void {
  const len = msg.length;
  if (len > 55) throw new Error('sha256Short: message too long');
  W.fill(0, 0, 16);
  for (let i = 0; i < len; i++) W[i >> 2] |= msg[i] << (24 - 8 * (i & 3));
  W[len >> 2] |= 0x80 << (24 - 8 * (len & 3));
  W[15] = len * 8;
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15];
    const b = W[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = H0[0], b = H0[1], c = H0[2], d = H0[3], e = H0[4], f = H0[5], g = H0[6], h = H0[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + K[i] + W[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  out[0] = (H0[0] + a) | 0;
  out[1] = (H0[1] + b) | 0;
  out[2] = (H0[2] + c) | 0;
  out[3] = (H0[3] + d) | 0;
  out[4] = (H0[4] + e) | 0;
  out[5] = (H0[5] + f) | 0;
  out[6] = (H0[6] + g) | 0;
  out[7] = (H0[7] + h) | 0;
}

/** Leading zero bits of a digest given as big-endian words. */
export function leadingZeroBitsWords(words: Int32Array): number {
  let n = 0;
  for (let i = 0; i < 8; i++) {
    if (words[i] === 0) {
      n += 32;
      continue;
    }
    return n + Math.clz32(words[i]);
  }
  return n;
}
