// Public API of the session STARK (used by the /api/zkauth routes).
// No Cairo VM runs anywhere: `cairo_version` in the API reports AIR_VERSION, the version of this AIR.
import { createHash } from 'node:crypto';
import { P, randomFelt } from './field.ts';
import { hashKey, RATE } from './rescue.ts';
import { AIR_VERSION, type Statement } from './air.ts';
import { DEFAULT_PARAMS, deriveShape, conjecturedSecurityBits, provenSecurityBits, HASH_COLLISION_BITS, EXTENSION_DEGREE } from './params.ts';
import { proveStatement } from './prover.ts';
import { verifyStatement } from './verifier.ts';

export { AIR_VERSION };

const shape = deriveShape(DEFAULT_PARAMS);
export const SECURITY = Object.freeze({
  field: 'Goldilocks p = 2^64 - 2^32 + 1',
  extensionDegree: EXTENSION_DEGREE,
  blowup: DEFAULT_PARAMS.blowup,
  queries: DEFAULT_PARAMS.queries,
  grindingBits: DEFAULT_PARAMS.grindingBits,
  traceLength: DEFAULT_PARAMS.traceLength,
  ldeDomainSize: shape.ldeSize,
  friFoldingFactor: 2,
  friRemainderDegree: DEFAULT_PARAMS.friRemainderDegree,
  hash: 'SHA-256',
  hashCollisionBits: HASH_COLLISION_BITS,
  conjecturedBits: conjecturedSecurityBits(DEFAULT_PARAMS),
  provenBits: provenSecurityBits(DEFAULT_PARAMS),
});

/** 4 uniformly random canonical Goldilocks felts (≈ 256 bits) from the OS CSPRNG. */
export function generateSecretKey(): bigint[] {
  return Array.from({ length: RATE }, () => randomFelt());
}

function assertKey(secretKey: readonly bigint[]): void {
  if (!Array.isArray(secretKey) || secretKey.length !== RATE || secretKey.some((x) => typeof x !== 'bigint' || x < 0n || x >= P)) {
    throw new TypeError('stark: secret key must be 4 canonical felts');
  }
}

/** Rescue-w8-r8 image of the key: the session's public key hash (4 felts). */
export function publicKeyHash(secretKey: bigint[]): bigint[] {
  assertKey(secretKey);
  return hashKey(secretKey);
}

export interface SessionPublicInputs {
  keyHash: bigint[];
  sessionId: string;
  /** Unix seconds. */
  expiresAt: number;
}

/**
 * Session binding hash: SHA-256("shroud/session-binding/v1" || u32 len || utf8(sessionId) || u64 expiresAt),
 * split into four little-endian 64-bit words, each reduced mod p.
 */
export function sessionBindingFelts(sessionId: string, expiresAt: number): bigint[] {
  if (typeof sessionId !== 'string') throw new TypeError('stark: sessionId must be a string');
  if (!Number.isSafeInteger(expiresAt) || expiresAt < 0) throw new TypeError('stark: expiresAt must be a non-negative integer (unix seconds)');
  const id = Buffer.from(sessionId, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(id.length);
  const exp = Buffer.alloc(8);
  exp.writeBigUInt64LE(BigInt(expiresAt));
  const h = createHash('sha256').update('shroud/session-binding/v1').update(len).update(id).update(exp).digest();
  return [0, 1, 2, 3].map((i) => h.readBigUInt64LE(8 * i) % P);
}

function toStatement(p: SessionPublicInputs): Statement {
  if (!Array.isArray(p.keyHash) || p.keyHash.length !== RATE || p.keyHash.some((x) => typeof x !== 'bigint' || x < 0n || x >= P)) {
    throw new TypeError('stark: keyHash must be 4 canonical felts');
  }
  return { keyHash: p.keyHash.slice(), binding: sessionBindingFelts(p.sessionId, p.expiresAt), expiry: BigInt(p.expiresAt) };
}

const felt = (x: bigint) => '0x' + x.toString(16).padStart(16, '0');
const FELT_RE = /^0x[0-9a-f]{16}$/;

/** The API's `public_inputs`: [keyHash(4), sessionBinding(4), expiresAt] as 0x + 16 lowercase hex digits each. */
export function encodePublicInputs(p: SessionPublicInputs): string[] {
  const s = toStatement(p);
  return [...s.keyHash, ...s.binding, s.expiry].map(felt);
}

/** Strict inverse of the felt encoding: exactly 0x + 16 lowercase hex digits, value < p. */
function decodePublicInputs(xs: readonly string[]): bigint[] | null {
  if (!Array.isArray(xs) || xs.length !== 9) return null;
  const out: bigint[] = [];
  for (const x of xs) {
    if (typeof x !== 'string' || !FELT_RE.test(x)) return null;
    const v = BigInt(x);
    if (v >= P) return null;
    out.push(v);
  }
  return out;
}

/** `starkProof` is lowercase hex without a 0x prefix; verifySession also accepts a 0x prefix. */
export function proveSession(secretKey: bigint[], p: SessionPublicInputs): { starkProof: string; publicInputs: string[]; airVersion: string } {
  assertKey(secretKey);
  const s = toStatement(p);
  const proof = proveStatement(secretKey, s, DEFAULT_PARAMS);
  return { starkProof: Buffer.from(proof).toString('hex'), publicInputs: encodePublicInputs(p), airVersion: AIR_VERSION };
}

const HEX_RE = /^(?:0x)?((?:[0-9a-f]{2})*)$/;

/** True iff the proof verifies against these public inputs at the shipped parameters. Never throws. */
export function verifySession(starkProof: string, publicInputs: string[]): boolean {
  try {
    if (typeof starkProof !== 'string' || starkProof.length > 1_000_000) return false;
    const m = HEX_RE.exec(starkProof);
    if (!m) return false;
    const felts = decodePublicInputs(publicInputs);
    if (!felts) return false;
    return verifyStatement(Buffer.from(m[1], 'hex'), felts, DEFAULT_PARAMS).ok;
  } catch {
    return false;
  }
}

/**
 * Route-layer convenience: verifies against public inputs recomputed from the server's own session
 * record (key hash, session id, expiry), so client-supplied `public_inputs` are never trusted.
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
