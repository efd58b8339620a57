import { clock } from '#lib/clock.ts';
import { getStarkKey, moveCurrentProof, type StarkKeyRecord } from '#lib/data/stark-keys.ts';
import { getStarkProof, putStarkProof, revokeStarkProof, type StarkProofRecord } from '#lib/data/stark-proofs.ts';
import { errors } from '#lib/errors.ts';
import { recordProof } from '#lib/proofs/history.ts';

/**
 * History: a session's proofs over time. A session has at most one current proof; a new one
 * (refresh) supersedes it, logout revokes it. The records are lib/data/stark-proofs.ts; every
 * issued proof also goes to the user's proof history (lib/proofs/history.ts).
 */
export type ProofRecord = StarkProofRecord;

export const isExpired = (p: StarkProofRecord) => clock.nowSeconds() >= p.expiresAt;
export const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

export async function proofRecord(proofId: string | undefined): Promise<StarkProofRecord | undefined> {
  return proofId ? getStarkProof(proofId) : undefined;
}

/** The session's key record and its current proof, either possibly absent. */
export async function currentProof(sessionHash: string): Promise<{ key?: StarkKeyRecord; proof?: StarkProofRecord }> {
  const key = await getStarkKey(sessionHash);
  return { key, proof: await proofRecord(key?.currentProofId) };
}

/** Marks a proof revoked; true when this call revoked it (false when it already was, or is gone). */
export const revoke = revokeStarkProof;

/**
 * Records a newly issued proof as the session's current one, superseding `previous`. A
 * concurrent prove or refresh that moved the current proof first wins: this proof is revoked
 * and the caller gets 409.
 */
export async function recordIssued(record: StarkProofRecord, previous: StarkProofRecord | undefined): Promise<void> {
  await putStarkProof(record);
  if (!(await moveCurrentProof(record.sessionHash, previous?.proofId, record.proofId))) {
    await revoke(record.proofId, 'superseded');
    throw errors.conflict('another proof was issued for this session at the same time; retry');
  }
  if (previous) await revoke(previous.proofId, 'superseded');
  await recordProof(record.userId, {
    type: 'stark',
    action: 'generated',
    result: 'valid',
    statement: 'session STARK: the session key holder proved knowledge of the key bound to this session',
    links: { txHash: record.txHash, proofId: record.proofId, contractAddress: record.contract },
    expiresAt: iso(record.expiresAt),
  });
}

/** A proof by id, as its record says now (for tests and support tools; never the key). */
export async function proofById(
  proofId: string,
): Promise<Pick<StarkProofRecord, 'proofId' | 'revoked' | 'revokedReason' | 'expiresAt' | 'txHash'> | undefined> {
  const p = await proofRecord(proofId);
  return p && { proofId: p.proofId, revoked: p.revoked, revokedReason: p.revokedReason, expiresAt: p.expiresAt, txHash: p.txHash };
}

/** The current proof id of a session (tests follow a proof past logout with it). */
export const currentProofId = async (sessionHash: string) => (await getStarkKey(sessionHash))?.currentProofId;
