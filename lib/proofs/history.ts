import {
  addProofHistoryEntry,
  listProofHistory,
  type NewProofHistoryEntry,
  type ProofHistoryEntry,
  type ProofKind,
} from '#lib/data/proof-history.ts';

/**
 * The one proof-history recorder: every proof submitted on a user's behalf (chain B identity
 * proofs, the zkauth STARK proofs), newest first. Stored by lib/data/proof-history.ts.
 */
export type { ProofKind };
export type ProofRecord = ProofHistoryEntry;
export type NewProofRecord = NewProofHistoryEntry;

export const recordProof = (userId: string, fields: NewProofRecord): Promise<ProofRecord> => addProofHistoryEntry(userId, fields);

export const listProofs = (userId: string): Promise<ProofRecord[]> => listProofHistory(userId);
