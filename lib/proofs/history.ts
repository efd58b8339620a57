import { randomUUID } from 'node:crypto';
import { clock } from '#lib/clock.ts';
import { putNew, queryPartition } from '#lib/data/items.ts';

/**
 * Each user's proof history: every proof submitted on their behalf (chain B identity proofs now,
 * the zkauth STARK proofs later), newest first. `PROOFS#<userId>` / `<createdAt>#<id>`.
 */
export type ProofKind = 'identity' | 'stark';

export interface ProofRecord {
  id: string;
  kind: ProofKind;
  /** The chain transaction that recorded it, when there is one. */
  txHash?: string;
  /** The proof's own id (for identity proofs: the registry's proof id, a uuid). */
  proofId?: string;
  contractAddress?: string;
  createdAt: string;
  [extra: string]: unknown;
}

const partition = (userId: string) => `PROOFS#${userId}`;

export type NewProofRecord = { kind: ProofKind; txHash?: string; proofId?: string; contractAddress?: string; [extra: string]: unknown };

export async function recordProof(userId: string, fields: NewProofRecord): Promise<ProofRecord> {
  const record: ProofRecord = { ...fields, id: randomUUID(), createdAt: clock.now().toISOString() };
  await putNew({ pk: partition(userId), sk: `${record.createdAt}#${record.id}`, ...record });
  return record;
}

export async function listProofs(userId: string): Promise<ProofRecord[]> {
  const items = await queryPartition(partition(userId), { newestFirst: true });
  return items.map(({ pk: _pk, sk: _sk, ttl: _ttl, ...r }) => r as unknown as ProofRecord);
}
