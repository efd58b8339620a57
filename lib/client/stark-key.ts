/**
 * The client side of the session STARK: the client makes the session's secret key, keeps it, and
 * proves knowledge of it. Pure TypeScript with WebCrypto randomness (no Node APIs), so the same
 * code runs in browsers, in Node 22 and in the terminal client.
 *
 * - `createSessionKey()`: a fresh key (4 Goldilocks felts, ≈ 256 bits) and its public key hash
 *   (RPO, `0x` + 64 hex digits, the format of the API's `publicKey`): at OAuth login the client
 *   sends only the hash.
 * - `proveSessionKey(key, {sessionId, expiresAt})`: the proof for `POST /api/zkauth/prove` and
 *   `/refresh`, labelled client-held in its public inputs; the server verifies it against public
 *   inputs it derives itself (the key hash registered at login, the session binding, the expiry).
 * - `clientProofExpiry(now)`: the expiry both sides compute from their clocks (see below).
 * - `exportSessionKey` / `importSessionKey`: a string form for the client's own storage.
 */
import { AIR_VERSION, generateSecretKey, publicKeyHash, proveSession, encodeKeyHash, decodeKeyHash, clientProofExpiry } from '#lib/stark/index.ts';

export { clientProofExpiry };

export interface SessionKey {
  /** Secret: never send it anywhere. */
  secretKey: bigint[];
  /** Public: `0x` + 64 lowercase hex digits (4 felts, 16 digits each). */
  keyHash: string;
}

export function createSessionKey(): SessionKey {
  const secretKey = generateSecretKey();
  return { secretKey, keyHash: encodeKeyHash(publicKeyHash(secretKey)) };
}

/** The key as 64 hex digits (the 4 felts, 16 digits each), for the client's own storage. */
export function exportSessionKey(key: SessionKey): string {
  return encodeKeyHash(key.secretKey).slice(2);
}
export function importSessionKey(hex: string): SessionKey {
  const secretKey = decodeKeyHash(`0x${hex}`);
  if (!secretKey) throw new TypeError('stark: not an exported session key');
  return { secretKey, keyHash: encodeKeyHash(publicKeyHash(secretKey)) };
}

export interface ClientProof {
  stark_proof: string;
  public_inputs: string[];
  cairo_version: string;
  /** Unix seconds: the expiry the proof is bound to. */
  expiresAt: number;
}

/**
 * Proves for the session `sessionId` (the binding the server reports for the session) until
 * `expiresAt` (default: clientProofExpiry(now)). CPU-bound for a few hundred milliseconds.
 */
export function proveSessionKey(key: SessionKey, p: { sessionId: string; expiresAt?: number; nowSeconds?: number }): ClientProof {
  const expiresAt = p.expiresAt ?? clientProofExpiry(p.nowSeconds ?? Math.floor(Date.now() / 1000));
  const out = proveSession(key.secretKey, { keyHash: publicKeyHash(key.secretKey), sessionId: p.sessionId, expiresAt, custody: 'client' });
  return { stark_proof: out.starkProof, public_inputs: out.publicInputs, cairo_version: AIR_VERSION, expiresAt };
}
