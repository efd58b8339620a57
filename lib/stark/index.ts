// Public API of the session STARK, shared by the server (/api/zkauth routes) and the client prover
// (lib/client/stark-key.ts): pure TypeScript and WebCrypto randomness, no Node-only APIs.
// No Cairo VM runs anywhere: `cairo_version` in the API reports AIR_VERSION, the version of this AIR.
import { P, randomFelt } from './field.ts';
import { hashKey, KEY_FELTS } from './rpo.ts';
import { AIR_VERSION, CUSTODY_CLIENT, CUSTODY_SERVER, PUBLIC_INPUT_COUNT, type Statement } from './air.ts';
import { DEFAULT_PARAMS, deriveShape, securityLevel, securityTable, HASH_COLLISION_BITS, EXTENSION_DEGREE } from './params.ts';
import { proveStatement } from './prover.ts';
import { verifyStatement } from './verifier.ts';
import { sha256, utf8, toHex, fromHex } from './sha256.ts';

export { AIR_VERSION, securityLevel, securityTable };

const shape = deriveShape(DEFAULT_PARAMS);
const level = securityLevel(DEFAULT_PARAMS);
export const SECURITY = Object.freeze({
  field: 'Goldilocks p = 2^64 - 2^32 + 1',
  extension: 'F_p[x]/(x^3 - x - 1)',
  extensionDegree: EXTENSION_DEGREE,
  statementHash: 'RPO (Rescue-Prime Optimized, width 12, 7 rounds)',
  blowup: DEFAULT_PARAMS.blowup,
  queries: DEFAULT_PARAMS.queries,
  grindingBits: DEFAULT_PARAMS.grindingBits,
  traceLength: DEFAULT_PARAMS.traceLength,
  ldeDomainSize: shape.ldeSize,
  friFoldingFactor: 2,
  friRemainderDegree: DEFAULT_PARAMS.friRemainderDegree,
  hash: 'SHA-256',
  hashCollisionBits: HASH_COLLISION_BITS,
  conjecturedBits: level.conjecturedBits,
  provenBits: level.provenBits,
});

/** 4 uniformly random canonical Goldilocks felts (≈ 256 bits) from the CSPRNG (WebCrypto). */
export function generateSecretKey(): bigint[] {
  return Array.from({ length: KEY_FELTS }, () => randomFelt());
}

const isFelt = (x: unknown): x is bigint => typeof x === 'bigint' && x >= 0n && x < P;

function assertKey(secretKey: readonly bigint[]): void {
  if (!Array.isArray(secretKey) || secretKey.length !== KEY_FELTS || !secretKey.every(isFelt)) {
    throw new TypeError('stark: secret key must be 4 canonical felts');
  }
}

/** RPO hash_elements of the key: the session's public key hash (4 felts). */
export function publicKeyHash(secretKey: bigint[]): bigint[] {
  assertKey(secretKey);
  return hashKey(secretKey);
}

/**
 * Who made the key and the proof: `client` (lib/client; the server never sees the key) or
 * `server` (the server-held mode for clients that send no proof). A public input, so a proof
 * cannot be relabelled.
 */
export type KeyCustody = 'client' | 'server';
const CUSTODY_FELT: Record<KeyCustody, bigint> = { client: CUSTODY_CLIENT, server: CUSTODY_SERVER };

export interface SessionPublicInputs {
  keyHash: bigint[];
  sessionId: string;
  /** Unix seconds. */
  expiresAt: number;
  /** Defaults to `server`, the mode in which the server made the key. */
  custody?: KeyCustody;
}

