/**
 * What a client runs for its zero-knowledge identity. WebCrypto only (no Node APIs), so the same
 * code runs in browsers, in Node 22 and in the terminal client:
 *
 * - `createIdentity(password)`: an Ed25519 key pair; the private key (PKCS#8) encrypted with
 *   AES-256-GCM under a key derived from the password with PBKDF2-SHA-256. The result is exactly
 *   the identity fields of `POST /api/auth/register` (and of `/api/auth/upgrade-legacy`).
 * - `unlockIdentity(blob, password)`: the reverse, from what `GET /api/auth/identity` returns.
 * - `signIdentityProof({zkId, nonce, timestamp}, privateKey)`: the signature that
 *   `POST /api/chainb/submit-proof` checks, over `identityProofMessage(...)`.
 */

/** Domain-separation tag and version of the signed identity-proof message. */
export const IDENTITY_PROOF_TAG = 'shroud-identity-proof:v1';
/** Nonces: 16–64 characters of base64url (hex is a subset). */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
export const DEFAULT_KDF_ITERATIONS = 200_000;

export interface IdentityProofFields {
  zkId: string;
  nonce: string;
  /** Unix time in milliseconds (an integer). */
  timestamp: number;
}

/**
 * The canonical message, as UTF-8 bytes: four lines joined by a single `\n`, no trailing newline:
 *
 *     shroud-identity-proof:v1
 *     <zkId>
 *     <nonce>
 *     <timestamp as a base-10 integer of milliseconds>
 *
 * None of the fields can contain a newline (their formats forbid it), so the encoding is unambiguous.
 */
export function identityProofMessage({ zkId, nonce, timestamp }: IdentityProofFields): Uint8Array {
  if (/[\r\n]/.test(zkId) || !NONCE_PATTERN.test(nonce) || !Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new Error('identity proof: zkId without newlines, a 16–64 character base64url nonce, an integer ms timestamp');
  }
  return new TextEncoder().encode(`${IDENTITY_PROOF_TAG}\n${zkId}\n${nonce}\n${timestamp}`);
}

export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));

/** A fresh nonce: 16 random bytes as base64url (22 characters). */
export const newNonce = (): string => toBase64(randomBytes(16)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

async function wrappingKey(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

export interface EncryptedIdentity {
  identityPublicKey: string;
  identityPrivateKeyEncrypted: string;
  identityPrivateKeyIv: string;
  kdfSalt: string;
  kdfIterations: number;
}

export interface IdentityKeys {
  publicKey: CryptoKey;
  privateKey: CryptoKey;
  /** The raw 32-byte public key, base64 (what the server stores as `identityPublicKey`). */
  publicKeyBase64: string;
}

/** A new identity key pair and its password-encrypted form for the server. */
export async function createIdentity(password: string, iterations = DEFAULT_KDF_ITERATIONS): Promise<{ keys: IdentityKeys; encrypted: EncryptedIdentity }> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = await wrappingKey(password, salt, iterations);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, pkcs8));
  const publicKeyBase64 = toBase64(raw);
  return {
    keys: { publicKey: pair.publicKey, privateKey: pair.privateKey, publicKeyBase64 },
    encrypted: {
      identityPublicKey: publicKeyBase64,
      identityPrivateKeyEncrypted: toBase64(sealed),
      identityPrivateKeyIv: toBase64(iv),
      kdfSalt: toBase64(salt),
      kdfIterations: iterations,
    },
  };
}

/** Decrypts the private key with the password; a wrong password fails (AES-GCM authentication). */
export async function unlockIdentity(blob: EncryptedIdentity, password: string): Promise<CryptoKey> {
  const key = await wrappingKey(password, fromBase64(blob.kdfSalt), blob.kdfIterations);
  let pkcs8: ArrayBuffer;
  try {
    pkcs8 = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(blob.identityPrivateKeyIv) }, key, fromBase64(blob.identityPrivateKeyEncrypted));
  } catch {
    throw new Error('wrong password or corrupted identity');
  }
  return crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
}

/** Base64 Ed25519 signature of the canonical message. */
export async function signIdentityProof(fields: IdentityProofFields, privateKey: CryptoKey): Promise<string> {
  const sig = await crypto.subtle.sign({ name: 'Ed25519' }, privateKey, identityProofMessage(fields) as Uint8Array<ArrayBuffer>);
  return toBase64(new Uint8Array(sig));
}

/** The body of `POST /api/chainb/submit-proof`, with a fresh nonce and the current time. */
export async function identityProofRequest(
  zkId: string,
  keys: { privateKey: CryptoKey; publicKeyBase64: string },
  now = Date.now(),
): Promise<{ zkId: string; publicKey: string; signature: string; nonce: string; timestamp: number }> {
  const fields = { zkId, nonce: newNonce(), timestamp: now };
  return { ...fields, publicKey: keys.publicKeyBase64, signature: await signIdentityProof(fields, keys.privateKey) };
}
