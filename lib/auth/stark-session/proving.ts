import { AIR_VERSION, encodePublicInputs, proveSession, verifyClientSessionProof, verifySession, type KeyCustody } from '#lib/stark/index.ts';
import type { StarkProofRecord } from '#lib/data/stark-proofs.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { clientBindingId } from './keys.ts';

/**
 * Proving and checking. A proof says "the holder of the key whose hash is `publicKey` is bound
 * to session S until T, and the key is held by C": S is the session's hash (the SHA-256 of the
 * cookie, never the cookie) for server-held keys, its client binding id (keys.ts) for client-held
 * ones; T the proof's expiry; C the custody. The STARK itself is lib/stark (a self-contained proof system, shared with lib/client).
 */
export interface SessionProof {
  starkProof: string;
  publicInputs: string[];
  airVersion: string;
}

/** A server-held key's proof (custody server), verified before it is used: PROOF_GENERATION_FAILED otherwise. */
export function proveSessionKey(sk: bigint[], keyHash: bigint[], sessionHash: string, expiresAt: number): SessionProof {
  let out: SessionProof;
  try {
    out = proveSession(sk, { keyHash, sessionId: sessionHash, expiresAt, custody: 'server' });
  } catch (e) {
    logger.error('STARK proving failed', { error: e as Error });
    throw errors.proofGenerationFailed();
  }
  if (!verifySession(out.starkProof, out.publicInputs)) throw errors.proofGenerationFailed('the generated proof did not verify');
  return { starkProof: out.starkProof, publicInputs: out.publicInputs, airVersion: out.airVersion };
}

/**
 * A client's proof (custody client), checked against public inputs the server derives: the key
 * hash bound to the session, the session's client binding id, the expiry for the server's clock
 * (lib/stark's clientProofExpiryCandidates). INVALID_PROOF when it does not verify.
 */
export function acceptClientProof(starkProof: string, keyHash: bigint[], bindingId: string, nowSeconds: number): SessionProof & { expiresAt: number } {
  const ok = verifyClientSessionProof(starkProof, { keyHash, sessionId: bindingId, nowSeconds });
  if (!ok) throw errors.invalidProof('the STARK proof does not verify for this session, its key hash and the current expiry');
  return { starkProof: starkProof.replace(/^0x/, ''), publicInputs: ok.publicInputs, airVersion: AIR_VERSION, expiresAt: ok.expiresAt };
}

/**
 * The STARK checks of a stored proof: it verifies, and its public inputs are this session's key,
 * binding, expiry and custody, rebuilt from the server's own records (never the client's strings).
 */
export function proofHoldsFor(p: StarkProofRecord, keyHash: bigint[], sessionHash: string, custody: KeyCustody): boolean {
  const sessionId = custody === 'client' ? clientBindingId(sessionHash) : sessionHash;
  const expected = encodePublicInputs({ keyHash, sessionId, expiresAt: p.expiresAt, custody });
  return (
    p.sessionHash === sessionHash &&
    p.publicInputs.length === expected.length &&
    p.publicInputs.every((x, i) => x === expected[i]) &&
    verifySession(p.starkProof, p.publicInputs)
  );
}