function u32le(n: number): Uint8Array {
  return Uint8Array.of(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}

/**
 * Session binding hash: SHA-256("shroud/session-binding/v1" || u32 len || utf8(sessionId) || u64 expiresAt),
 * split into four little-endian 64-bit words, each reduced mod p.
 */
export function sessionBindingFelts(sessionId: string, expiresAt: number): bigint[] {
  if (typeof sessionId !== 'string') throw new TypeError('stark: sessionId must be a string');
  if (!Number.isSafeInteger(expiresAt) || expiresAt < 0) throw new TypeError('stark: expiresAt must be a non-negative integer (unix seconds)');
  const id = utf8(sessionId);
  const exp = new Uint8Array(8);
  new DataView(exp.buffer).setBigUint64(0, BigInt(expiresAt), true);
  const h = sha256(utf8('shroud/session-binding/v1'), u32le(id.length), id, exp);
  const view = new DataView(h.buffer, h.byteOffset, 32);
  return [0, 1, 2, 3].map((i) => view.getBigUint64(8 * i, true) % P);
}

function toStatement(p: SessionPublicInputs): Statement {
  if (!Array.isArray(p.keyHash) || p.keyHash.length !== KEY_FELTS || !p.keyHash.every(isFelt)) {
    throw new TypeError('stark: keyHash must be 4 canonical felts');
  }
  const custody = p.custody ?? 'server';
  if (!(custody in CUSTODY_FELT)) throw new TypeError('stark: custody must be client or server');
  return {
    keyHash: p.keyHash.slice(),
    binding: sessionBindingFelts(p.sessionId, p.expiresAt),
    expiry: BigInt(p.expiresAt),
    custody: CUSTODY_FELT[custody],
  };
}

const felt = (x: bigint) => '0x' + x.toString(16).padStart(16, '0');
const FELT_RE = /^0x[0-9a-f]{16}$/;

/** A felt vector as the API writes it: 0x + 16 lowercase hex digits each. */
export function encodeFelts(xs: readonly bigint[]): string[] {
  return xs.map(felt);
}
/** Strict inverse of encodeFelts: exactly `count` strings of 0x + 16 lowercase hex digits, each < p. */
export function decodeFelts(xs: unknown, count: number): bigint[] | null {
  if (!Array.isArray(xs) || xs.length !== count) return null;
  const out: bigint[] = [];
  for (const x of xs) {
    if (typeof x !== 'string' || !FELT_RE.test(x)) return null;
    const v = BigInt(x);
    if (v >= P) return null;
    out.push(v);
  }
  return out;
}

/** A key hash (or any 4 felts) as one string: `0x` + 64 lowercase hex digits, 16 per felt (the API's `publicKey`). */
export function encodeKeyHash(keyHash: readonly bigint[]): string {
  if (keyHash.length !== KEY_FELTS || !keyHash.every(isFelt)) throw new TypeError('stark: expected 4 canonical felts');
  return '0x' + keyHash.map((x) => x.toString(16).padStart(16, '0')).join('');
}
const KEY_HASH_RE = /^0x[0-9a-f]{64}$/;
/** Strict inverse of encodeKeyHash; null for anything else (wrong length, uppercase, a felt ≥ p). */
export function decodeKeyHash(s: unknown): bigint[] | null {
  if (typeof s !== 'string' || !KEY_HASH_RE.test(s)) return null;
  const out = [0, 1, 2, 3].map((i) => BigInt('0x' + s.slice(2 + 16 * i, 18 + 16 * i)));
  return out.every((x) => x < P) ? out : null;
}

/**
 * Client-held proofs are bound to an expiry both sides compute without a round trip: 7 days after
 * the start of the current hour. The server derives the candidates for its own clock (this hour,
 * the previous one for a proof made just before the hour turned, the next one for a client clock
 * up to an hour fast) and never takes the expiry from the request.
 */
export const CLIENT_PROOF_LIFETIME_SECONDS = 7 * 24 * 3600;
export function clientProofExpiry(nowSeconds: number): number {
  return Math.floor(nowSeconds / 3600) * 3600 + CLIENT_PROOF_LIFETIME_SECONDS;
}
export function clientProofExpiryCandidates(nowSeconds: number): number[] {
  return [0, -3600, 3600].map((d) => clientProofExpiry(nowSeconds + d));
}

/**
 * Server side of the client-held mode: verifies a client's proof against public inputs the server
 * derives itself (the key hash registered for the session, the session binding, each expiry
 * candidate for its clock, custody = client). Returns the proof's public inputs and expiry, or null.
 */
export function verifyClientSessionProof(
  starkProof: string,
  p: { keyHash: bigint[]; sessionId: string; nowSeconds: number },
): { publicInputs: string[]; expiresAt: number } | null {
  for (const expiresAt of clientProofExpiryCandidates(p.nowSeconds)) {
    const inputs: SessionPublicInputs = { keyHash: p.keyHash, sessionId: p.sessionId, expiresAt, custody: 'client' };
    if (verifySessionProof(starkProof, inputs)) return { publicInputs: encodePublicInputs(inputs), expiresAt };
  }
  return null;
}

/** The API's `public_inputs`: [keyHash(4), sessionBinding(4), expiresAt, custody (1 client, 2 server)]. */
export function encodePublicInputs(p: SessionPublicInputs): string[] {
  const s = toStatement(p);
  return encodeFelts([...s.keyHash, ...s.binding, s.expiry, s.custody]);
}

/** Which mode a `public_inputs` vector is labelled with, or null if it is malformed. */
export function custodyOf(publicInputs: readonly string[]): KeyCustody | null {
  const f = decodeFelts(publicInputs, PUBLIC_INPUT_COUNT);
  if (!f) return null;
  return f[9] === CUSTODY_CLIENT ? 'client' : f[9] === CUSTODY_SERVER ? 'server' : null;
}

/** `starkProof` is lowercase hex without a 0x prefix; verifySession also accepts a 0x prefix. */
export function proveSession(secretKey: bigint[], p: SessionPublicInputs): { starkProof: string; publicInputs: string[]; airVersion: string } {
  assertKey(secretKey);
  const s = toStatement(p);
  const proof = proveStatement(secretKey, s, DEFAULT_PARAMS);
  return { starkProof: toHex(proof), publicInputs: encodePublicInputs(p), airVersion: AIR_VERSION };
}

/** A proof at the shipped parameters is about 88 KB, 176 K hex digits; anything far larger is refused unparsed. */
const MAX_PROOF_HEX = 400_000;

/** True iff the proof verifies against these public inputs at the shipped parameters. Never throws. */
export function verifySession(starkProof: string, publicInputs: string[]): boolean {
  try {
    if (typeof starkProof !== 'string' || starkProof.length > MAX_PROOF_HEX) return false;
    const bytes = fromHex(starkProof.startsWith('0x') ? starkProof.slice(2) : starkProof);
    if (!bytes) return false;
    const felts = decodeFelts(publicInputs, PUBLIC_INPUT_COUNT);
    if (!felts) return false;
    return verifyStatement(bytes, felts, DEFAULT_PARAMS).ok;
  } catch {
    return false;
  }
}

/**
 * Route-layer convenience: verifies against public inputs recomputed from the server's own session
 * record (key hash, session id, expiry, custody), so client-supplied `public_inputs` are never trusted.
 */
export function verifySessionProof(starkProof: string, p: SessionPublicInputs): boolean {
  let expected: string[];
  try {
    expected = encodePublicInputs(p);
  } catch {
    return false;
  }
  return verifySession(starkProof, expected);
}
