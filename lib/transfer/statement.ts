import bs58 from 'bs58';
import { BN254_R } from '#lib/zk/bn254.ts';

/**
 * How a withdrawal's public inputs are derived from the request, on the client and the server
 * alike (pure, WebCrypto only): the circuit's signals are [root, nullifierHash, recipient,
 * relayerFee, pool], each a BN254 field element.
 *
 * A chain A address is 32 bytes, more than a field element holds, and reducing it mod r would let
 * anyone in flight swap in address + r (an account nobody controls: the funds burnt). The
 * recipient signal is therefore SHA-256("shroud-transfer-recipient:v1" ‖ address bytes) with its
 * first byte dropped (248 bits, below r): finding another address with the same signal is a
 * second preimage of SHA-256.
 */

const DOMAIN = new TextEncoder().encode('shroud-transfer-recipient:v1');
const POOL_DOMAIN = new TextEncoder().encode('shroud-transfer-pool:v1');

/** SHA-256 of `data` with its first byte dropped: 248 bits, below the field order r. */
async function digestSignal(data: Uint8Array<ArrayBuffer>): Promise<bigint> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data));
  return BigInt(`0x${Array.from(digest.subarray(1), (b) => b.toString(16).padStart(2, '0')).join('')}`);
}

/** The 32 bytes of a base58 chain A address, or undefined for anything else. */
export function addressBytes(address: string): Uint8Array | undefined {
  try {
    const bytes = bs58.decode(address);
    return bytes.length === 32 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

export async function recipientSignal(address: string): Promise<bigint> {
  const bytes = addressBytes(address);
  if (!bytes) throw new Error('recipient: not a chain A address');
  const data = new Uint8Array(DOMAIN.length + 32);
  data.set(DOMAIN);
  data.set(bytes, DOMAIN.length);
  return digestSignal(data);
}

/**
 * The pool a withdrawal is paid from, as the circuit's `pool` signal: SHA-256("shroud-transfer-pool:v1"
 * ‖ UTF-8 pool id), first byte dropped. The server verifies with its own pool's value, so a proof
 * made for one pool is refused by every other (each pool's id names its token and denomination).
 */
export async function poolSignal(poolId: string): Promise<bigint> {
  const id = new TextEncoder().encode(poolId);
  const data = new Uint8Array(POOL_DOMAIN.length + id.length);
  data.set(POOL_DOMAIN);
  data.set(id, POOL_DOMAIN.length);
  return digestSignal(data);
}

/** A canonical decimal field element (1–78 digits, below r). */
export const isFieldElement = (s: string): boolean => /^\d{1,78}$/.test(s) && BigInt(s) < BN254_R;
