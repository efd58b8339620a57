import { isConditionalFailure, putNew } from './items.ts';

/**
 * Used nonces of chain B identity proofs, one per (zkId, nonce):
 *
 *   IDNONCE#<zkId> / <nonce>   (no attributes: the key is the fact)
 *
 * TTL: given by the caller — past the last moment the signed message could still be accepted.
 */
const key = (zkId: string, nonce: string) => ({ pk: `IDNONCE#${zkId}`, sk: nonce });

/** Claims the nonce; false when it was claimed before (and is still remembered). */
export async function claimNonce(zkId: string, nonce: string, keepUntil: number): Promise<boolean> {
  try {
    await putNew({ ...key(zkId, nonce), ttl: keepUntil });
    return true;
  } catch (e) {
    if (isConditionalFailure(e)) return false;
    throw e;
  }
}
