import { hash, shortString } from 'starknet';
import { proofRegistry, RegistryRevert } from '#lib/chains/chain-b/index.ts';
import { uuidToFelt } from '#lib/chains/chain-b/felts.ts';
import { logger } from '#lib/log.ts';

/**
 * Optional anchoring in chain B's proof registry (`store_proof`, the registry identity proofs
 * use): proof_id = the attestation's uuid, zk_id = the short string `shroud-attestation`,
 * proof_hash = Starknet Poseidon(tag, hash_hi, hash_lo) of the attestation hash split in two
 * 128-bit halves (the BN254 hash does not fit in one felt252).
 */
export const ANCHOR_TAG = BigInt(shortString.encodeShortString('shroud-attestation:v1'));
export const ANCHOR_ZK_ID = BigInt(shortString.encodeShortString('shroud-attestation'));
const LOW128 = (1n << 128n) - 1n;

export const anchorHash = (attestationHash: bigint): bigint =>
  BigInt(hash.computePoseidonHashOnElements([ANCHOR_TAG, attestationHash >> 128n, attestationHash & LOW128]));

export type AnchorOutcome = { txHash: string; contractAddress: string } | { error: 'CHAINB_ERROR'; message: string };

/** Stores the anchor; a failure is reported in the answer (the attestation is issued either way). */
export async function anchorAttestation(id: string, attestationHash: bigint): Promise<AnchorOutcome> {
  const registry = proofRegistry();
  try {
    const { txHash } = await registry.storeProof({ proofId: uuidToFelt(id), zkId: ANCHOR_ZK_ID, proofHash: anchorHash(attestationHash) });
    return { txHash, contractAddress: registry.address };
  } catch (e) {
    logger.error('attestation anchor failed', { error: e as Error });
    const message = e instanceof RegistryRevert ? `chain B refused the anchor: ${e.reason}` : 'chain B could not store the anchor';
    return { error: 'CHAINB_ERROR', message };
  }
}
