import {
  addProofHistoryEntry,
  deleteProofHistoryEntry,
  getProofHistoryEntry,
  listProofHistory,
  pageProofHistory,
  type NewProofHistoryEntry,
  type ProofHistoryEntry,
  type ProofHistoryQuery,
  type ProofType,
} from '#lib/data/proof-history.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { getCircuit } from '#lib/zk/circuits.ts';
import { proofSchema, publicSignalsSchema } from '#lib/zk/groth16.ts';
import { retentionSeconds } from './config.ts';

/**
 * The one proof-history recorder: every proof a group generates, verifies or accepts for a
 * signed-in user (toolkit proof/generate and proof/verify, storage upload and download proofs,
 * the zkauth STARK proofs, chain B identity proofs, attestations) goes through `recordProof`.
 * Stored by lib/data/proof-history.ts with the retention setting as ttl. A record holds the
 * type, circuit or statement, verification key hash, public signals, result, time and links;
 * never a private input (the callers pass only what the proof showed publicly).
 */
export type { ProofType };
export type ProofRecord = ProofHistoryEntry;
export type NewProofRecord = NewProofHistoryEntry;

/**
 * Records a proof. Best effort: the proof's own action (an upload, an attestation) has already
 * happened when this runs, so a failed history write is logged and does not fail the request.
 */
export async function recordProof(userId: string, fields: NewProofRecord): Promise<ProofRecord | undefined> {
  try {
    return await addProofHistoryEntry(userId, fields, retentionSeconds());
  } catch (e) {
    logger.error('proof history write failed', { proofType: fields.type, error: e as Error });
    return undefined;
  }
}

/** sha256 (hex) of a circuit's verification key, as pinned in its manifest. */
export const vkHashOf = (circuit: string): string => getCircuit(circuit).artifacts.vkey.sha256;

/** The fields of a Groth16 record: circuit, pinned key hash, the proof and its public signals (both public). */
export function groth16Fields(circuit: string, proof: unknown, publicSignals: unknown) {
  const p = proofSchema.safeParse(proof);
  const signals = publicSignalsSchema.safeParse(publicSignals);
  return {
    circuit,
    vkHash: vkHashOf(circuit),
    publicSignals: signals.success ? signals.data : undefined,
    proof: p.success
      ? { pi_a: [...p.data.pi_a], pi_b: p.data.pi_b.map((x) => [...x]), pi_c: [...p.data.pi_c], protocol: 'groth16', curve: 'bn128' }
      : undefined,
  };
}

export interface Groth16Event {
  type: ProofType;
  action: NewProofRecord['action'];
  circuit: string;
  proof: unknown;
  publicSignals: unknown;
  valid: boolean;
  links?: NewProofRecord['links'];
  expiresAt?: string;
}

/** Records a Groth16 proof a group made, checked or accepted: one call in the group's code. */
export const recordGroth16 = (userId: string, e: Groth16Event): Promise<ProofRecord | undefined> =>
  recordProof(userId, {
    type: e.type,
    action: e.action,
    result: e.valid ? 'valid' : 'invalid',
    ...groth16Fields(e.circuit, e.proof, e.publicSignals),
    links: e.links ?? {},
    ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}),
  });

export const listProofs = (userId: string): Promise<ProofRecord[]> => listProofHistory(userId);

export const pageProofs = (userId: string, q: ProofHistoryQuery) => pageProofHistory(userId, q);

/** The caller's record; someone else's id answers exactly as an unknown one. */
export async function getProof(userId: string, id: string): Promise<ProofRecord> {
  const entry = await getProofHistoryEntry(userId, id);
  if (!entry) throw errors.notFound('no such proof record');
  return entry;
}

export async function deleteProof(userId: string, id: string): Promise<void> {
  if (!(await deleteProofHistoryEntry(userId, id))) throw errors.notFound('no such proof record');
}
