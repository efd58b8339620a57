import { encodePublicInputs, proveSession, verifySession } from '#lib/auth/stark/index.ts';
import type { StarkProofRecord } from '#lib/data/stark-proofs.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';

/**
 * Proving and checking. A proof says "the holder of the key whose hash is `publicKey` is bound
 * to session S until T": S is the session's hash (the SHA-256 of the cookie, never the cookie),
 * T the proof's expiry. The STARK itself is lib/auth/stark.
 */
export interface SessionProof {
  starkProof: string;
  publicInputs: string[];
  airVersion: string;
}

/** A proof of the session key, verified before it is used: PROOF_GENERATION_FAILED otherwise. */
export function proveSessionKey(sk: bigint[], keyHash: bigint[], sessionHash: string, expiresAt: number): SessionProof {
  let out: SessionProof;
  try {
    out = proveSession(sk, { keyHash, sessionId: sessionHash, expiresAt });
  } catch (e) {
    logger.error('STARK proving failed', { error: e as Error });
    throw errors.proofGenerationFailed();
  }
  if (!verifySession(out.starkProof, out.publicInputs)) throw errors.proofGenerationFailed('the generated proof did not verify');
  return { starkProof: out.starkProof, publicInputs: out.publicInputs, airVersion: out.airVersion };
}

/**
 * The STARK checks of a stored proof: it verifies, and its public inputs are this session's key,
 * binding and expiry, rebuilt from the server's own records (never the client's strings).
 */
export function proofHoldsFor(p: StarkProofRecord, keyHash: bigint[], sessionHash: string): boolean {
  const expected = encodePublicInputs({ keyHash, sessionId: sessionHash, expiresAt: p.expiresAt });
  return (
    p.sessionHash === sessionHash &&
    p.publicInputs.length === expected.length &&
    p.publicInputs.every((x, i) => x === expected[i]) &&
    verifySession(p.starkProof, p.publicInputs)
  );
}
