// SHA-256 in plain TypeScript (FIPS 180-4). The STARK runs in browsers too (the client proves), and
// WebCrypto's digest is asynchronous, which thousands of small Merkle hashes cannot afford; for
// messages of a few blocks this is about as fast as a native call with its binding overhead.
// Tests check it against node:crypto.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
const W = new Int32Array(64);
const H = new Int32Array(8);

/** One compression of the 16 big-endian words in W[0..15] into H. */
function compress(): void {
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15];
    const b = W[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = H[0],
    b = H[1],
    c = H[2],
    d = H[3],
    e = H[4],
    f = H[5],
    g = H[6],
    h = H[7];
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
  H[0] = (H[0] + a) | 0;
  H[1] = (H[1] + b) | 0;
  H[2] = (H[2] + c) | 0;
  H[3] = (H[3] + d) | 0;
  H[4] = (H[4] + e) | 0;
  H[5] = (H[5] + f) | 0;
  H[6] = (H[6] + g) | 0;
  H[7] = (H[7] + h) | 0;
}

/** SHA-256 of the concatenation of `parts`: whole blocks are read a word at a time, the tail is padded in a copy. */
export function sha256(...parts: readonly Uint8Array[]): Uint8Array {
  const msg = parts.length === 1 ? parts[0] : concatBytes(parts);
  const len = msg.length;
  H.set(H0);
  const full = len - (len % 64);
  for (let o = 0; o < full; o += 64) {
    for (let i = 0; i < 16; i++) {
      const b = o + 4 * i;
      W[i] = (msg[b] << 24) | (msg[b + 1] << 16) | (msg[b + 2] << 8) | msg[b + 3];
    }
    compress();
  }
  const rest = len - full;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(msg.subarray(full), 0);
  tail[rest] = 0x80;
  const bits = len * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(bits / 0x100000000));
  view.setUint32(tail.length - 4, bits >>> 0);
  for (let o = 0; o < tail.length; o += 64) {
    for (let i = 0; i < 16; i++) W[i] = view.getInt32(o + 4 * i);
    compress();
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    out[4 * i] = H[i] >>> 24;
    out[4 * i + 1] = (H[i] >>> 16) & 0xff;
    out[4 * i + 2] = (H[i] >>> 8) & 0xff;
    out[4 * i + 3] = H[i] & 0xff;
  }
  return out;
}

/** SHA-256 of a message of at most 55 bytes (grinding); writes the 8 big-endian digest words into `out`. */
export function sha256Short(msg: Uint8Array, out: Int32Array): void {
  const len = msg.length;
  if (len > 55) throw new Error('sha256Short: message too long');
  H.set(H0);
  W.fill(0, 0, 16);
  for (let i = 0; i < len; i++) W[i >> 2] |= msg[i] << (24 - 8 * (i & 3));
  W[len >> 2] |= 0x80 << (24 - 8 * (len & 3));
  W[15] = len * 8;
  compress();
  out.set(H);
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

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const enc = new TextEncoder();
export function utf8(s: string): Uint8Array {
  return enc.encode(s);
}
export function toHex(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += b[i].toString(16).padStart(2, '0');
  return s;
}
/** Lowercase hex (even length, no prefix) to bytes; null for anything else. */
export function fromHex(h: string): Uint8Array | null {
  if (h.length % 2 !== 0) return null;
  // Character codes rather than a regex and parseInt per byte: this ran a fifth of a verification.
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = hexDigit(h.charCodeAt(2 * i));
    const lo = hexDigit(h.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) return null;
    out[i] = (hi << 4) | lo;
  }
  return out;
}
/** 0..15 for a lowercase hex digit's character code, −1 for anything else. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}
