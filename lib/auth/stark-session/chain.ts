import { createHash } from 'node:crypto';
import { hash as starkHash, shortString } from 'starknet';
import { proofRegistry, type ProofRegistry } from '#lib/chains/chain-b/index.ts';
import { toHex64, uuidToFelt, zkIdToFelt } from '#lib/chains/chain-b/felts.ts';
import type { StarkProofRecord } from '#lib/data/stark-proofs.ts';
import { getUser } from '#lib/data/users.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';

/**
 * Chain calls. Each proof gets a uuid; `store_proof(proof_id, proof_hash, zk_id)` records it on
 * chain B's registry, with `proof_hash` a Poseidon hash binding the proof bytes, its public
 * inputs, the proof id, the account and the expiry, and `zk_id` the account's zkId as a short
 * string or, for accounts without one (OAuth legacy accounts), the user's uuid read as a 128-bit
 * integer (the two ranges cannot meet: a `did:zk:` short string is ≥ 2^176). The registry has no
 * revoke entry: revocation lives in our records (history.ts).
 */
let registryOverride: ProofRegistry | undefined;
/** Tests (and only tests) swap chain B's registry, e.g. for one that fails. `undefined` restores it. */
export function useProofRegistry(r: ProofRegistry | undefined): void {
  registryOverride = r;
}
export const registry = (): ProofRegistry => registryOverride ?? proofRegistry();

const PROOF_HASH_TAG = BigInt(shortString.encodeShortString('shroud-stark-proof:v1'));

/** The felt stored on chain: Poseidon over the tag, proof id, zk_id, SHA-256(proof ‖ inputs) and expiry. */
export function starkProofHash(p: { proofId: string; zkFelt: bigint; starkProof: string; publicInputs: string[]; expiresAt: number }): bigint {
  const digest = createHash('sha256').update(Buffer.from(p.starkProof, 'hex')).update(p.publicInputs.join(',')).digest('hex');
  return BigInt(
    starkHash.computePoseidonHashOnElements([
      PROOF_HASH_TAG,
      uuidToFelt(p.proofId),
      p.zkFelt,
      BigInt(`0x${digest.slice(0, 32)}`),
      BigInt(`0x${digest.slice(32)}`),
      BigInt(p.expiresAt),
    ]),
  );
}

async function zkFeltOf(userId: string): Promise<bigint> {
  const user = await getUser(userId);
  return user?.zkId ? zkIdToFelt(user.zkId) : uuidToFelt(userId);
}

/** `store_proof` of a new proof; CHAINB_ERROR when chain B refuses or fails. */
export async function storeOnChain(p: { proofId: string; userId: string; starkProof: string; publicInputs: string[]; expiresAt: number }) {
  const zkFelt = await zkFeltOf(p.userId);
  const proofHash = starkProofHash({ ...p, zkFelt });
  const reg = registry();
  try {
    const { txHash } = await reg.storeProof({ proofId: uuidToFelt(p.proofId), proofHash, zkId: zkFelt });
    return { txHash, proofHash: toHex64(proofHash), contract: reg.address };
  } catch (e) {
    logger.error('store_proof failed', { error: e as Error });
    throw errors.chainBError('chain B could not store the proof');
  }
}

/** Whether chain B's registry holds the proof with the hash we recorded; CHAINB_ERROR when it cannot be read. */
export async function onChain(p: StarkProofRecord): Promise<boolean> {
  const reg = registry();
  try {
    const id = uuidToFelt(p.proofId);
    if (!(await reg.verifyProofExists(id))) return false;
    const stored = await reg.getProof(id);
    return !!stored && BigInt(stored.proof_hash) === BigInt(p.proofHash);
  } catch (e) {
    logger.error('chain B read failed', { error: e as Error });
    throw errors.chainBError();
  }
}
