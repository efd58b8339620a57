import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { decoder, listPartition, putNew } from './items.ts';

/**
 * Each user's proof history, newest first (no TTL: the history is kept):
 *
 *   PROOFS#<userId> / <createdAt>#<id>   ProofHistoryEntry
 */
const entrySchema = z.object({
  id: z.string(),
  kind: z.enum(['identity', 'stark']),
  /** The chain transaction that recorded it, when there is one. */
  txHash: z.string().optional(),
  /** The proof's own id (identity and STARK proofs: a uuid). */
  proofId: z.string().optional(),
  contractAddress: z.string().optional(),
  /** identity proofs: the zkId they prove. */
  zkId: z.string().optional(),
  /** STARK proofs: when the proof expires (ISO 8601). */
  expiresAt: z.string().optional(),
  createdAt: z.string(),
});
export type ProofHistoryEntry = z.infer<typeof entrySchema>;
export type ProofKind = ProofHistoryEntry['kind'];
export type NewProofHistoryEntry = Omit<ProofHistoryEntry, 'id' | 'createdAt'>;
export const proofHistoryDecoder = decoder('proof history entry', entrySchema);

const partition = (userId: string) => `PROOFS#${userId}`;

export async function addProofHistoryEntry(userId: string, fields: NewProofHistoryEntry): Promise<ProofHistoryEntry> {
  const entry: ProofHistoryEntry = { ...fields, id: randomUUID(), createdAt: clock.now().toISOString() };
  await putNew({ pk: partition(userId), sk: `${entry.createdAt}#${entry.id}`, ...entry });
  return entry;
}

export const listProofHistory = (userId: string): Promise<ProofHistoryEntry[]> =>
  listPartition(partition(userId), proofHistoryDecoder, { newestFirst: true });
