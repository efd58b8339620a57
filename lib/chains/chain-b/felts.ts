import { hash, num, shortString } from 'starknet';

/**
 * Felt encodings of an identity proof for chain B's proof registry. Every value is a felt252
 * (an integer below the Stark prime P = 2^251 + 17·2^192 + 1), written as 0x-hex.
 *
 * - `proof_id`: the proof's uuid read as one 128-bit big-endian integer (its 32 hex digits).
 * - `zk_id`: the zkId as a Cairo short string (ASCII, ≤ 31 characters, big-endian bytes);
 *   `did:zk:` + 16 characters is 23.
 * - byte strings: `[byteLength, chunk_0, chunk_1, …]` with 31-byte big-endian chunks (the last
 *   one short), so that no two byte strings share an encoding.
 * - `proof_hash`: Poseidon (Starknet's `poseidon_hash_span`, `hash.computePoseidonHashOnElements`)
 *   over `[tag, proof_id, zk_id, ...bytes(publicKey), ...bytes(nonce), timestamp, ...bytes(signature)]`
 *   where tag = short string `shroud-identity-proof:v1`, publicKey and signature are the raw
 *   Ed25519 bytes, nonce its ASCII bytes, timestamp the signed unix-ms integer.
 */
export const PROOF_HASH_TAG = shortString.encodeShortString('shroud-identity-proof:v1');
export const STARK_PRIME = 2n ** 251n + 17n * 2n ** 192n + 1n;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const toHex = (x: bigint | string | number): string => num.toHex(x);
/** 0x + 64 hex digits: how addresses and hashes are shown. */
export const toHex64 = (x: bigint | string | number): string => num.toHex64(x);

export function uuidToFelt(uuid: string): bigint {
  if (!UUID.test(uuid)) throw new Error('proof id must be a uuid');
  return BigInt(`0x${uuid.replace(/-/g, '')}`);
}

export function feltToUuid(felt: bigint): string {
  const h = felt.toString(16).padStart(32, '0');
  if (h.length !== 32) throw new Error('not a uuid felt');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function zkIdToFelt(zkId: string): bigint {
  if (!/^[\x20-\x7e]{1,31}$/.test(zkId)) throw new Error('zkId must be 1–31 printable ASCII characters');
  return BigInt(shortString.encodeShortString(zkId));
}

export const feltToZkId = (felt: bigint): string => shortString.decodeShortString(toHex(felt));

export function bytesToFelts(bytes: Uint8Array): bigint[] {
  const out = [BigInt(bytes.length)];
  for (let i = 0; i < bytes.length; i += 31) {
    const chunk = bytes.subarray(i, i + 31);
    out.push(chunk.length ? BigInt(`0x${Buffer.from(chunk).toString('hex')}`) : 0n);
  }
  return out;
}

export interface SignedIdentityProof {
  proofId: string;
  zkId: string;
  /** Raw 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
  nonce: string;
  timestamp: number;
  /** Raw 64-byte Ed25519 signature. */
  signature: Uint8Array;
}

/** The felts `proof_hash` is computed over, in order. */
export const identityProofFelts = (p: SignedIdentityProof): bigint[] => [
  BigInt(PROOF_HASH_TAG),
  uuidToFelt(p.proofId),
  zkIdToFelt(p.zkId),
  ...bytesToFelts(p.publicKey),
  ...bytesToFelts(new TextEncoder().encode(p.nonce)),
  BigInt(p.timestamp),
  ...bytesToFelts(p.signature),
];

export const identityProofHash = (p: SignedIdentityProof): bigint => BigInt(hash.computePoseidonHashOnElements(identityProofFelts(p)));
